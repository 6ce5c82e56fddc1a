// Replace in files (`POST /api/code/replace`, `/api/code/replace/apply`) through the real local
// server with the code index built: a preview per file and per match, paged by file; applying
// the edits kept (to files on disk, to open documents, saved when they were clean); and hostile
// input, every one a documented 4xx that changes nothing: regular expressions RE2 cannot run,
// replacements naming groups that are not there, stale previews, paths outside or protected.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localRoutes } from '../../src/contracts/local-routes.ts';
import { localCode } from '../../src/contracts/local-resources.ts';
import { localRouteErrors } from '../../src/local/openapi.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const FILES = {
  'src/a.ts': 'const colour = 1;\nexport const other = colour + colour;\n',
  'src/b.ts': '// the colour of it\nexport const b = 2;\n',
  'src/c.ts': 'export const c = "nothing here";\n',
  'src/mail.txt': 'ann@example and bob@example\r\nlast line: carol@example',
  'src/long.txt': `${'a'.repeat(5000)}b\n`,
  'docs/notes.md': 'colour, Colour, COLOUR\n',
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('replace in files', () => {
  let local: TestLocal;

  before(async () => {
    local = await startTestLocal({ files: FILES, codeIndex: true, settings: { apiToken: `loom_${'r'.repeat(40)}`, rateLimits: { default: 100_000 } } });
    await waitFor(async () => (await local.request('GET', '/api/code/status')).json?.index?.state === 'ready', undefined, 'the index built');
  });
  after(() => local.close());

  const preview = (body: Record<string, unknown>) => local.request('POST', '/api/code/replace', body);
  const apply = (body: unknown) => local.request('POST', '/api/code/replace/apply', body);
  const read = (file: string) => fs.readFileSync(path.join(local.workspace, file), 'utf8');
  /** The preview's files as apply takes them: path, base and the edits kept. */
  const kept = (files: { path: string; base: unknown; edits: unknown[] }[]) => ({ files: files.map(({ path, base, edits }) => ({ path, base, edits })) });

  function refused(answer: { status: number; json: any; text: string }, status: number, code: string, routePath: string) {
    assert.equal(answer.status, status, answer.text);
    assert.equal(answer.json.error.code, code, answer.text);
    const route = localRoutes.find((entry) => entry.path === routePath)!;
    assert.ok(
      localRouteErrors(route)
        .map((c): string => localCode(c))
        .includes(code),
      `${routePath} declares ${code}`,
    );
  }

  it('previews per file and per match: the line, what matched, what replaces it, the edit and its base', async () => {
    const { status, json, text } = await preview({ pattern: 'colour', wholeWord: true, replacement: 'color', case: 'sensitive' });
    assert.equal(status, 200, text);
    assert.deepEqual(
      json.files.map((file: { path: string }) => file.path),
      ['docs/notes.md', 'src/a.ts', 'src/b.ts'],
    );
    const a = json.files[1];
    assert.deepEqual(a.base, { kind: 'disk', sha256: sha256(FILES['src/a.ts']) });
    assert.equal(a.matches.length, 3);
    assert.deepEqual(a.matches[1], {
      line: 2,
      column: 22,
      endColumn: 28,
      before: 'colour',
      after: 'color',
      preview: 'export const other = colour + colour;',
      previewColumn: 1,
    });
    assert.deepEqual(a.edits[1], { range: { start: { line: 2, column: 22 }, end: { line: 2, column: 28 } }, newText: 'color' });
    assert.equal(json.matchCount, 5);
    assert.equal(json.index, 'ready');
    assert.equal(json.next, undefined);
    // Nothing changed.
    assert.equal(read('src/a.ts'), FILES['src/a.ts']);
  });

  it('pages by file: maxFiles per answer, `next` to pass as `after`', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 10; page++) {
      const { json } = await preview({ pattern: 'colour', replacement: 'x', maxFiles: 1, ...(after ? { after } : {}) });
      seen.push(...json.files.map((file: { path: string }) => file.path));
      assert.ok(json.files.length <= 1);
      after = json.next;
      if (!after) break;
    }
    assert.deepEqual(seen, ['docs/notes.md', 'src/a.ts', 'src/b.ts']);
    // A page with room for fewer matches than the next file has: that file waits for the next page.
    const small = await preview({ pattern: 'colour', replacement: 'x', case: 'insensitive', maxMatches: 4 });
    assert.deepEqual(
      small.json.files.map((file: { path: string; matches: unknown[] }) => [file.path, file.matches.length]),
      [['docs/notes.md', 3]],
    );
    assert.equal(small.json.next, 'docs/notes.md');
    // One file alone over the page: cut, and said so.
    const cut = await preview({ pattern: 'colour', replacement: 'x', case: 'insensitive', maxMatches: 2 });
    assert.equal(cut.json.files[0].matches.length, 2);
    assert.equal(cut.json.files[0].truncated, true);
  });

  it('replaces with RE2 groups: $1, ${name}, $&, $$; CRLF lines keep their ending', async () => {
    const { json, text } = await preview({ pattern: '(\\w+)@(?P<host>\\w+)', regex: true, replacement: '${host}:$1 ($&) $$', include: ['*.txt'] });
    assert.equal(json.files.length, 1, text);
    assert.deepEqual(
      json.files[0].matches.map((match: { line: number; after: string }) => [match.line, match.after]),
      [
        [1, 'example:ann (ann@example) $'],
        [1, 'example:bob (bob@example) $'],
        [2, 'example:carol (carol@example) $'],
      ],
    );
    const applied = await apply(kept(json.files));
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual(applied.json, { files: [{ path: 'src/mail.txt', to: 'disk', saved: true }], edits: 3 });
    assert.equal(read('src/mail.txt'), 'example:ann (ann@example) $ and example:bob (bob@example) $\r\nlast line: example:carol (carol@example) $');
    // Whole words wrap the pattern in a group of their own: $1 is still the pattern's first.
    const whole = await preview({ pattern: '(c)olour', regex: true, wholeWord: true, replacement: '$1olor', include: ['src/b.ts'] });
    assert.equal(whole.json.files[0].matches[0].after, 'color');
  });

  it('applies only the edits kept, to disk; the index sees the change', async () => {
    const { json } = await preview({ pattern: 'colour', replacement: 'hue', include: ['src/a.ts'] });
    const file = json.files[0];
    // The user dismissed the first match.
    const applied = await apply({ files: [{ path: file.path, base: file.base, edits: file.edits.slice(1) }] });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(read('src/a.ts'), 'const colour = 1;\nexport const other = hue + hue;\n');
    await waitFor(async () => (await local.request('GET', '/api/code/search?pattern=hue')).json.matchCount === 2, undefined, 'the index sees the replacement');
    // The same preview again: the file changed since.
    refused(await apply(kept(json.files)), 409, 'VERSION_CONFLICT', '/api/code/replace/apply');
    assert.equal(read('src/a.ts'), 'const colour = 1;\nexport const other = hue + hue;\n');
  });

  it('edits open documents: a clean one is saved, one with unsaved edits keeps them unsaved', async () => {
    fs.writeFileSync(path.join(local.workspace, 'src/d.ts'), 'export const shade = 1;\n');
    fs.writeFileSync(path.join(local.workspace, 'src/e.ts'), 'export const shade = 2;\n');
    for (const file of ['src/d.ts', 'src/e.ts']) assert.equal((await local.request('POST', '/api/editor/open', { path: file })).status, 200);
    // e.ts gets an unsaved edit.
    assert.equal((await local.request('POST', '/api/editor/insert', { path: 'src/e.ts', line: 2, column: 1, text: '// shade\n' })).status, 200);
    await waitFor(
      async () => (await preview({ pattern: 'shade', replacement: 'tint', include: ['src/d.ts', 'src/e.ts'] })).json.matchCount === 3,
      undefined,
      'both files indexed (the unsaved text too)',
    );
    const { json } = await preview({ pattern: 'shade', replacement: 'tint', include: ['src/d.ts', 'src/e.ts'] });
    assert.deepEqual(
      json.files.map((file: { path: string; base: { kind: string } }) => [file.path, file.base.kind]),
      [
        ['src/d.ts', 'document'],
        ['src/e.ts', 'document'],
      ],
    );
    const applied = await apply(kept(json.files));
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual(
      applied.json.files.map((file: { path: string; to: string; saved: boolean }) => [file.path, file.to, file.saved]),
      [
        ['src/d.ts', 'document', true],
        ['src/e.ts', 'document', false],
      ],
    );
    assert.equal(read('src/d.ts'), 'export const tint = 1;\n');
    assert.equal(read('src/e.ts'), 'export const shade = 2;\n', 'the unsaved document is not saved');
    assert.equal((await local.request('GET', '/api/editor/text?path=src/e.ts')).json.text, 'export const tint = 2;\n// tint\n');
    const documents = (await local.request('GET', '/api/editor/documents')).json.documents;
    assert.equal(documents.find((document: { path: string }) => document.path === 'src/d.ts').dirty, false);
  });

  it('refuses what RE2 cannot run, and runs what would make a backtracking engine hang', async () => {
    for (const pattern of ['(a)\\1', '(?=a)b', '(?<=a)b', '[unclosed']) {
      refused(await preview({ pattern, regex: true, replacement: 'x' }), 400, 'VALIDATION_ERROR', '/api/code/replace');
    }
    // (a+)+$ over 5,000 a's then a b: exponential for a backtracking engine, linear for RE2.
    const catastrophic = await preview({ pattern: '(a+)+$', regex: true, replacement: 'x', include: ['src/long.txt'] });
    assert.equal(catastrophic.status, 200, catastrophic.text);
    assert.equal(catastrophic.json.matchCount, 0);
    const ok = await preview({ pattern: '(a+)+b$', regex: true, replacement: '[$1]', include: ['src/long.txt'] });
    assert.equal(ok.json.files[0].matches[0].after, `[${'a'.repeat(5000)}]`);
  });

  it('refuses hostile input with 4xx and changes nothing', async () => {
    const bad: Record<string, unknown>[] = [
      { pattern: '(\\w+)', regex: true, replacement: '$2' },
      { pattern: '(\\w+)', regex: true, replacement: '${nope}' },
      { pattern: 'a\nb', replacement: 'x' },
      { pattern: '', replacement: 'x' },
      { pattern: 'x'.repeat(1001), replacement: 'x' },
      { pattern: 'a', replacement: 'x'.repeat(1001) },
      { pattern: 'a', replacement: 'x', maxFiles: 0 },
      { pattern: 'a', replacement: 'x', maxMatches: 10_001 },
      { pattern: 'a', replacement: 'x', include: Array.from({ length: 101 }, () => '*.ts') },
      { pattern: 'a', replacement: 'x', surprise: true },
      { pattern: 'a' },
    ];
    for (const body of bad) refused(await preview(body), 400, 'VALIDATION_ERROR', '/api/code/replace');
    // A replacement without a regex takes $ literally.
    const literal = await preview({ pattern: 'nothing here', replacement: '$1 $$', include: ['src/c.ts'] });
    assert.equal(literal.json.files[0].matches[0].after, '$1 $$');

    const c = FILES['src/c.ts'];
    const range = { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } };
    const edit = (file: string, text = c) => ({ files: [{ path: file, base: { kind: 'disk', sha256: sha256(text) }, edits: [{ range, newText: 'x' }] }] });
    refused(await apply(edit('../outside.ts')), 403, 'FORBIDDEN_PATH', '/api/code/replace/apply');
    refused(await apply(edit('/etc/passwd')), 403, 'FORBIDDEN_PATH', '/api/code/replace/apply');
    fs.mkdirSync(path.join(local.workspace, '.loom'), { recursive: true });
    fs.writeFileSync(path.join(local.workspace, '.loom', 'notes.txt'), 'colour\n');
    const loom = await apply(edit('.loom/notes.txt', 'colour\n'));
    refused(loom, 403, 'PROTECTED_PATH', '/api/code/replace/apply');
    assert.equal(fs.readFileSync(path.join(local.workspace, '.loom', 'notes.txt'), 'utf8'), 'colour\n');
    refused(await apply(edit('src/c.ts', 'stale')), 409, 'VERSION_CONFLICT', '/api/code/replace/apply');
    const overlapping = edit('src/c.ts');
    overlapping.files[0]!.edits.push({ range, newText: 'y' });
    refused(await apply(overlapping), 400, 'OUT_OF_RANGE', '/api/code/replace/apply');
    refused(await apply({ files: [{ path: 'src/c.ts', base: { kind: 'disk' }, edits: [] }] }), 400, 'BAD_REQUEST', '/api/code/replace/apply');
    assert.equal(read('src/c.ts'), c);
    // A protected file is never in a preview.
    const previewed = await preview({ pattern: 'colour', replacement: 'x' });
    assert.ok(!previewed.json.files.some((file: { path: string }) => file.path.startsWith('.loom/')));
  });
});
