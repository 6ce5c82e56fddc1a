// Where a completion ends. Models run on; these rules cut them where an editor would: at the
// end of the line (or of the block, when the cursor starts an empty line), and before they
// repeat the code that follows the cursor (suffix-overlap.ts: closers an editor inserted, the
// next lines).
import { fitToSuffix, type Fitted } from './suffix-overlap.ts';

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
  finish(text: string): Fitted;
}

export function stopRules(context: StopContext): StopRules {
  const lineBefore = context.prefix.slice(context.prefix.lastIndexOf('\n') + 1);
  const suffixNewline = context.suffix.indexOf('\n');
  const lineAfter = suffixNewline === -1 ? context.suffix : context.suffix.slice(0, suffixNewline);
  const multiline = lineBefore.trim() === '' && lineAfter.trim() === '';
  const indent = indentOf(lineBefore);
  // A lone `}` repeats everywhere; only a line with a word in it is evidence of a repeat.
  const nextLine = firstNonBlankLine(suffixNewline === -1 ? '' : context.suffix.slice(suffixNewline + 1));
  const nextCodeLine = nextLine && /\w/.test(nextLine) ? nextLine : undefined;

  // A closer the line already has does not end generation: what the model writes past it may
  // be the continuation (suffix-overlap.ts), and a closer may be its own (`f(x)`).
  const stop = (text: string): number | undefined => {
    if (multiline) return blockEnd(text, indent, nextCodeLine);
    const newline = text.indexOf('\n');
    return newline === -1 ? undefined : newline;
  };

  const finish = (text: string): Fitted => {
    const kept = stop(text);
    return fitToSuffix(kept === undefined ? text : text.slice(0, kept), context);
  };

  return { multiline, stop, finish };
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
