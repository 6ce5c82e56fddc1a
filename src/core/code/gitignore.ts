// .gitignore as git reads it (gitignore(5)):
//
// - A blank line or one starting with `#` is nothing; `\#` and `\!` start a pattern with the
//   character itself; trailing spaces are dropped unless escaped (`\ `).
// - `!` re-includes what an earlier pattern excluded (not inside an excluded folder: git does
//   not enter it, and neither does the walk).
// - A trailing `/` matches folders only. A pattern with a `/` at its start or middle is
//   anchored to the folder of its .gitignore; one without matches a name at any depth below.
// - `*`, `?`, `[…]` match within one name; `**/` any folders (none included), `/**` anything
//   inside, `/**/` zero or more folders. Matching never backtracks (glob.ts).
// - A deeper .gitignore overrides a shallower one; within a file the last matching line wins.
import { compilePathGlob, compileSegment, type PathGlob, type SegmentMatcher } from './glob.ts';

/** One line of a .gitignore. */
export interface IgnoreRule {
  /** The line as written. */
  source: string;
  negated: boolean;
  directoryOnly: boolean;
  /** Matched against the whole path below the .gitignore's folder, or its last name only. */
  anchored: boolean;
  matcher: SegmentMatcher | PathGlob;
}

/** The rules of one .gitignore (or .git/info/exclude) and the folder they apply below. */
export interface IgnoreFile {
  /** The folder, workspace-relative ('' for the workspace). */
  base: string;
  rules: IgnoreRule[];
}

/** Longest line read as a pattern; longer lines are ignored (no real pattern is this long). */
const MAX_PATTERN = 4096;

/**
 * Parses the text of a .gitignore that lives in folder `base` (workspace-relative, '' for the
 * workspace).
 *
 * @example parseGitignore('dist/\n*.log\n!keep.log\n', '')
 */
export function parseGitignore(text: string, base: string): IgnoreFile {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const rule = parseLine(raw);
    if (rule) rules.push(rule);
  }
  return { base, rules };
}

function parseLine(raw: string): IgnoreRule | undefined {
  if (raw.length === 0 || raw.length > MAX_PATTERN || raw.startsWith('#')) return undefined;
  let line = trimTrailingSpaces(raw);
  let negated = false;
  if (line.startsWith('!')) {
    negated = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
  let directoryOnly = false;
  if (line.endsWith('/') && !line.endsWith('\\/')) {
    directoryOnly = true;
    line = line.replace(/\/+$/, '');
  }
  if (line.length === 0) return undefined;
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  if (line.length === 0) return undefined;
  const matcher = anchored ? compilePathGlob(line) : compileSegment(line);
  return { source: raw, negated, directoryOnly, anchored, matcher };
}

/** Trailing spaces go, unless the last one is escaped with a backslash. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ') {
    // An odd number of backslashes before the space escapes it.
    let slashes = 0;
    for (let k = end - 2; k >= 0 && line[k] === '\\'; k--) slashes++;
    if (slashes % 2 === 1) break;
    end--;
  }
  return line.slice(0, end);
}

/**
 * What one .gitignore says of `path` (workspace-relative, inside its base): 'ignored',
 * 'included' (a `!` line matched last) or undefined (no line matched).
 */
export function decide(file: IgnoreFile, path: string, isDirectory: boolean): 'ignored' | 'included' | undefined {
  const below = file.base === '' ? path : path.startsWith(`${file.base}/`) ? path.slice(file.base.length + 1) : undefined;
  if (below === undefined || below === '') return undefined;
  const segments = below.split('/');
  const name = segments[segments.length - 1]!;
  for (let i = file.rules.length - 1; i >= 0; i--) {
    const rule = file.rules[i]!;
    if (rule.directoryOnly && !isDirectory) continue;
    const hit = rule.anchored ? (rule.matcher as PathGlob).matches(segments) : (rule.matcher as SegmentMatcher).matches(name);
    if (hit) return rule.negated ? 'included' : 'ignored';
  }
  return undefined;
}

/**
 * The .gitignore files in force for a folder: its own and its parents', the deepest last. The
 * walk makes one per folder it enters (`child`), sharing its parents' files.
 *
 * @example
 *   const root = Ignores.root([parseGitignore('*.log\n', '')]);
 *   root.ignores('a/b.log', false) // true
 */
export class Ignores {
  private constructor(
    private readonly parent: Ignores | undefined,
    private readonly files: readonly IgnoreFile[],
  ) {}

  /** The rules in force at the workspace's folder (its .gitignore, .git/info/exclude). */
  static root(files: readonly IgnoreFile[] = []): Ignores {
    return new Ignores(
      undefined,
      files.filter((file) => file.rules.length > 0),
    );
  }

  /** The rules in force in a folder below, with its own .gitignore when it has one. */
  child(file: IgnoreFile | undefined): Ignores {
    return file && file.rules.length > 0 ? new Ignores(this, [file]) : this;
  }

  /**
   * Whether `path` (workspace-relative) is ignored, by the rules in force here. Its folders are
   * taken as not ignored: the walk never enters an ignored folder (see ignoresPath).
   */
  ignores(path: string, isDirectory: boolean): boolean {
    for (let i = this.files.length - 1; i >= 0; i--) {
      const verdict = decide(this.files[i]!, path, isDirectory);
      if (verdict) return verdict === 'ignored';
    }
    return this.parent?.ignores(path, isDirectory) ?? false;
  }
}

/**
 * Whether `path` is ignored, its folders included: an ignored folder hides everything in it,
 * whatever a `!` line says below. `filesFor(folder)` gives the .gitignore rules of a folder
 * (workspace-relative, '' for the workspace), for a caller that hears of one path at a time
 * (the watcher).
 *
 * @example ignoresPath('build/out/a.js', false, (folder) => (folder === '' ? [parseGitignore('build/\n', '')] : []))
 */
export function ignoresPath(path: string, isDirectory: boolean, filesFor: (folder: string) => readonly IgnoreFile[]): boolean {
  const segments = path.split('/');
  let ignores = Ignores.root(filesFor(''));
  for (let depth = 1; depth <= segments.length; depth++) {
    const prefix = segments.slice(0, depth).join('/');
    const last = depth === segments.length;
    if (ignores.ignores(prefix, last ? isDirectory : true)) return true;
    if (!last) for (const file of filesFor(prefix)) ignores = ignores.child(file);
  }
  return false;
}
