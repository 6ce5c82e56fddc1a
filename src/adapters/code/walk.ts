// The walk of a workspace for the index: streamed (files come out as they are found, one
// folder's entries at a time), with an explicit stack (no recursion, so no depth of folders
// exhausts one), following .gitignore files (and .git/info/exclude), never into `.git` or
// `.loom`, nor into dependency folders unless asked. A symbolic link is followed only when its
// target is inside the workspace (the rule of src/core/workspace: the index never reads what the
// editor could not open), and a folder is walked once whatever leads to it, so links that loop
// end. Everything left out for a reason other than .gitignore is reported with the reason.
import fs from 'node:fs';
import path from 'node:path';
import { Ignores, parseGitignore, type IgnoreFile } from '../../core/code/gitignore.ts';
import { DEPENDENCY_FOLDERS, LIMITS, type SkipReason } from '../../core/code/model.ts';
import { readRegularBytesSync } from '../../core/files/read-regular.ts';
import { isInside } from '../../core/workspace/paths.ts';
import { protectedName } from '../../core/workspace/protected.ts';

/** The walk gives the event loop a turn at least this often. */
const BREATHE_EVERY_MS = 10;
/** Largest .gitignore read (larger ones are data, not rules). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

export interface WalkOptions {
  /** Files listed at most; the rest are reported once as `file-limit`. */
  maxFiles?: number;
  /** Folders below the workspace entered at most (deeper: `too-deep`). */
  maxDepth?: number;
  /** Walk dependency folders too (node_modules, vendor, .venv…). */
  dependencies?: boolean;
  /** A folder (workspace-relative) to walk instead of the whole workspace; the caller has checked it is not ignored. */
  start?: string;
  signal?: AbortSignal;
}

/** A file found, with what its stat says. */
export interface WalkedFile {
  kind: 'file';
  /** Workspace-relative, `/`-separated. */
  path: string;
  absolute: string;
  stat: fs.Stats;
}

/** Something left out, and why. */
export interface WalkedSkip {
  kind: 'skip';
  path: string;
  reason: SkipReason;
}

interface Pending {
  absolute: string;
  relative: string;
  depth: number;
  ignores: Ignores;
  /** The folder's identity (device and inode). */
  key: string;
}

/**
 * The files of the workspace at `root` (a real path), and what was left out.
 *
 * @example
 *   for await (const item of walkWorkspace('/work/app')) if (item.kind === 'file') console.log(item.path);
 */
