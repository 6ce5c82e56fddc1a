// Quoting what someone else wrote back to them. A model's answer may hold a tool name of
// millions of characters, or a line of an edit block as long: what Loom tells it back (a
// correction, a refusal) quotes a short piece of such text, never the whole, so that one answer
// cannot make every later request, the step log and the events carry it again.

/** Characters of someone's text a quote shows by default. */
export const QUOTED_CHARS = 60;

/**
 * `text` as a JSON string (control characters, quotes and lone surrogates escaped), cut to
 * `max` characters, saying how long it was when cut.
 *
 * @example
 * quoted('read_file');          // '"read_file"'
 * quoted('x'.repeat(100_000));  // '"xxxx…xxx…" (100000 characters)'
 */
export function quoted(text: string, max = QUOTED_CHARS): string {
  if (text.length <= max) return JSON.stringify(text);
  // Not between the halves of a surrogate pair.
  const end = /[\ud800-\udbff]/.test(text[max - 1]!) ? max - 1 : max;
  return `${JSON.stringify(`${text.slice(0, end)}…`)} (${text.length} characters)`;
}
