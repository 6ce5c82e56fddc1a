// A code lexer for the builtin model: a line of code becomes a few whole tokens, so that an
// n-gram context of a dozen tokens spans a meaningful stretch of code.
//
// - Identifiers, numbers and string literals stay whole (a name is one prediction, not five).
// - A token carries the horizontal whitespace that precedes it (" foo" differs from "foo"),
//   so a suggestion is rebuilt character for character from its tokens.
// - A line break is its own token ("\n"); indentation is dropped, since a suggestion never
//   crosses a line and the nesting is in the brackets anyway.
// - Comments are lexed as words and punctuation (no string literals inside), so repeated
//   comment text ("@param", "eslint-disable-next-line") is still predictable.
// - Common multi-character operators are one token ("===", "=>", "?.").
//
// The lexer is forgiving: it never fails, whatever the language; an unterminated quote ends
// at the end of its line.

export const NEWLINE = '\n';

/** What a lexer restart needs: the mode at a line start. */
const enum Mode {
  Code,
  BlockComment,
  LineComment,
}

/** Operators kept whole, longest first so that the first match is the longest. */
const OPERATORS = [
  '>>>=',
  '===',
  '!==',
  '...',
  '**=',
  '<<=',
  '>>=',
  '>>>',
  '&&=',
  '||=',
  '??=',
  '==',
  '!=',
  '=>',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '?.',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '**',
  '<<',
  '>>',
  '::',
  '->',
];

/** Operators that a following character could lengthen ("=" may become "==="). */
const EXTENSIBLE_OPERATORS = new Set<string>();
for (const op of OPERATORS) for (let i = 1; i < op.length; i++) EXTENSIBLE_OPERATORS.add(op.slice(0, i));

const enum Kind {
  Word,
  Number,
  String,
  Operator,
  Punct,
  Newline,
}

function isWordCode(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || // a-z
    (code >= 65 && code <= 90) || // A-Z
    (code >= 48 && code <= 57) || // 0-9
    code === 95 || // _
    code === 36 || // $
    code >= 128 // letters of other scripts
  );
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 11 || code === 12 || code === 0xa0 || code === 0xfeff;
}

export interface LexResult {
  /** Token texts, each with the whitespace before it on its line. */
  tokens: string[];
  /** Offset in the text just after each token (before the following whitespace). */
  ends: number[];
  /** For each token: true for a line break in plain code (where a lexer may restart). */
  safe: boolean[];
  /**
   * The unfinished end of the text, when `partial` was asked for: a word, number, string or
   * operator that touches the end of the text and could go on, or the whitespace that will
   * precede the next token. '' when the next token starts fresh.
   */
  pending: string;
}

export interface LexOptions {
  /** Treat the end of the text as the cursor: the last token may be unfinished (see pending). */
  partial?: boolean;
}

/**
 * Lexes `text` from offset `start` (which must be the start of a line in plain code, or 0).
 * Appends to `into` when given, so that an incremental lexer can reuse earlier tokens.
 */
