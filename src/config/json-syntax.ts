/**
 * Where text that JSON.parse refused goes wrong, without quoting it. V8's own messages quote the
 * text around the error (`Unexpected token 'l', ..."apiToken": loom_5Fz"... is not valid JSON`),
 * and in a settings or config file that text may be part of a token or a secret, on its way to
 * a log or a terminal.
 */
export function jsonSyntaxProblem(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : '';
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position !== undefined) return `not valid JSON (${lineAndColumn(text, Number(position))})`;
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lineColumn) return `not valid JSON (line ${lineColumn[1]}, column ${lineColumn[2]})`;
  if (/end of JSON input/.test(message)) return 'not valid JSON (it ends too early)';
  return 'not valid JSON';
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}
