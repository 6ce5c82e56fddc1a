// A composer session's edits written into a folder, all or nothing: `loom composer apply` (a
// local checkout) and the desktop app's apply route (the workspace, whose open documents then
// take the change) both go through here.
//
// 1. Every edit is checked before anything is written. Its paths must be plain relative paths
//    that stay in the folder (symbolic links followed) and never touch .git, .loom or Loom's
//    own folders (settings.json, with the token, when applying in the home folder): the
//    server's answer is untrusted input, and an edit naming such a path is refused as hostile.
//    Then each file must be as the session found it: its sha256 equals the edit's `baseHash`
//    (a file to create must not exist yet). Any mismatch refuses the whole apply, listing the
//    files changed since.
// 2. Then the edits are written one by one (each atomically: temporary file, rename, its mode
//    kept, through the workspace gate of core/workspace/paths.ts), every step journaled; if one
//    fails half-way, the journal is undone in reverse so the folder is as it was.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { ComposerEdit as Edit } from '../composer/types.ts';
import { LoomError } from '../errors.ts';
import { writeFileAtomically } from '../files/write-atomically.ts';
import { protectedName } from './protected.ts';
import type { WorkspacePaths } from './paths.ts';

/** One file that is not as the session found it. */
export interface Conflict {
  file: string;
  reason: string;
}

/** What apply did (or, dry, would do). */
export interface AppliedEdit {
  file: string;
  action: Edit['action'];
  from?: string;
}

/** The edits cannot be applied; nothing was written. `hostile`: an edit names a path no edit may touch. */
export class ApplyRefused extends LoomError {
  override name = 'ApplyRefused';
  constructor(
    message: string,
    readonly conflicts: Conflict[],
    readonly hostile: boolean,
  ) {
    super(
      'apply_refused',
      message,
      hostile ? undefined : 'Undo or save those changes (or start a new session from the files as they are now), then apply again.',
    );
  }

  /** The files refused, for an answer's `files`. */
  get files(): string[] {
    return this.conflicts.map((conflict) => conflict.file);
  }
}

/** A write failed half-way; what was written was restored (unless `unrestored` names files). */
export class ApplyFailed extends Error {
  override name = 'ApplyFailed';
  constructor(
    message: string,
    readonly unrestored: string[],
  ) {
    super(message);
  }
}

/** One step done, and how to undo it. */
type Step =
  | { kind: 'wrote'; file: string; before: string | null; mode: number }
  | { kind: 'removed'; file: string; before: string; mode: number }
  | { kind: 'renamed'; from: string; to: string }
  | { kind: 'made-folder'; folder: string };

export interface ApplyOptions {
  /** Check everything, write nothing. */
  dryRun: boolean;
  /**
   * Whether an editor holds unsaved edits of the file (the desktop app's open documents): such
   * a file is refused like one changed since, since writing it would lose them or be lost.
   */
  unsaved?: (file: string) => boolean;
}

/**
 * Applies `edits` to the folder of `paths` (the workspace gate: its protected paths, Loom's own
 * folders in it among them, are never written), or only checks them (`dryRun`). Throws
 * ApplyRefused (nothing written) or ApplyFailed (written, then restored).
 *
 * @example const applied = applyComposerEdits(new WorkspacePaths(process.cwd()), session.edits, { dryRun: false });
 */
export function applyComposerEdits(paths: WorkspacePaths, edits: readonly Edit[], options: ApplyOptions): AppliedEdit[] {
  checkPaths(paths, edits);
  checkBases(paths, edits, options.unsaved);
  const applied = edits.map((edit) => ({ file: edit.file, action: edit.action, ...(edit.from !== undefined ? { from: edit.from } : {}) }));
  if (options.dryRun) return applied;
  const journal: Step[] = [];
  try {
    for (const edit of edits) write(paths, edit, journal);
  } catch (error) {
    const unrestored = undo(paths, journal);
    const why = error instanceof Error ? error.message : String(error);
    const restored = unrestored.length ? ` Could not restore: ${unrestored.join(', ')}.` : ' Every file written was restored.';
    throw new ApplyFailed(`Applying failed half-way: ${why}${restored}`, unrestored);
  }
  return applied;
}

/** sha256 (hex) of bytes, as the server hashes a file's UTF-8 text for `baseHash`. */
export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The paths each edit touches: the file, and for a rename the path it had. */
function touched(edit: Edit): string[] {
  return edit.action === 'renamed' && edit.from !== undefined ? [edit.from, edit.file] : [edit.file];
}

function checkPaths(paths: WorkspacePaths, edits: readonly Edit[]): void {
  const problems: Conflict[] = [];
  const seen = new Set<string>();
  for (const edit of edits) {
    if (edit.action === 'renamed' && typeof edit.from !== 'string') problems.push({ file: String(edit.file), reason: 'a rename without the path it had' });
    for (const file of touched(edit)) {
      const why = plainPathProblem(file) ?? gateProblem(paths, edit, file);
      if (why) problems.push({ file: String(file), reason: why });
      else if (seen.has(file)) problems.push({ file, reason: 'named by two edits' });
      seen.add(file);
    }
  }
  if (problems.length) {
    throw new ApplyRefused(
      `Refused: the session names paths no edit may touch, so nothing was written (a hostile or broken answer): ${describe(problems)}`,
      problems,
      true,
    );
  }
}

/** Why a path from the server is not a plain relative path inside the folder, or undefined. */
function plainPathProblem(file: unknown): string | undefined {
  if (typeof file !== 'string' || file === '') return 'not a path';
  if (file.includes('\\') || file.startsWith('/') || /^[A-Za-z]:/.test(file) || /[\u0000-\u001f]/.test(file))
    return 'not a relative path with / between folders';
  const segments = file.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return 'leaves the folder or has empty, "." or ".." parts';
  const guarded = segments.map(protectedName).find(Boolean);
  if (guarded) return `in ${guarded}, where Loom never writes`;
  return undefined;
}

