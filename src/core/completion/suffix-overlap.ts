// A completion never repeats what already follows the cursor. Editors close brackets, quotes
// and tags as they are typed, and models write them again: `import fs from 'node:|'` gets
// `fs';` from a model, which inserted before the editor's quote would read `'node:fs';'`.
// Every provider's answer goes through this fit, once, in the engine.
//
// Two rules, on tokens (a word, or one other character; whitespace only separates them):
// 1. Overlap: the completion's tail that equals the head of the text after the cursor is
//    dropped — on the cursor's line (`a, b)` before `)` → `a, b`), or whole lines (a block whose
//    last lines are the next lines of code; closers alone, like `)` on the next line). A tail
//    is only dropped when what is left leaves the cursor's brackets and quotes as they were, so
//    a completion that closes what it opened keeps its closer (`f(x)` before `)`), and a quote
//    that opens a new string stays (`fs' + x + '` before `'`).
// 2. Passing through: a completion that closes, with the very characters the line has after
//    the cursor, something opened before the cursor (`fs';` before `'`: its quote closes the
//    string) is cut before them; what it wrote after them (`;`) is the continuation, which
//    belongs after those characters. A client that ignores it inserts `fs` and loses nothing.
// A completion that would only repeat the text after the cursor is no completion ('').

export interface Continuation {
  /** How many characters of the text after the cursor the model's line passed through. */
  skip: number;
  /** What it wrote after them: it goes right after those characters. */
  text: string;
}

export interface Fitted {
  /** What to insert at the cursor; '' when nothing is left. */
  completion: string;
  continuation?: Continuation;
}

interface Token {
  text: string;
  start: number;
  end: number;
  /** Line breaks before the token in its text. */
  line: number;
  /** No token before it on its line. */
  lineFirst: boolean;
}

const QUOTES = new Set(["'", '"', '`']);
const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
/** Characters an editor closes or a statement ends with: an overlap of these alone may cross lines. */
const CLOSING = /^[)\]}>;,'"`]$/;
const WORD = /[\p{L}\p{N}_$]/u;

/**
 * The completion fitted to the text after the cursor.
 *
 * @example
 *   fitToSuffix("fs';", { prefix: "import fs from 'node:", suffix: "'\n" });
 *   // → { completion: 'fs', continuation: { skip: 1, text: ';' } }
 *   fitToSuffix('a, b)', { prefix: 'foo(', suffix: ')' }); // → { completion: 'a, b' }
 */
export function fitToSuffix(text: string, context: { prefix: string; suffix: string }): Fitted {
  const lineBefore = context.prefix.slice(context.prefix.lastIndexOf('\n') + 1);
  const newline = context.suffix.indexOf('\n');
  const lineAfter = newline === -1 ? context.suffix : context.suffix.slice(0, newline);
  const start = stateAt(lineBefore);
  // On an otherwise empty line the cursor starts a line: a repeat of whole lines may begin there.
  const atLineStart = lineBefore.trim() === '' && lineAfter.trim() === '';
  const completion = text.replace(/\s+$/, '');
  if (completion === '') return { completion: '' };

  const scan = scanFrom(completion, start);
  const overlap = overlapCut(completion, context.suffix, scan, atLineStart);
  if (overlap !== undefined) return only(trimBefore(completion.slice(0, overlap), context.suffix));

  // The completion closes something opened before the cursor with what the line already has.
  const closer = scan.firstCloser;
  if (scan.neutral[completion.length] || closer === undefined) return only(completion);
  const head = tokenize(lineAfter);
  if (head[0]?.text !== completion[closer]) return only(completion);
  const inserted = trimBefore(completion.slice(0, closer), lineAfter);
  if (inserted.trim() === '') return { completion: '' };
  const passed = commonRun(tokenize(completion.slice(closer)), head);
  const after = completion.slice(closer + passed.ownEnd);
  const rest = lineAfter.slice(passed.theirEnd);
  const continuation = continuationOf(after, rest, lineBefore + inserted + lineAfter.slice(0, passed.theirEnd));
  return continuation === '' ? { completion: inserted } : { completion: inserted, continuation: { skip: passed.theirEnd, text: continuation } };
}

function only(completion: string): Fitted {
  return { completion: completion.trim() === '' ? '' : completion };
}

/** Whitespace the model put before the dropped text goes too when the text after the cursor starts with its own. */
function trimBefore(kept: string, after: string): string {
  return /^\s/.test(after) ? kept.replace(/\s+$/, '') : kept;
}

/**
 * What the model wrote past the characters it passed through, fitted to the rest of the line
 * after them: all of it when that rest is empty, without its tail when it ends with that
 * rest's head, and nothing when it would go before text it does not fit.
 */
function continuationOf(after: string, rest: string, lineSoFar: string): string {
  const text = after.replace(/\s+$/, '');
  if (text.trim() === '') return '';
  if (rest.trim() === '') return text;
  const cut = overlapCut(text, rest, scanFrom(text, stateAt(lineSoFar)), false);
  if (cut === undefined) return '';
  const kept = trimBefore(text.slice(0, cut), rest);
  return kept.trim() === '' ? '' : kept;
}

/**
 * Where to cut the completion so that it does not repeat the head of the suffix: the start of
 * the longest tail of its tokens that equals the suffix's first tokens and may be dropped;
 * undefined when none may. Linear: the suffix's borders come from the KMP failure function.
 */