export function lex(text: string, options: LexOptions = {}, start = 0, into?: LexResult): LexResult {
  const out: LexResult = into ?? { tokens: [], ends: [], safe: [], pending: '' };
  const { tokens, ends, safe } = out;
  const length = text.length;
  let mode: Mode = Mode.Code;
  let i = start;
  let atLineStart = true;
  let lastKind: Kind = Kind.Newline;
  let lastExtensible = false;
  let lastStart = start;

  while (i < length) {
    let code = text.charCodeAt(i);
    // Whitespace before a token: kept as part of the token, except at the start of a line.
    const wsStart = i;
    while (isBlank(code)) code = text.charCodeAt(++i);
    if (i >= length) break;
    const tokenStart = atLineStart ? i : wsStart;

    if (code === 10 || code === 13) {
      i += code === 13 && text.charCodeAt(i + 1) === 10 ? 2 : 1;
      if (mode === Mode.LineComment) mode = Mode.Code;
      tokens.push(NEWLINE);
      ends.push(i);
      safe.push(mode === Mode.Code);
      atLineStart = true;
      lastKind = Kind.Newline;
      lastExtensible = false;
      lastStart = i;
      continue;
    }
    atLineStart = false;
    const begin = i;
    let kind: Kind;
    let extensible = false;

    if (isWordCode(code)) {
      const digit = isDigit(code);
      i++;
      // A number may hold a dot ("1.5") and an exponent sign is rare enough to ignore.
      while (i < length) {
        const c = text.charCodeAt(i);
        if (isWordCode(c) || (digit && c === 46 && isDigit(text.charCodeAt(i + 1)))) i++;
        else break;
      }
      kind = digit ? Kind.Number : Kind.Word;
      extensible = true;
    } else if (mode !== Mode.Code) {
      // In a comment: words above, and punctuation one character at a time, but "*/" ends it.
      if (mode === Mode.BlockComment && code === 42 && text.charCodeAt(i + 1) === 47) {
        i += 2;
        mode = Mode.Code;
      } else i++;
      kind = Kind.Punct;
    } else if (code === 34 || code === 39 || code === 96) {
      i = endOfString(text, i, code);
      kind = Kind.String;
      // Unterminated (at the end of the text): the cursor is inside the string.
      extensible = i >= length && !closesString(text, begin, i, code);
    } else if (code === 47 && text.charCodeAt(i + 1) === 47) {
      i += 2;
      mode = Mode.LineComment;
      kind = Kind.Punct;
    } else if (code === 47 && text.charCodeAt(i + 1) === 42) {
      i += text.charCodeAt(i + 2) === 42 && text.charCodeAt(i + 3) !== 47 ? 3 : 2;
      mode = Mode.BlockComment;
      kind = Kind.Punct;
    } else {
      const op = operatorAt(text, i);
      if (op > 0) {
        i += op;
        kind = Kind.Operator;
      } else {
        i++;
        kind = Kind.Punct;
      }
      extensible = EXTENSIBLE_OPERATORS.has(text.slice(begin, i));
    }
    tokens.push(text.slice(tokenStart, i));
    ends.push(i);
    safe.push(false);
    lastKind = kind;
    lastExtensible = extensible;
    lastStart = tokenStart;
  }

  out.pending = '';
  if (options.partial) {
    const trailing = endOfLastToken(out, start);
    if (trailing < length) {
      // Whitespace after the last token: the next token starts with it, unless a line starts.
      if (lastKind !== Kind.Newline) out.pending = text.slice(trailing, length);
    } else if (lastExtensible && tokens.length > 0 && lastKind !== Kind.Newline) {
      out.pending = text.slice(lastStart, length);
      tokens.pop();
      ends.pop();
      safe.pop();
    }
  }
  return out;
}

function endOfLastToken(out: LexResult, start: number): number {
  return out.ends.length > 0 ? out.ends[out.ends.length - 1]! : start;
}

/** The offset after a string literal that starts at `i` with `quote`. */
function endOfString(text: string, i: number, quote: number): number {
  const length = text.length;
  i++;
  let depth = 0; // ${ … } nesting inside a template literal
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 92) {
      i += 2;
      continue;
    }
    if (quote === 96) {
      if (c === 36 && text.charCodeAt(i + 1) === 123) {
        depth++;
        i += 2;
        continue;
      }
      if (depth > 0 && c === 125) depth--;
      else if (depth === 0 && c === 96) return i + 1;
    } else {
      if (c === quote) return i + 1;
      if (c === 10 || c === 13) return i; // unterminated: ends with its line
    }
    i++;
  }
  return length;
}

function closesString(text: string, begin: number, end: number, quote: number): boolean {
  return end - begin >= 2 && text.charCodeAt(end - 1) === quote && text.charCodeAt(end - 2) !== 92;
}

function operatorAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  // Fast exit: operators start with one of = ! < > & | ? . * + - / % ^ :
  if (!(
    c === 61 ||
    c === 33 ||
    c === 60 ||
    c === 62 ||
    c === 38 ||
    c === 124 ||
    c === 63 ||
    c === 46 ||
    c === 42 ||
    c === 43 ||
    c === 45 ||
    c === 47 ||
    c === 37 ||
    c === 94 ||
    c === 58
  ))
    return 0;
  for (const op of OPERATORS) if (text.startsWith(op, i)) return op.length;
  return 0;
}
