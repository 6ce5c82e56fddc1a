// The line-completion protocol of the quality benchmark, shared by every model it scores.
//
// A cursor is placed after the indentation and the first token of each non-blank line of a
// held-out file. The request carries the file's text before the cursor as prefix, and the
// text from the end of that line on as suffix: the rest of the cursor's own line is the
// answer, so it is left out (as when the line is being typed). The first token is found by a
// small JavaScript lexer of its own (identifier, number, string literal, comment opener,
// longest operator, else one character), independent of the models' tokenizers.

export interface Position {
  /** Offset of the cursor in the file. */
  cursor: number;
  prefix: string;
  suffix: string;
  /** The rest of the line after the cursor: what a perfect suggestion inserts. */
  truth: string;
}

const FIRST_TOKEN =
  /^(?:[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*|\d[\w.]*|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`|\/\*\*?|\*\/|\/\/|>>>=|===|!==|\.\.\.|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|==|!=|=>|<=|>=|&&|\|\||\?\?|\?\.|\+\+|--|[+\-*/%&|^]=|\*\*|<<|>>|.)/u;

export function positions(text: string): Position[] {
  const out: Position[] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    const indent = line.length - line.trimStart().length;
    const body = line.slice(indent);
    if (body.trim() !== '') {
      const first = FIRST_TOKEN.exec(body)![0];
      const cursor = lineStart + indent + first.length;
      out.push({ cursor, prefix: text.slice(0, cursor), suffix: text.slice(lineEnd), truth: text.slice(cursor, lineEnd) });
    }
    if (lineEnd >= text.length) break;
    lineStart = lineEnd + 1;
  }
  return out;
}

export interface Scores {
  positions: number;
  /** Positions with a non-empty suggestion. */
  triggered: number;
  /** …that are a prefix of the truth (after trimming the suggestion's trailing whitespace). */
  correct: number;
  /** Characters of the correct suggestions. */
  correctChars: number;
  /** Suggestions equal to the whole rest of the line (both trimmed, non-empty). */
  wholeLine: number;
  /** Positions where the model's top next token was asked, and where it was right. */
  nextTokenAsked: number;
  nextTokenRight: number;
}

export const emptyScores = (): Scores => ({ positions: 0, triggered: 0, correct: 0, correctChars: 0, wholeLine: 0, nextTokenAsked: 0, nextTokenRight: 0 });

export function score(into: Scores, position: Position, suggestion: string): void {
  into.positions++;
  const text = suggestion.replace(/\s+$/, '');
  if (text === '') return;
  into.triggered++;
  if (!position.truth.startsWith(text)) return;
  into.correct++;
  into.correctChars += text.length;
  if (text === position.truth.trimEnd()) into.wholeLine++;
}

export function scoreNextToken(into: Scores, expected: string | undefined, predicted: string): void {
  if (expected === undefined) return;
  into.nextTokenAsked++;
  if (predicted === expected) into.nextTokenRight++;
}

export function add(into: Scores, from: Scores): void {
  for (const key of Object.keys(into) as (keyof Scores)[]) into[key] += from[key];
}

export interface Summary {
  precision: number;
  triggerRate: number;
  meanCorrectChars: number;
  wholeLineRate: number;
  nextTokenAccuracy: number;
}

export function summarize(s: Scores): Summary {
  return {
    precision: s.triggered ? s.correct / s.triggered : 0,
    triggerRate: s.positions ? s.triggered / s.positions : 0,
    meanCorrectChars: s.correct ? s.correctChars / s.correct : 0,
    wholeLineRate: s.positions ? s.wholeLine / s.positions : 0,
    nextTokenAccuracy: s.nextTokenAsked ? s.nextTokenRight / s.nextTokenAsked : 0,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function formatSummary(s: Summary): string {
  return (
    `precision ${pct(s.precision)} at ${pct(s.triggerRate)} of positions, ` +
    `correct ${s.meanCorrectChars.toFixed(1)} chars, whole line ${pct(s.wholeLineRate)}, next token ${pct(s.nextTokenAccuracy)}`
  );
}

/** Characters of a word typed before the cursor in `insidePositions`, and the shortest word it picks. */
export const TYPED_CHARS = 3;
const MIN_WORD = 5;

/**
 * Cursors inside a word being typed: on each line that is code (not a comment's), after the
 * first TYPED_CHARS characters of the first identifier of at least MIN_WORD characters past the
 * line's first token. Prefix, suffix and truth as in `positions` (the truth is the rest of the
 * word and of the line).
 */
export function insidePositions(text: string): Position[] {
  const out: Position[] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    let at = line.length - line.trimStart().length;
    let first = true;
    while (at < line.length) {
      const rest = line.slice(at);
      const space = rest.length - rest.trimStart().length;
      if (space === rest.length) break;
      at += space;
      const token = FIRST_TOKEN.exec(line.slice(at))![0];
      // A comment's words are prose.
      if (first && /^(?:\/\/|\/\*\*?|\*)$/.test(token)) break;
      if (!first && token.length >= MIN_WORD && /^[A-Za-z_$]/.test(token)) {
        const cursor = lineStart + at + TYPED_CHARS;
        out.push({ cursor, prefix: text.slice(0, cursor), suffix: text.slice(lineEnd), truth: text.slice(cursor, lineEnd) });
        break;
      }
      if (token.startsWith('//')) break;
      first = false;
      at += token.length;
    }
    if (lineEnd >= text.length) break;
    lineStart = lineEnd + 1;
  }
  return out;
}
