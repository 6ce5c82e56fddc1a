// Where a completion ends. Models run on; these rules cut them where an editor would:
// at the end of the line (or of the block, when the cursor starts an empty line), before they
// repeat the code that follows the cursor, and before a closing bracket the suffix already has.

export interface StopContext {
  prefix: string;
  suffix: string;
}

export interface StopRules {
  /** Multi-line only when the cursor sits on an otherwise empty line. */
  readonly multiline: boolean;
  /** During generation: characters to keep when the completion must end here, else undefined. */
  stop(text: string): number | undefined;
  /** After generation: the completion as it should be shown ('' when nothing useful is left). */
  finish(text: string): string;
}

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

export function stopRules(context: StopContext): StopRules {
  const lineBefore = context.prefix.slice(context.prefix.lastIndexOf('\n') + 1);
  const suffixNewline = context.suffix.indexOf('\n');
  const lineAfter = suffixNewline === -1 ? context.suffix : context.suffix.slice(0, suffixNewline);
  const multiline = lineBefore.trim() === '' && lineAfter.trim() === '';
  const indent = indentOf(lineBefore);
  // A lone `}` repeats everywhere; only a line with a word in it is evidence of a repeat.
  const nextLine = firstNonBlankLine(suffixNewline === -1 ? '' : context.suffix.slice(suffixNewline + 1));
  const nextCodeLine = nextLine && /\w/.test(nextLine) ? nextLine : undefined;
  const closersAfter = lineAfter.trimStart();

  const stop = (text: string): number | undefined => {
    if (!multiline) {
      const newline = text.indexOf('\n');
      const cut = newline === -1 ? undefined : newline;
      return earliest(cut, unbalancedCloser(text, closersAfter));
    }
    return earliest(blockEnd(text, indent, nextCodeLine), unbalancedCloser(text, ''));
  };

  const finish = (text: string): string => {
    const kept = stop(text);
    let result = kept === undefined ? text : text.slice(0, kept);
    if (!multiline) result = trimSuffixOverlap(result.trimEnd(), closersAfter);
    else result = result.replace(/\s+$/, '');
    return result.trim() === '' ? '' : result;
  };

  return { multiline, stop, finish };
}

/**
 * Index of a closing bracket that closes one opened before the completion, when the rest of the
 * line after the cursor starts with that bracket already (editors insert closers in pairs).
 */
function unbalancedCloser(text: string, closersAfter: string): number | undefined {
  const stack: string[] = [];
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (OPENERS[ch]) stack.push(ch);
    else if (CLOSERS[ch]) {
      if (stack.length === 0) return closersAfter.startsWith(ch) ? i : undefined;
      if (stack[stack.length - 1] === CLOSERS[ch]) stack.pop();
    }
  }
  return undefined;
}

/**
 * On an empty line the completion may span lines; the block ends before a blank line, before a
 * line indented less than the cursor, and before a repeat of the next line of code.
 */
function blockEnd(text: string, indent: number, nextCodeLine: string | undefined): number | undefined {
  let start = 0;
  for (let lineNo = 0; ; lineNo++) {
    const newline = text.indexOf('\n', start);
    const complete = newline !== -1;
    const line = complete ? text.slice(start, newline) : text.slice(start);
    const trimmed = line.trim();
    if (lineNo === 0) {
      if (complete && trimmed !== '' && trimmed === nextCodeLine) return 0;
    } else if (trimmed === '') {
      if (complete) return start - 1;
    } else if (indentOf(line) < indent || (complete && trimmed === nextCodeLine)) {
      return start - 1;
    }
    if (!complete) return undefined;
    start = newline + 1;
  }
}

/**
 * Drops separators at the end of a one-line completion that the rest of the line starts with
 * (`compute();` before `;`). Brackets are unbalancedCloser's job; a word that happens to match
 * is the model's choice.
 */
function trimSuffixOverlap(text: string, after: string): string {
  for (let n = Math.min(text.length, after.length); n > 0; n--) {
    const overlap = after.slice(0, n);
    if (/^[\s;,:.]+$/.test(overlap) && text.endsWith(overlap)) return text.slice(0, text.length - n);
  }
  return text;
}

function indentOf(line: string): number {
  let n = 0;
  for (const ch of line) {
    if (ch === ' ') n++;
    else if (ch === '\t') n += 4;
    else break;
  }
  return n;
}

function firstNonBlankLine(text: string): string | undefined {
  for (const line of text.split('\n', 50)) if (line.trim() !== '') return line.trim();
  return undefined;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
