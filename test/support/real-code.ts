// Real code that is not Loom's, for tests of the builtin model in a workspace of realistic size
// (a model that learned three lines knows little; one that learned a package knows its idioms).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { positions } from '../../bench/completion/support-metrics.ts';

const MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** Copies a package's JavaScript into `dir/<target>` (sorted, up to `maxBytes`); returns the relative paths. */
export function copyRealCode(dir: string, options: { from?: string; target?: string; maxBytes?: number } = {}): string[] {
  const from = path.join(MODULES, options.from ?? 'kysely/dist/esm');
  const target = options.target ?? 'vendor';
  const maxBytes = options.maxBytes ?? 400 * 1024;
  const copied: string[] = [];
  let bytes = 0;
  const files = fs
    .readdirSync(from, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) {
    if (bytes >= maxBytes) break;
    const text = fs.readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n');
    const relative = path.join(target, path.relative(from, file)).split(path.sep).join('/');
    fs.mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    fs.writeFileSync(path.join(dir, relative), text);
    copied.push(relative);
    bytes += text.length;
  }
  return copied;
}

export interface LineCursor {
  /** The line up to the cursor (after its first token). */
  typed: string;
  /** The true rest of the line. */
  rest: string;
  /** The file as it is while the line is being typed (the rest of this line not there yet), split at the cursor. */
  prefix: string;
  suffix: string;
  context: string;
}

/**
 * Cursors after the first token of each line with something after it, placed by the quality
 * benchmark's protocol (bench/completion/support-metrics.ts).
 */
export function lineCursors(text: string): LineCursor[] {
  return positions(text)
    .filter((position) => position.truth.trim() !== '')
    .map(({ cursor, prefix, suffix, truth }) => ({
      typed: prefix.slice(prefix.lastIndexOf('\n', cursor - 1) + 1),
      rest: truth,
      prefix,
      suffix,
      context: prefix + suffix,
    }));
}

/** How often a completer suggests, and how often what it suggests starts the true rest of the line. */
export async function scoreCompletions(
  cursors: LineCursor[],
  complete: (cursor: LineCursor) => Promise<string>,
): Promise<{ triggered: number; precision: number; meanLength: number }> {
  let suggested = 0;
  let right = 0;
  let length = 0;
  for (const cursor of cursors) {
    const completion = (await complete(cursor)).trimEnd();
    if (!completion) continue;
    suggested++;
    if (cursor.rest.startsWith(completion)) {
      right++;
      length += completion.length;
    }
  }
  return { triggered: suggested / cursors.length, precision: suggested ? right / suggested : 1, meanLength: right ? length / right : 0 };
}
