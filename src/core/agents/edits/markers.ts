// The lines that structure an answer: the three markers of a block and markdown fences.
// Markers are recognised with the sloppiness models show (5–9 marker characters, any case,
// spaces around), and nothing looser: a line that almost is a marker is reported, not guessed.

export type LineKind =
  | { kind: 'search' }
  | { kind: 'divider' }
  | { kind: 'replace' }
  | { kind: 'malformed'; expected: string }
  | { kind: 'fence'; char: '`' | '~'; length: number; info: string }
  | { kind: 'text' };

const SEARCH = /^\s*<{5,9}\s*SEARCH\s*$/i;
const DIVIDER = /^\s*={5,9}\s*$/;
const REPLACE = /^\s*>{5,9}\s*REPLACE\s*$/i;
/** `<<< SEARCH`, `<<<<<<< SEARCH:`, `>>>>>>> REPLACE here`, `<<<<<<< REPLACE`… */
const ALMOST = /^\s*(<{2,}|>{2,})\s*(SEARCH|REPLACE)\b/i;
const FENCE = /^\s{0,3}(`{3,}|~{3,})(.*)$/;

export const SEARCH_MARKER = '<<<<<<< SEARCH';
export const DIVIDER_MARKER = '=======';
export const REPLACE_MARKER = '>>>>>>> REPLACE';

/** What one line of an answer is. */
export function classifyLine(line: string): LineKind {
  if (SEARCH.test(line)) return { kind: 'search' };
  if (DIVIDER.test(line)) return { kind: 'divider' };
  if (REPLACE.test(line)) return { kind: 'replace' };
  const almost = ALMOST.exec(line);
  if (almost) {
    const opening = almost[1]![0] === '<';
    return { kind: 'malformed', expected: opening ? SEARCH_MARKER : REPLACE_MARKER };
  }
  const fence = FENCE.exec(line);
  // A backtick fence's info string has no backtick (CommonMark); such a line is inline code.
  if (fence && !(fence[1]![0] === '`' && fence[2]!.includes('`'))) {
    return { kind: 'fence', char: fence[1]![0] as '`' | '~', length: fence[1]!.length, info: fence[2]!.trim() };
  }
  return { kind: 'text' };
}