export async function* walkWorkspace(root: string, options: WalkOptions = {}): AsyncGenerator<WalkedFile | WalkedSkip> {
  const maxFiles = options.maxFiles ?? LIMITS.maxFiles;
  const maxDepth = options.maxDepth ?? LIMITS.maxDepth;
  const visited = new Set<string>();
  let files = 0;
  let folders = 0;
  let limitReported = false;
  const start = options.start ?? '';
  const startAbsolute = start === '' ? root : path.join(root, ...start.split('/'));
  const rootStat = await fs.promises.stat(startAbsolute);
  visited.add(identity(rootStat));
  // The rules in force at the start: the workspace's, then each folder's on the way down.
  let ignores = Ignores.root(await rootIgnoreFiles(root));
  const segments = start === '' ? [] : start.split('/');
  for (let depth = 1; depth < segments.length; depth++) {
    const folder = segments.slice(0, depth).join('/');
    ignores = ignores.child(await gitignoreOf(path.join(root, ...segments.slice(0, depth)), folder));
  }
  const stack: Pending[] = [{ absolute: startAbsolute, relative: start, depth: segments.length, ignores, key: identity(rootStat) }];
  const linkedFolders: Pending[] = [];
  let lastBreath = Date.now();
  while (stack.length > 0) {
    options.signal?.throwIfAborted();
    const folder = stack.pop()!;
    const ignores = folder.relative === '' ? folder.ignores : folder.ignores.child(await gitignoreOf(folder.absolute, folder.relative));
    // The file system is asked synchronously (a round trip to libuv's threads per entry costs
    // far more than the call), a folder at a time, giving the event loop a turn every few
    // milliseconds so that a server walking a large tree still answers.
    if (Date.now() - lastBreath > BREATHE_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastBreath = Date.now();
    }
    const entries = readFolder(folder.absolute, maxFiles);
    if (!entries) {
      if (folder.relative !== '') yield { kind: 'skip', path: folder.relative, reason: 'unreadable' };
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // What the names alone rule out is never looked at; the rest is looked at in parallel.
    const candidates: { entry: fs.Dirent; relative: string; absolute: string }[] = [];
    for (const entry of entries) {
      if (protectedName(entry.name)) continue;
      const relative = folder.relative === '' ? entry.name : `${folder.relative}/${entry.name}`;
      const isLink = entry.isSymbolicLink();
      if (!options.dependencies && DEPENDENCY_FOLDERS.has(entry.name) && (isLink || entry.isDirectory())) continue;
      if (!isLink && ignores.ignores(relative, entry.isDirectory())) continue;
      candidates.push({ entry, relative, absolute: path.join(folder.absolute, entry.name) });
    }
    const subfolders: Pending[] = [];
    for (let i = 0; i < candidates.length; i++) {
      if ((i & 255) === 255 && Date.now() - lastBreath > BREATHE_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        lastBreath = Date.now();
      }
      const { entry, relative, absolute } = candidates[i]!;
      const found = look(root, entry, absolute);
      if (found.kind === 'gone') continue;
      if (found.kind === 'skip') {
        yield { kind: 'skip', path: relative, reason: found.reason };
        continue;
      }
      const { stat, linked } = found;
      if (stat.isDirectory()) {
        if (linked && ignores.ignores(relative, true)) continue;
        if (folder.depth + 1 > maxDepth) {
          yield { kind: 'skip', path: relative, reason: 'too-deep' };
          continue;
        }
        if (++folders > maxFiles) {
          if (!limitReported) yield { kind: 'skip', path: relative, reason: 'file-limit' };
          limitReported = true;
          continue;
        }
        const next = { absolute, relative, depth: folder.depth + 1, ignores, key: identity(stat) };
        // Linked folders come after the real ones: a folder is walked under its own name.
        if (linked) linkedFolders.push(next);
        else {
          visited.add(next.key);
          subfolders.push(next);
        }
        continue;
      }
      if (linked && ignores.ignores(relative, false)) continue;
      if (!stat.isFile()) {
        yield { kind: 'skip', path: relative, reason: 'not-regular' };
        continue;
      }
      if (files >= maxFiles) {
        if (!limitReported) yield { kind: 'skip', path: relative, reason: 'file-limit' };
        limitReported = true;
        continue;
      }
      files++;
      yield { kind: 'file', path: relative, absolute, stat };
    }
    // Depth first, in name order: the first subfolder is walked next.
    for (let i = subfolders.length - 1; i >= 0; i--) stack.push(subfolders[i]!);
    while (stack.length === 0 && linkedFolders.length > 0) {
      const linkedFolder = linkedFolders.shift()!;
      // Walked already under another name: a link back up the tree, or a second link to one folder.
      if (visited.has(linkedFolder.key)) yield { kind: 'skip', path: linkedFolder.relative, reason: 'symlink-loop' };
      else {
        visited.add(linkedFolder.key);
        stack.push(linkedFolder);
      }
    }
  }
}

/** What a look at an entry found: its stat (a link's target's), a reason to skip it, or nothing (gone meanwhile). */
type Look = { kind: 'found'; stat: fs.Stats; linked: boolean } | { kind: 'skip'; reason: SkipReason } | { kind: 'gone' };

/** Looks at an entry: a symbolic link is followed when its target is inside the workspace. */
function look(root: string, entry: fs.Dirent, absolute: string): Look {
  if (!entry.isSymbolicLink()) {
    const stat = fs.lstatSync(absolute, { throwIfNoEntry: false });
    return stat ? { kind: 'found', stat, linked: false } : { kind: 'gone' };
  }
  try {
    const target = fs.realpathSync.native(absolute);
    if (!isInside(root, target)) return { kind: 'skip', reason: 'symlink-outside' };
    return { kind: 'found', stat: fs.statSync(target), linked: true };
  } catch {
    return { kind: 'skip', reason: 'symlink-broken' };
  }
}

/** A folder's entries, at most `limit` + 1 of them (a folder of a million names is not read whole), or undefined when it cannot be read. */
function readFolder(absolute: string, limit: number): fs.Dirent[] | undefined {
  let directory: fs.Dir;
  try {
    directory = fs.opendirSync(absolute, { bufferSize: 256 });
  } catch {
    return undefined;
  }
  const entries: fs.Dirent[] = [];
  try {
    for (let entry = directory.readSync(); entry && entries.length <= limit; entry = directory.readSync()) entries.push(entry);
  } catch {
    // Removed or unreadable while read: what was read is walked.
  } finally {
    directory.closeSync();
  }
  return entries;
}

/** Who a folder is, whatever name leads to it. */
function identity(stat: fs.Stats): string {
  return `${stat.dev}:${stat.ino}`;
}

/** The rules in force at the workspace's folder: .git/info/exclude, then its .gitignore. */
async function rootIgnoreFiles(root: string): Promise<IgnoreFile[]> {
  const files: IgnoreFile[] = [];
  const exclude = await readRules(path.join(root, '.git', 'info', 'exclude'));
  if (exclude !== undefined) files.push(parseGitignore(exclude, ''));
  const own = await readRules(path.join(root, '.gitignore'));
  if (own !== undefined) files.push(parseGitignore(own, ''));
  return files;
}

/** A folder's .gitignore, parsed, or undefined. */
export async function gitignoreOf(absolute: string, relative: string): Promise<IgnoreFile | undefined> {
  const text = await readRules(path.join(absolute, '.gitignore'));
  return text === undefined ? undefined : parseGitignore(text, relative);
}

/** The ignore files in force in a folder (workspace-relative), for a caller that hears of one path at a time. */
export async function ignoreFilesOf(root: string, relative: string): Promise<IgnoreFile[]> {
  if (relative === '') return rootIgnoreFiles(root);
  const file = await gitignoreOf(path.join(root, relative), relative);
  return file ? [file] : [];
}

async function readRules(file: string): Promise<string | undefined> {
  try {
    // Never a FIFO swapped in for the file: reading one would never end. Read at once: most
    // folders have none, and a missing file costs less to find than a trip to libuv's threads.
    const bytes = readRegularBytesSync(file, MAX_GITIGNORE_BYTES);
    return bytes?.toString('utf8');
  } catch {
    return undefined;
  }
}
