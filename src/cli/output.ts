// Everything the CLI prints goes through here. Much of it came from outside: feedback anyone may
// send, names a code host gives, text a model wrote, messages a server answered. A terminal obeys
// control characters in what it is given: ESC and CSI (U+009B on some terminals) sequences clear
// the screen, move the cursor to rewrite earlier lines, or write the clipboard (OSC 52); BEL
// rings; a lone CR writes over the line; bidi overrides make text read differently from what it
// is. Such characters are printed escaped instead (`\x1b`, `\u202e`); JSON stays valid JSON with
// them as `\u` escapes.

/** C0 controls but tab and newline, DEL, C1 controls; a CR is let through only before a newline. */
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/g;
/** The same, with tab, newline and every CR: for a value inside one line (a name, a subject). */
const LINE_CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/** Characters that reorder or break text without being controls: bidi marks, embeddings, overrides and isolates; line and paragraph separators. */
const REORDERING = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
/** What JSON.stringify leaves raw that a terminal would act on (it escapes C0 itself). */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

function hexEscape(character: string): string {
  return `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

function unicodeEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Text made safe to print: tab and newline kept (multi-line text, our own layout), the rest escaped. */
export function forTerminal(text: string): string {
  return text.replace(TERMINAL_CONTROLS, hexEscape).replace(REORDERING, unicodeEscape);
}

/** A value shown inside a line (a name, a subject, an id): newlines, CRs and tabs escaped too, so it cannot fake a line. */
export function oneLine(text: string): string {
  return text.replace(LINE_CONTROLS, hexEscape).replace(REORDERING, unicodeEscape);
}

/** JSON with every character a terminal would act on as a `\u` escape; parses back to the same value. */
export function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, unicodeEscape);
}

/** Prints to stdout, escaped. */
export function print(text: string): void {
  process.stdout.write(forTerminal(text));
}

/** Prints to stderr, escaped. */
export function printErr(text: string): void {
  process.stderr.write(forTerminal(text));
}

/** Prints a value as JSON (indented by `indent` spaces, 0 for one line) and a newline. */
export function printJson(value: unknown, indent = 2): void {
  print(`${toJson(value, indent)}\n`);
}

/** One `loom: …` line on stderr: a failure or a notice, in one line whatever the message holds. */
export function printProblem(message: string): void {
  printErr(`loom: ${oneLine(message)}\n`);
}

/** One `loom: warning: …` line on stderr (e.g. a folder that was open to other users and was tightened). */
export function printWarning(message: string): void {
  printProblem(`warning: ${message}`);
}

/**
 * Rows as aligned columns, two spaces apart, the last column unpadded; each cell is escaped
 * (oneLine) before the columns are measured, since cells often hold names from outside.
 *
 * @example formatTable([['ID', 'NAME'], ['1', 'ada']]) // 'ID  NAME\n1   ada'
 */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const cells = rows.map((row) => row.map(oneLine));
  const widths = (cells[0] ?? []).map((_, column) => Math.max(...cells.map((row) => row[column]?.length ?? 0)));
  return cells.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n');
}

/** Binary units with one decimal: 1536 → "1.5 KB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[unit]}`;
}
