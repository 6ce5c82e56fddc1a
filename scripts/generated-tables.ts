// Generated tables in hand-written Markdown: each table sits between two marker comments,
// `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`, and is rendered from one of the
// project's tables; the prose around it is the author's. The docs:* scripts write them; the
// docs tests fail when a file and its tables disagree.

/**
 * `markdown` with every named table put between its markers. Throws on a table the markdown
 * has no place for (every table must be shown somewhere) or a marker without its end.
 *
 * @example
 * fs.writeFileSync(file, fillTables(fs.readFileSync(file, 'utf8'), apiTables(), 'docs/api.md'));
 */
export function fillTables(markdown: string, tables: ReadonlyMap<string, string>, file: string): string {
  let text = markdown;
  for (const [name, table] of tables) {
    const begin = `<!-- generated:${name} -->`;
    const end = `<!-- /generated:${name} -->`;
    const from = text.indexOf(begin);
    const to = text.indexOf(end);
    if (from === -1 || to < from) throw new Error(`${file} has no place for the table "${name}": add ${begin} and ${end}.`);
    text = `${text.slice(0, from + begin.length)}\n${table}\n${text.slice(to)}`;
  }
  return text;
}
