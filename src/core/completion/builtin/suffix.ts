// Fitting a suggestion to the text after the cursor: an editor has usually closed the bracket
// or quote already, so a suggestion must not end with the same closer again, and a suggestion
// the line already holds is no suggestion.

const CLOSERS = new Set([')', ']', '}', '"', "'", '`', ';', ',', '>']);

/**
 * `text` without its trailing closers that the rest of the line (`suffixLine`) starts with;
 * '' when what is left is already there after the cursor.
 */
export function fitToSuffix(text: string, suffixLine: string): string {
  text = text.replace(/\s+$/, '');
  const after = suffixLine.trimStart();
  if (after === '' || text === '') return text;
  if (after.startsWith(text.trimStart())) return '';
  // The longest run of closers at the end of the text that the suffix begins with.
  for (let n = Math.min(text.length, after.length); n > 0; n--) {
    const tail = text.slice(text.length - n);
    if (!after.startsWith(tail)) continue;
    if (![...tail].every((c) => CLOSERS.has(c))) continue;
    return text.slice(0, text.length - n).replace(/\s+$/, '');
  }
  return text;
}
