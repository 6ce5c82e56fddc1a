// The one stretch where two texts differ: what an editor applies as a single edit when a whole
// text is replaced by another, so that everything around it (positions, undo, what the user
// sees) stays put.

export interface ChangedRange {
  /** Offset in the old text where the difference starts. */
  start: number;
  /** Offset in the old text where it ends (exclusive). */
  end: number;
  /** What replaces the old text's start..end. */
  text: string;
}

/**
 * The smallest single replacement that turns `before` into `after` (common start and end left
 * out), or undefined when they are equal. Never splits a surrogate pair or a CRLF pair.
 *
 * @example
 * changedRange('let a = 1;\n', 'let b = 1;\n'); // { start: 4, end: 5, text: 'b' }
 */
export function changedRange(before: string, after: string): ChangedRange | undefined {
  if (before === after) return undefined;
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  // Back off from the middle of a pair: a high surrogate or a "\r" whose partner differs.
  if (start > 0 && splitsPair(before, start)) start--;
  let common = 0;
  while (common < shorter - start && before.charCodeAt(before.length - 1 - common) === after.charCodeAt(after.length - 1 - common)) common++;
  if (common > 0 && splitsPair(before, before.length - common)) common--;
  return { start, end: before.length - common, text: after.slice(start, after.length - common) };
}

/** Whether offset `at` falls between the two halves of a surrogate pair or of "\r\n". */
function splitsPair(text: string, at: number): boolean {
  const previous = text.charCodeAt(at - 1);
  const next = text.charCodeAt(at);
  return (previous >= 0xd800 && previous <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) || (previous === 13 && next === 10);
}
