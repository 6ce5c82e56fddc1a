// Which files a text search looks at: globs to include and to exclude, as ripgrep's `-g` takes
// them (gitignore syntax: `*.ts` matches a name at any depth, `src/*.ts` is anchored at the
// workspace, `dir/` matches a folder and what is in it; and `{a,b}` alternatives).
import { LoomError } from '../errors.ts';
import { decide, parseGitignore, type IgnoreFile } from './gitignore.ts';

/** Globs at most, after `{a,b}` alternatives are expanded. */
const MAX_GLOBS = 256;
const MAX_GLOB_CHARS = 1024;

/** Whether a workspace-relative file path is searched. */
export type PathFilter = (path: string) => boolean;

/**
 * A filter from include and exclude globs: a file is searched when it (or a folder it is in)
 * matches an include glob, if any are given, and neither it nor a folder it is in matches an
 * exclude glob. Throws LoomError validation_error for too many or too long globs.
 *
 * @example pathFilter(['*.ts'], ['*.test.ts'])('src/a.ts') // true
 */
export function pathFilter(include: readonly string[] = [], exclude: readonly string[] = []): PathFilter {
  const included = include.length > 0 ? globFile(include) : undefined;
  const excluded = exclude.length > 0 ? globFile(exclude) : undefined;
  return (path) => {
    if (excluded && matchesWithFolders(excluded, path)) return false;
    return !included || matchesWithFolders(included, path);
  };
}

function globFile(globs: readonly string[]): IgnoreFile {
  if (globs.length > MAX_GLOBS || globs.some((glob) => typeof glob !== 'string' || glob.length > MAX_GLOB_CHARS)) {
    throw new LoomError('validation_error', `At most ${MAX_GLOBS} globs of at most ${MAX_GLOB_CHARS} characters are accepted.`);
  }
  const expanded = globs.flatMap(expandBraces);
  if (expanded.length > MAX_GLOBS) throw new LoomError('validation_error', `At most ${MAX_GLOBS} globs (after {a,b} alternatives) are accepted.`);
  for (const glob of expanded) {
    if (glob.length > MAX_GLOB_CHARS || /[\r\n]/.test(glob))
      throw new LoomError('validation_error', `A glob is longer than ${MAX_GLOB_CHARS} characters or has a line break.`);
  }
  return parseGitignore(expanded.join('\n'), '');
}

/** Whether the file or one of its folders matches a line of `file`. */
function matchesWithFolders(file: IgnoreFile, path: string): boolean {
  if (decide(file, path, false) === 'ignored') return true;
  for (let slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
    if (decide(file, path.slice(0, slash), true) === 'ignored') return true;
  }
  return false;
}

/**
 * `{a,b}` alternatives expanded, nested too, at most MAX_GLOBS results; `\{` is a brace.
 *
 * @example expandBraces('src/*.{ts,tsx}') // ['src/*.ts', 'src/*.tsx']
 */
export function expandBraces(glob: string): string[] {
  const open = findUnescaped(glob, '{', 0);
  if (open < 0) return [glob];
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; i < glob.length; i++) {
    const char = glob[i];
    if (char === '\\') {
      i++;
      continue;
    }
    if (char === '{') depth++;
    else if (char === '}' && --depth === 0) {
      close = i;
      break;
    } else if (char === ',' && depth === 1) commas.push(i);
  }
  if (close < 0 || commas.length === 0) return [glob];
  const head = glob.slice(0, open);
  const tail = glob.slice(close + 1);
  const bounds = [open, ...commas, close];
  const out: string[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    for (const expanded of expandBraces(head + glob.slice(bounds[k]! + 1, bounds[k + 1]) + tail)) {
      if (out.length >= MAX_GLOBS + 1) return out;
      out.push(expanded);
    }
  }
  return out;
}

function findUnescaped(text: string, char: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === char) return i;
  }
  return -1;
}
