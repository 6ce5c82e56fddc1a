// Prefix and suffix budgets: how much text around the cursor a model sees. Cuts fall on line
// boundaries so a model never starts from half a token.

/** The last `maxChars` of the text before the cursor, starting at a line start when one is in reach. */
export function cutPrefix(prefix: string, maxChars: number): string {
  if (prefix.length <= maxChars) return prefix;
  const tail = prefix.slice(prefix.length - maxChars);
  const lineStart = tail.indexOf('\n');
  // A single line longer than the budget: keep its end rather than nothing.
  return lineStart === -1 || lineStart === tail.length - 1 ? tail : tail.slice(lineStart + 1);
}

/** The first `maxChars` of the text after the cursor, ending at a line end when one is in reach. */
export function cutSuffix(suffix: string, maxChars: number): string {
  if (suffix.length <= maxChars) return suffix;
  const head = suffix.slice(0, maxChars);
  const lineEnd = head.lastIndexOf('\n');
  return lineEnd <= 0 ? head : head.slice(0, lineEnd + 1);
}