function overlapCut(completion: string, suffix: string, scan: Scan, atLineStart: boolean): number | undefined {
  const own = tokenize(completion);
  if (own.length === 0) return undefined;
  // One more token than the completion has: whether the overlap ends a line needs the next one.
  const theirs = tokenize(suffix, own.length + 1);
  const pattern = theirs.slice(0, own.length).map((t) => t.text);
  if (pattern.length === 0) return undefined;
  const failure = failureFunction(pattern);
  // closingRun[k]: the suffix's first k tokens are closers and separators only.
  const closingRun = new Uint8Array(pattern.length + 1);
  closingRun[0] = 1;
  for (let k = 1; k <= pattern.length; k++) closingRun[k] = closingRun[k - 1]! && CLOSING.test(pattern[k - 1]!) ? 1 : 0;
  let matched = 0;
  for (const token of own) {
    while (matched > 0 && (matched === pattern.length || pattern[matched] !== token.text)) matched = failure[matched - 1]!;
    if (pattern[matched] === token.text) matched++;
  }
  for (let k = matched; k > 0; k = failure[k - 1]!) {
    const first = own[own.length - k]!;
    if (!scan.neutral[first.start]) continue;
    const last = theirs[k - 1]!;
    if (last.line === 0) return first.start;
    // Past the cursor's line: the repeat must end a line, and be whole lines or closers alone.
    const next = theirs[k];
    if (next !== undefined && next.line === last.line) continue;
    const wholeLines = first.lineFirst && (first.line > 0 || atLineStart);
    if (wholeLines || closingRun[k]) return first.start;
  }
  return undefined;
}

function failureFunction(pattern: string[]): number[] {
  const failure = new Array<number>(pattern.length).fill(0);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = failure[k - 1]!;
    if (pattern[i] === pattern[k]) k++;
    failure[i] = k;
  }
  return failure;
}

/** How far two token runs agree from their starts: the end of the agreement in each text. */
function commonRun(own: Token[], theirs: Token[]): { ownEnd: number; theirEnd: number } {
  let n = 0;
  while (n < own.length && n < theirs.length && own[n]!.text === theirs[n]!.text && own[n]!.line === 0 && theirs[n]!.line === 0) n++;
  return n === 0 ? { ownEnd: 0, theirEnd: 0 } : { ownEnd: own[n - 1]!.end, theirEnd: theirs[n - 1]!.end };
}

/** Words (letters, digits, `_`, `$`) and single other characters, at most `limit` of them. */
function tokenize(text: string, limit = Infinity): Token[] {
  const tokens: Token[] = [];
  let line = 0;
  let lineFirst = true;
  for (let i = 0; i < text.length && tokens.length < limit;) {
    const ch = text[i]!;
    if (ch === '\n') {
      line++;
      lineFirst = true;
    }
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    let end = i + 1;
    if (WORD.test(ch)) while (end < text.length && WORD.test(text[end]!)) end++;
    tokens.push({ text: text.slice(i, end), start: i, end, line, lineFirst });
    lineFirst = false;
    i = end;
  }
  return tokens;
}

interface LexState {
  /** The quote of the string the position is in, if any. */
  quote: string | undefined;
  /** In a `//` comment. */
  comment: boolean;
}

/** Whether the end of a line's text is in a string or a comment. */
function stateAt(line: string): LexState {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (QUOTES.has(ch)) quote = ch;
    else if (ch === '/' && line[i + 1] === '/') return { quote: undefined, comment: true };
  }
  return { quote, comment: false };
}

interface Scan {
  /**
   * neutral[i]: after the completion's first i characters, the text after the cursor means what
   * it meant — the same string or comment (or none), and every bracket open as before: what they
   * opened is closed, and what they closed of the text before the cursor is opened again
   * (`a), g(`; a quote that ends the cursor's string and opens another).
   */
  neutral: Uint8Array;
  /** Index of the first character that closes a bracket or the string opened before the cursor. */
  firstCloser: number | undefined;
}

function scanFrom(text: string, start: LexState): Scan {
  const neutral = new Uint8Array(text.length + 1);
  // Brackets the completion opened, and the openers before the cursor it closed (innermost first).
  const stack: string[] = [];
  const closed: string[] = [];
  // How many of the stack's brackets, from the bottom, reopen what `closed` says was closed.
  let reopened = 0;
  let { quote, comment } = start;
  let cursorString = quote !== undefined;
  let firstCloser: number | undefined;
  const isNeutral = () => quote === start.quote && comment === start.comment && stack.length === closed.length && reopened === stack.length;
  for (let i = 0; i < text.length; i++) {
    neutral[i] = isNeutral() ? 1 : 0;
    const ch = text[i]!;
    if (comment) {
      if (ch === '\n') comment = false;
    } else if (quote) {
      if (ch === '\\' && i + 1 < text.length && text[i + 1] !== '\n') {
        neutral[i + 1] = neutral[i]!;
        i++;
      } else if (ch === quote || (ch === '\n' && quote !== '`')) {
        // The string opened before the cursor ends here: with its quote, or unfinished at the line's end.
        if (cursorString && ch === quote) firstCloser ??= i;
        cursorString = false;
        quote = undefined;
      }
    } else if (QUOTES.has(ch)) quote = ch;
    else if (ch === '/' && text[i + 1] === '/') comment = true;
    else if (OPENERS[ch]) {
      if (stack.length === reopened && closed[closed.length - 1 - stack.length] === ch) reopened++;
      stack.push(ch);
    } else if (CLOSERS[ch]) {
      if (stack.length === 0) {
        closed.push(CLOSERS[ch]);
        firstCloser ??= i;
      } else if (stack[stack.length - 1] === CLOSERS[ch]) {
        if (reopened === stack.length) reopened--;
        stack.pop();
      }
    }
  }
  neutral[text.length] = isNeutral() ? 1 : 0;
  return { neutral, firstCloser };
}