/** The workspace gate's verdict: outside the folder through a symbolic link, or a protected path. */
function gateProblem(paths: WorkspacePaths, edit: Edit, file: string): string | undefined {
  try {
    // A file whose content is written is followed through symbolic links; an entry created, removed or renamed is not.
    if (edit.action === 'modified') paths.resolveForWrite(file);
    else paths.resolveEntryForWrite(file);
    return undefined;
  } catch (error) {
    if (error instanceof LoomError) return error.message;
    throw error;
  }
}

function checkBases(paths: WorkspacePaths, edits: readonly Edit[], unsaved?: (file: string) => boolean): void {
  const conflicts: Conflict[] = [];
  for (const edit of edits) {
    const why = fileProblem(() => (unsaved && touched(edit).some(unsaved) ? 'has unsaved edits in the editor' : baseProblem(paths, edit)));
    if (why) conflicts.push({ file: edit.action === 'renamed' ? edit.from! : edit.file, reason: why });
  }
  if (conflicts.length) {
    throw new ApplyRefused(
      `Refused: ${conflicts.length === 1 ? 'a file has changed since the session read it' : `${conflicts.length} files have changed since the session read them`}, so nothing was written: ${describe(conflicts)}`,
      conflicts,
      false,
    );
  }
}

/** A file that cannot be read or looked at (a file where a folder should be, no permission) is a conflict too. */
function fileProblem(check: () => string | undefined): string | undefined {
  try {
    return check();
  } catch (error) {
    if (error instanceof LoomError || (error as NodeJS.ErrnoException).code !== undefined) return (error as Error).message;
    throw error;
  }
}

function baseProblem(paths: WorkspacePaths, edit: Edit): string | undefined {
  if (edit.action !== 'deleted' && typeof edit.content !== 'string') return 'the session gives no content for it';
  if (edit.action === 'created') return exists(paths, edit.file) ? 'exists here; the session created it' : undefined;
  if (edit.action === 'renamed' && exists(paths, edit.file)) return `${edit.file} exists here; the session renamed ${edit.from} to it`;
  const source = edit.action === 'renamed' ? edit.from! : edit.file;
  if (typeof edit.baseHash !== 'string') return 'the session gives no base hash for it';
  const real = paths.resolve(source);
  const stat = fs.statSync(real, { throwIfNoEntry: false });
  if (!stat) return 'missing here';
  if (!stat.isFile()) return 'not a file here';
  return sha256(fs.readFileSync(real)) === edit.baseHash ? undefined : 'changed since the session read it';
}

function exists(paths: WorkspacePaths, file: string): boolean {
  return fs.lstatSync(paths.resolveEntryForWrite(file), { throwIfNoEntry: false }) !== undefined;
}

function write(paths: WorkspacePaths, edit: Edit, journal: Step[]): void {
  switch (edit.action) {
    case 'created':
    case 'modified':
      writeContent(paths, edit.file, edit.content!, journal);
      return;
    case 'deleted': {
      const real = paths.resolveEntryForWrite(edit.file);
      const before = fs.readFileSync(real, 'utf8');
      const mode = fs.statSync(real).mode & 0o777;
      paths.remove(edit.file);
      journal.push({ kind: 'removed', file: edit.file, before, mode });
      return;
    }
    case 'renamed': {
      // Moved first, so the file keeps its inode and mode; then its new content, if it changed.
      makeFolders(paths, edit.file, journal);
      paths.rename(edit.from!, edit.file);
      journal.push({ kind: 'renamed', from: edit.from!, to: edit.file });
      writeContent(paths, edit.file, edit.content!, journal);
      return;
    }
  }
}

function writeContent(paths: WorkspacePaths, file: string, content: string, journal: Step[]): void {
  const real = paths.resolveForWrite(file);
  const stat = fs.statSync(real, { throwIfNoEntry: false });
  const before = stat ? fs.readFileSync(real, 'utf8') : null;
  if (before === content) return;
  makeFolders(paths, file, journal);
  paths.writeFile(file, content, { at: real });
  journal.push({ kind: 'wrote', file, before, mode: stat ? stat.mode & 0o777 : 0o644 });
}

/** Creates the missing folders of `file` one by one, journaled, so an undo removes them again. */
function makeFolders(paths: WorkspacePaths, file: string, journal: Step[]): void {
  const segments = file.split('/').slice(0, -1);
  for (let i = 1; i <= segments.length; i++) {
    const folder = segments.slice(0, i).join('/');
    const real = paths.resolveEntryForWrite(folder);
    if (fs.lstatSync(real, { throwIfNoEntry: false })) continue;
    fs.mkdirSync(real);
    journal.push({ kind: 'made-folder', folder });
  }
}

/** Undoes the journal, last step first; answers the paths that could not be restored. */
function undo(paths: WorkspacePaths, journal: Step[]): string[] {
  const unrestored: string[] = [];
  for (const step of [...journal].reverse()) {
    try {
      if (step.kind === 'made-folder') fs.rmdirSync(paths.resolveEntryForWrite(step.folder));
      else if (step.kind === 'renamed') paths.rename(step.to, step.from);
      else if (step.before === null) paths.remove(step.file);
      else writeFileAtomically(paths.resolveForWrite(step.file), step.before, step.mode);
    } catch {
      unrestored.push(step.kind === 'made-folder' ? step.folder : step.kind === 'renamed' ? step.from : step.file);
    }
  }
  return unrestored;
}

function describe(conflicts: readonly Conflict[]): string {
  return conflicts.map((conflict) => `${conflict.file} (${conflict.reason})`).join('; ');
}
