// Regular expressions that come from outside Loom — a model, a user, an extension, an API
// request — run here, on RE2 (re2js, pure JavaScript): matching takes time linear in the text
// whatever the pattern. JavaScript's RegExp backtracks: `^(a+)+$` against 64 a's and a `!`
// takes over a minute, with a backreference (`^((a+)\2?)+$`) no bound holds at all, and the
// whole process waits meanwhile. RE2 gives up what cannot run in linear time: backreferences (`\1`,
// `\k<name>`), lookahead and lookbehind (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`), atomic groups and
// possessive quantifiers. Otherwise its syntax is Perl's, as in Go and ripgrep
// (https://github.com/google/re2/wiki/Syntax): `\d \w \s \b`, classes, `[[:alpha:]]`, `\p{L}`,
// `\x{e9}` (not `\u00e9`), `(?i)`, `(?:…)`, named groups, `{n,m}` with n, m ≤ 1000.
//
// A pattern RE2 refuses, or one too large, is a RegexRefusal (a LoomError validation_error)
// with the engine's reason and at most a short piece of the pattern, never all of it.
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';
import { LoomError } from '../errors.ts';

/** The longest pattern compiled: a bound on compile time and on what a refusal can quote. */
const MAX_PATTERN_CHARS = 10_000;

/**
 * The largest compiled program (RE2's instructions) by default. Matching a text costs up to
 * about (its length × the program's size) steps when RE2's DFA cannot help (text-query.ts
 * bounds the lines a large pattern is matched against accordingly).
 */
export const MAX_PROGRAM_SIZE = 2_000;

/** Characters of the pattern a refusal quotes at most. */
const QUOTED_CHARS = 40;

export interface LinearRegexOptions {
  /** Letters match in either case (Unicode simple case folding). */
  ignoreCase?: boolean;
  /** `.` matches a newline too (a path can hold one). */
  dotAll?: boolean;
  /** Refuse a pattern whose program is larger; MAX_PROGRAM_SIZE by default. */
  maxProgramSize?: number;
}

/**
 * A regular expression that matches in linear time.
 *
 * @example
 * const regex = LinearRegex.compile('^(a+)+$');
 * regex.test('a'.repeat(64) + '!');          // false, at once
 * LinearRegex.compile('^((a+)\\2?)+$');       // throws RegexRefusal (validation_error):
 *   // 'The regular expression cannot be used: invalid escape sequence `\2`. Backreferences …'
 */
export class LinearRegex {
  private constructor(
    /** As given. */
    readonly source: string,
    private readonly compiled: RE2JS,
  ) {}

  /** The compiled program's size in instructions: what matching one character costs at worst. */
  get programSize(): number {
    return this.compiled.programSize();
  }

  /** Compiles `source`; throws RegexRefusal (validation_error) for a pattern RE2 refuses or one too large. */
  static compile(source: string, options: LinearRegexOptions = {}): LinearRegex {
    if (typeof source !== 'string') throw new RegexRefusal('it is not a string');
    if (source.length > MAX_PATTERN_CHARS) throw new RegexRefusal(`it is ${source.length} characters long, past the ${MAX_PATTERN_CHARS} allowed`);
    const flags = (options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (options.dotAll ? RE2JS.DOTALL : 0);
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(source, flags);
    } catch (error) {
      throw new RegexRefusal(engineReason(error));
    }
    const limit = options.maxProgramSize ?? MAX_PROGRAM_SIZE;
    if (compiled.programSize() > limit) {
      throw new RegexRefusal(
        `it is too large (${compiled.programSize()} instructions compiled, at most ${limit}): use a smaller repetition count or fewer alternatives`,
      );
    }
    return new LinearRegex(source, compiled);
  }

  /** Whether the pattern matches somewhere in `text`. */
  test(text: string): boolean {
    return this.compiled.test(text);
  }

  /** Whether the pattern matches the whole of `text`. */
  matchesWhole(text: string): boolean {
    return this.compiled.testExact(text);
  }
}

/** A pattern refused: a validation_error whose `reason` is the engine's (or the size's), short. */
export class RegexRefusal extends LoomError {
  constructor(readonly reason: string) {
    super('validation_error', `The regular expression cannot be used: ${reason}.`);
  }
}

/** The engine's reason, quoting at most a short piece of the pattern, with what RE2 lacks when that is the cause. */
function engineReason(error: unknown): string {
  if (error instanceof RE2JSSyntaxException) {
    const piece = error.input ?? '';
    const quoted = piece === '' ? '' : ` \`${piece.length > QUOTED_CHARS ? `${piece.slice(0, QUOTED_CHARS)}…` : piece}\``;
    const lacking = unsupported(piece);
    return `${error.error}${quoted}${lacking ? `. ${lacking}` : ''}`;
  }
  if (error instanceof RE2JSException) return error.message.slice(0, 200);
  // Not the engine's refusal (a stack overflow on deep nesting, say): still the pattern's fault.
  return 'the engine could not compile it';
}

/** What RE2 does not have that the refused piece asks for, in words the writer can act on. */
function unsupported(piece: string): string | undefined {
  if (/^\\(?:[1-9]|k)/.test(piece)) return 'Backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time';
  if (piece.startsWith('(?=') || piece.startsWith('(?!')) return 'Lookahead ((?=…), (?!…)) is not supported: it cannot run in linear time';
  if (piece.startsWith('(?<=') || piece.startsWith('(?<!')) return 'Lookbehind ((?<=…), (?<!…)) is not supported: it cannot run in linear time';
  if (piece.startsWith('(?>')) return 'Atomic groups are not supported';
  if (/^(?:[*+?]|\{[\d,]*\})\+/.test(piece)) return 'Possessive quantifiers (a*+, a++) are not supported';
  if (piece.startsWith('\\u')) return 'Write a code point as \\x{00e9}, not \\u00e9';
  return undefined;
}
