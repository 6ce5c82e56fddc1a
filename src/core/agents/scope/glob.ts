// Path globs, as a task's `files` and the list tool take them: `*` any characters but `/`, `**`
// any folders (a whole segment), `?` one character but `/`, `[abc]` / `[!abc]` a class,
// `{a,b}` alternatives (not nested). Paths are workspace-relative with `/`; matching is
// case-sensitive, as on Linux. A glob without any of these is the path itself.
//
// A glob comes from a user, a model or an API request, so it is matched in linear time: it is
// compiled for RE2 (core/search/linear-regex.ts), never for JavaScript's backtracking RegExp,
// on which a glob like `*a*a*a*…*b` takes time exponential in its stars.
import { LoomError } from '../../errors.ts';
import { LinearRegex, RegexRefusal } from '../../search/linear-regex.ts';

export interface Glob {
  /** As given. */
  source: string;
  /** Whether a workspace-relative path matches. */
  matches(path: string): boolean;
  /** The folder every match lies in ('' for the workspace): where a walk for matches starts. */
  base: string;
}

const MAX_GLOB_LENGTH = 1024;
const SPECIAL = /[*?[\]{}]/;
/**
 * The largest program a glob may compile to. A search's bound (MAX_PROGRAM_SIZE) is set for
 * lines of 4,000 characters; paths are far shorter, and 1,024 characters of glob compile to a
 * few thousand instructions at most, which this lets through.
 */
const MAX_GLOB_PROGRAM = 20_000;

/**
 * Compiles a glob; throws LoomError validation_error for one that is empty, absolute, leaves
 * the workspace (`..`), or is malformed (an unclosed `[` or `{`).
 *
 * @example
 * compileGlob('src/**\/*.ts').matches('src/a/b.ts'); // true
 * compileGlob('src/**\/*.ts').base;                   // 'src'
 */
export function compileGlob(source: string): Glob {
  const invalid = (why: string) => new LoomError('validation_error', `The glob ${JSON.stringify(String(source).slice(0, 200))} ${why}.`);
  if (typeof source !== 'string') throw invalid('is not a string');
  if (source.trim() === '') throw invalid('is empty');
  if (source.length > MAX_GLOB_LENGTH || /[\u0000-\u001f]/.test(source)) throw invalid('is longer than 1024 characters or has control characters');
  const glob = source.trim().replace(/^\.\//, '').replace(/\/+$/, '');
  if (glob.startsWith('/') || /^[A-Za-z]:/.test(glob) || glob.includes('\\')) throw invalid('must be relative to the workspace, with / between folders');
  const segments = glob.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.' || segment === '')) throw invalid('must not contain "..", "." or empty folder names');
  let pattern = '';
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') {
      // Any folders, none included: `a/**/b` matches `a/b`; a final `**` matches everything below.
      pattern += last ? '.*' : '(?:[^/]+/)*';
      return;
    }
    pattern += segmentPattern(segment, invalid) + (last ? '' : '/');
  });
  // `.` (a final `**`) matches a newline too: a file name may hold one.
  const regex = compileLinear(pattern, invalid);
  const staticSegments: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (SPECIAL.test(segment)) break;
    staticSegments.push(segment);
  }
  const whole = !SPECIAL.test(glob);
  return {
    source,
    matches: (path) => regex.matchesWhole(path),
    // A glob without wildcards names one file; its folder is where to look.
    base: whole ? segments.slice(0, -1).join('/') : staticSegments.join('/'),
  };
}

/** The glob's pattern for RE2; a class RE2 refuses (`[z-a]`) makes the glob invalid. */
function compileLinear(pattern: string, invalid: (why: string) => LoomError): LinearRegex {
  try {
    return LinearRegex.compile(pattern, { dotAll: true, maxProgramSize: MAX_GLOB_PROGRAM });
  } catch (error) {
    throw error instanceof RegexRefusal ? invalid(`cannot be matched: ${error.reason}`) : error;
  }
}

function segmentPattern(segment: string, invalid: (why: string) => LoomError): string {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i]!;
    if (char === '*') {
      while (segment[i + 1] === '*') i++;
      out += '[^/]*';
    } else if (char === '?') out += '[^/]';
    else if (char === '[') {
      const end = segment.indexOf(']', i + 2);
      if (end < 0) throw invalid('has a "[" without its "]"');
      let body = segment.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      // Inside a class RE2 gives `\`, `[` (`[:alpha:]`), `]` and `^` a meaning: each stands for itself here.
      out += `[${negated ? '^/' : ''}${body.replace(/[\\\][^]/g, '\\$&')}]`;
      i = end;
    } else if (char === '{') {
      const end = segment.indexOf('}', i);
      if (end < 0) throw invalid('has a "{" without its "}"');
      const options = segment.slice(i + 1, end).split(',');
      out += `(?:${options.map((option) => segmentPattern(option, invalid)).join('|')})`;
      i = end;
    } else if (char === ']' || char === '}') throw invalid(`has a "${char}" without its opening`);
    else out += char.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return out;
}

/** Several globs as one: a path is in scope when any matches. */
export class GlobSet {
  readonly globs: readonly Glob[];

  constructor(sources: readonly string[]) {
    this.globs = sources.map(compileGlob);
  }

  matches(path: string): boolean {
    return this.globs.some((glob) => glob.matches(path));
  }

  /** The folders to walk for matches, none inside another. */
  bases(): string[] {
    const bases = [...new Set(this.globs.map((glob) => glob.base))].sort();
    return bases.filter((base) => !bases.some((other) => other !== base && (other === '' || base.startsWith(`${other}/`))));
  }
}
