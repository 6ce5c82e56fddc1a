// What the hostile-model tests check after each seed, whichever server ran it: the seeds to run
// (HOSTILE_SEED replays one), folders compared before and after by content, files that must not
// appear, and a seed's failure turned into a message that says how to replay it.
import { createHash, randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EndReason } from '../../src/core/agents/types.ts';
import type { HostileScript } from './hostile-model.ts';

/**
 * The seeds of this run: HOSTILE_SEED alone when set (a replay), else `runs` (HOSTILE_RUNS when
 * set) consecutive seeds from a new random one.
 */
export function hostileSeeds(runs: number): number[] {
  const given = process.env.HOSTILE_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`HOSTILE_SEED must be an integer, not ${JSON.stringify(given)}`);
    return [seed];
  }
  const count = process.env.HOSTILE_RUNS ? Number(process.env.HOSTILE_RUNS) : runs;
  const first = randomInt(0, 2 ** 31);
  return Array.from({ length: count }, (_, i) => first + i);
}

/** The reasons a task may end with whatever its model sends: every documented one but Loom's own failures. */
export const HOSTILE_END_REASONS: readonly EndReason[] = ['done', 'max_steps', 'max_tokens', 'timeout', 'loop', 'unusable_answers', 'model_error'];

/**
 * Runs one seed's check; a failure names the seed, the command that replays it and what the
 * script did.
 */
export async function withSeed(file: string, script: () => HostileScript | undefined, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    const played = script();
    const replay = played ? `HOSTILE_SEED=${played.seed} node test/run.js ${file}` : '(no script played)';
    const moves = played ? played.moves.join(' → ') : '';
    const failure = new Error(`hostile model, seed ${played?.seed}: ${(error as Error).message}\n  replay: ${replay}\n  moves: ${moves}`);
    failure.stack = `${failure.message}\n${(error as Error).stack ?? ''}`;
    throw failure;
  }
}

/** A folder's entries by path: a file by its content's hash and mode, a link by its target. */
export type TreeSnapshot = Record<string, string>;

/** Every entry under `root` (links not followed), but those `skip` names. */
export function snapshotTree(root: string, skip: (relative: string) => boolean = () => false): TreeSnapshot {
  const parts: TreeSnapshot = {};
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const relative = path.relative(root, full).split(path.sep).join('/');
      if (skip(relative)) continue;
      const stat = fs.lstatSync(full);
      if (stat.isSymbolicLink()) parts[relative] = `link → ${fs.readlinkSync(full)}`;
      else if (stat.isDirectory()) {
        parts[relative] = 'folder';
        walk(full);
      } else if (stat.isFile()) parts[relative] = `file ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')} ${stat.mode.toString(8)}`;
      else parts[relative] = 'special';
    }
  };
  if (fs.existsSync(root)) walk(root);
  return parts;
}

/** What changed between two snapshots, one line each; empty when nothing did. */
export function treeChanges(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changes: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[key] === after[key]) continue;
    changes.push(`${key}: ${before[key] ?? 'absent'} → ${after[key] ?? 'absent'}`);
  }
  return changes;
}

/** Paths under `root` (links not followed) whose name is `name`; a folder removed meanwhile (a session's copy) is passed over. */
export function findNamed(root: string, name: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.name === name) found.push(full);
      if (entry.isDirectory()) walk(full);
    }
  };
  if (fs.existsSync(root)) walk(root);
  return found;
}

/** Folders under `root` but its `.git` that hold HEAD beside objects/ and refs/: a git directory assembled by writes. */
export function assembledGitDirectories(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    const names = new Set(fs.readdirSync(dir));
    if (dir !== root && names.has('HEAD') && names.has('objects') && names.has('refs')) found.push(dir);
    for (const name of names) {
      if (dir === root && name === '.git') continue;
      const full = path.join(dir, name);
      if (fs.lstatSync(full).isDirectory()) walk(full);
    }
  };
  walk(root);
  return found;
}
