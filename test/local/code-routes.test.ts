// The code intelligence routes (`/api/code/…`) through the real local server (startTestLocal,
// production wiring), with the code index built in the background and no language server (they
// are off here, so definitions and references come from the index, marked so; the language
// servers' own answers are in code-language-routes.test.ts). Each route's happy path, then its
// hostile inputs: every one a documented 4xx that changes nothing.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localRoutes } from '../../src/contracts/local-routes.ts';
import type { LoomEvent } from '../../src/core/events/bus.ts';
import { localRouteErrors } from '../../src/local/openapi.ts';
import { localCode } from '../../src/contracts/local-resources.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const FILES = {
  'src/math.ts':
    '/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport class Meter {\n  total = 0;\n  record(value: number): void {\n    this.total = add(this.total, value);\n  }\n}\n',
  'src/app.ts': "import { add } from './math';\n\nexport const sum: number = add(1, 2);\n",
  'src/parse_url.py': 'def parse_url(text):\n    """Splits a URL."""\n    return text.split("/")\n',
  'README.md': '# Demo\nAdd numbers with add().\n',
  'logo.bin': Buffer.from([0, 1, 2, 3, 0, 255]).toString('latin1'),
};

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('code intelligence routes (the index, no language server)', () => {
  let local: TestLocal;
  const events: LoomEvent[] = [];

  before(async () => {
    local = await startTestLocal({ files: FILES, codeIndex: true, settings: { apiToken: `loom_${'c'.repeat(40)}`, rateLimits: { default: 100_000 } } });
    local.events.subscribe((event) => void events.push(event));
    await waitFor(async () => (await local.request('GET', '/api/code/status')).json?.index?.state === 'ready', undefined, 'the index built');
  });
  after(() => local.close());

  /** A GET with a query string built from `query` (arrays repeat the parameter). */
  async function get(route: string, query: Record<string, string | number | boolean | string[]> = {}) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) for (const one of Array.isArray(value) ? value : [value]) search.append(key, String(one));
    return local.request('GET', `${route}?${search}`);
  }

  /** A refusal: the status and code, and the code is one the route declares. */
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

  it('tells the index status: state, counts, skipped files with reasons, the language servers', async () => {
    const { status, json } = await get('/api/code/status');
    assert.equal(status, 200);
    assert.equal(json.index.state, 'ready');
    assert.equal(json.index.parsed, 3);
    assert.ok(json.index.files >= 4);
    assert.ok(json.index.lastBuild.durationMs >= 0);
    const binary = json.skipped.find((entry: { path: string }) => entry.path === 'logo.bin');
    assert.deepEqual(binary, { path: 'logo.bin', reason: 'binary', why: 'binary (a NUL byte in its first 8 KB)' });
    assert.deepEqual(json.languageServers, [], 'language servers are off here');
    assert.deepEqual((await get('/api/code/status', { limit: 0 })).json.skipped, []);
    refused(await get('/api/code/status', { limit: -1 }), 400, 'VALIDATION_ERROR', '/api/code/status');
  });

  it("lists every indexed file's path in path order, for quick open in the page; a file created since is listed", async () => {
    const listed = await get('/api/code/paths');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.json, { paths: Object.keys(FILES).sort() });
    fs.writeFileSync(path.join(local.workspace, 'src/added.ts'), 'export const added = 1;\n');
    await waitFor(async () => (await get('/api/code/paths')).json.paths.includes('src/added.ts'), undefined, 'the new file listed');
    fs.rmSync(path.join(local.workspace, 'src/added.ts'));
    await waitFor(async () => !(await get('/api/code/paths')).json.paths.includes('src/added.ts'), undefined, 'the removed file gone');
  });

  it('finds files by fuzzy path, and symbols by fuzzy name, workspace-wide and per file', async () => {
    const files = await get('/api/code/files', { query: 'smath' });
    assert.equal(files.status, 200);
    assert.equal(files.json.files[0].path, 'src/math.ts');
    assert.equal(files.json.files[0].language, 'typescript');

    const symbols = await get('/api/code/symbols', { query: 'metr' });
    assert.equal(symbols.status, 200);
    const meter = symbols.json.symbols[0];
    assert.equal(meter.name, 'Meter');
    assert.equal(meter.kind, 'class');
    assert.equal(meter.path, 'src/math.ts');
    assert.deepEqual(meter.nameRange, { start: { line: 6, column: 14 }, end: { line: 6, column: 19 } });

    const add = (await get('/api/code/symbols', { query: 'add', kinds: ['function'] })).json.symbols[0];
    assert.equal(add.doc, 'Adds two numbers.');
    assert.equal(add.signature, 'export function add(a: number, b: number): number {');

    const outline = await get('/api/code/symbols', { path: 'src/math.ts' });
    assert.deepEqual(
      outline.json.symbols.map((symbol: { name: string }) => symbol.name),
      ['add', 'Meter', 'total', 'record'],
    );
    refused(await get('/api/code/symbols'), 400, 'VALIDATION_ERROR', '/api/code/symbols');
    refused(await get('/api/code/symbols', { query: 'add', kinds: ['gadget'] }), 400, 'VALIDATION_ERROR', '/api/code/symbols');
    refused(await get('/api/code/symbols', { query: 'x'.repeat(1001) }), 400, 'VALIDATION_ERROR', '/api/code/symbols');
    assert.deepEqual((await get('/api/code/symbols', { path: '../../etc/passwd' })).json, { symbols: [] }, 'the index holds no such file');
  });

  it('searches text, literal or regular expression, bounded', async () => {
    const literal = await get('/api/code/search', { pattern: 'add(' });
    assert.equal(literal.status, 200, literal.text);
    assert.deepEqual(
      literal.json.matches.map((match: { path: string; line: number }) => `${match.path}:${match.line}`),
      ['README.md:2', 'src/app.ts:3', 'src/math.ts:2', 'src/math.ts:9'],
    );
    assert.deepEqual(literal.json.matches[1].matches, [{ column: 28, endColumn: 32 }]);
    assert.equal(literal.json.truncated, undefined);

    const regex = await get('/api/code/search', { pattern: 'def \\w+\\(', regex: true, include: ['*.py'] });
    assert.deepEqual(
      regex.json.matches.map((match: { path: string }) => match.path),
      ['src/parse_url.py'],
    );
    const bounded = await get('/api/code/search', { pattern: 'a', maxMatches: 1 });
    assert.equal(bounded.json.matches.length, 1);
    assert.equal(bounded.json.truncated, 'matches');

    refused(await get('/api/code/search', { pattern: '(', regex: true }), 400, 'VALIDATION_ERROR', '/api/code/search');
    refused(await get('/api/code/search', { pattern: '(?=x)', regex: true }), 400, 'VALIDATION_ERROR', '/api/code/search');
    refused(await get('/api/code/search', { pattern: '' }), 400, 'VALIDATION_ERROR', '/api/code/search');
    refused(await get('/api/code/search', { pattern: 'a', maxMatches: 10_001 }), 400, 'VALIDATION_ERROR', '/api/code/search');
    refused(await get('/api/code/search', { pattern: 'a', case: 'loud' }), 400, 'VALIDATION_ERROR', '/api/code/search');
    refused(await get('/api/code/search', { pattern: 'a', include: ['x'.repeat(1001)] }), 400, 'VALIDATION_ERROR', '/api/code/search');
  });

  it('ranks chunks by BM25 with code-aware tokens', async () => {
    const ranked = await get('/api/code/ranked', { query: 'parse url' });
    assert.equal(ranked.status, 200);
    assert.equal(ranked.json.hits[0].path, 'src/parse_url.py');
    assert.deepEqual(ranked.json.hits[0].symbols, ['parse_url']);
    refused(await get('/api/code/ranked', { query: '' }), 400, 'VALIDATION_ERROR', '/api/code/ranked');
  });

  it('locates the files a task changes, and maps the repository within a budget', async () => {
    const located = await local.request('POST', '/api/code/locate', { task: 'Meter.record should round the value', limit: 2 });
    assert.equal(located.status, 200, located.text);
    assert.equal(located.json.files[0].path, 'src/math.ts');
    assert.ok(located.json.files[0].reasons.length > 0);
    assert.ok(located.json.files.length <= 2);

    const map = await local.request('POST', '/api/code/map', { task: 'add numbers', focus: ['./src/app.ts'], tokens: 60 });
    assert.equal(map.status, 200, map.text);
    assert.ok(map.json.tokens <= 60);
    assert.equal(map.json.files[0], 'src/app.ts');
    assert.match(map.json.text, /^src\/app\.ts\n/);

    refused(await local.request('POST', '/api/code/locate', { task: '' }), 400, 'VALIDATION_ERROR', '/api/code/locate');
    refused(await local.request('POST', '/api/code/locate', { task: 'x', extra: 1 }), 400, 'VALIDATION_ERROR', '/api/code/locate');
    refused(await local.request('POST', '/api/code/locate', {}), 400, 'VALIDATION_ERROR', '/api/code/locate');
    refused(await local.request('POST', '/api/code/map', { tokens: 0 }), 400, 'VALIDATION_ERROR', '/api/code/map');
    refused(await local.request('POST', '/api/code/map', { focus: 'src/app.ts' }), 400, 'VALIDATION_ERROR', '/api/code/map');
    const empty = await local.request('POST', '/api/code/map', {});
    assert.equal(empty.status, 200, 'every field is optional');
  });

  it('answers definition and references from the index where no language server runs, marked so', async () => {
    const definition = await get('/api/code/definition', { path: 'src/app.ts', line: 3, column: 28 });
    assert.equal(definition.status, 200, definition.text);
    assert.equal(definition.json.source, 'index', definition.text);
    assert.deepEqual(
      definition.json.locations.map((location: { path: string; range: unknown }) => [location.path, location.range]),
      [['src/math.ts', { start: { line: 2, column: 17 }, end: { line: 2, column: 20 } }]],
    );
    const references = await get('/api/code/references', { path: 'src/math.ts', line: 2, column: 17 });
    assert.equal(references.json.source, 'index', references.text);
    const places = references.json.locations.map(
      (location: { path: string; range: { start: { line: number } } }) => `${location.path}:${location.range.start.line}`,
    );
    assert.ok(places.includes('src/app.ts:3') && places.includes('src/math.ts:9'), places.join(' '));
  });

  it('refuses positions outside the file, paths outside the workspace, and what no server serves', async () => {
    refused(await get('/api/code/definition', { path: 'src/app.ts', line: 99, column: 1 }), 400, 'OUT_OF_RANGE', '/api/code/definition');
    refused(await get('/api/code/definition', { path: 'src/app.ts', line: 1, column: 500 }), 400, 'OUT_OF_RANGE', '/api/code/definition');
    refused(await get('/api/code/definition', { path: 'src/app.ts', line: 0, column: 1 }), 400, 'VALIDATION_ERROR', '/api/code/definition');
    refused(await get('/api/code/definition', { path: 'src/app.ts', line: 1 }), 400, 'VALIDATION_ERROR', '/api/code/definition');
    refused(await get('/api/code/references', { path: '../outside.ts', line: 1, column: 1 }), 403, 'FORBIDDEN_PATH', '/api/code/references');
    refused(await get('/api/code/references', { path: 'src/none.ts', line: 1, column: 1 }), 404, 'NOT_FOUND', '/api/code/references');
    refused(await get('/api/code/definition', { path: 'src', line: 1, column: 1 }), 400, 'NOT_A_FILE', '/api/code/definition');
    refused(await get('/api/code/hover', { path: 'src/app.ts', line: 1, column: 1 }), 503, 'LANGUAGE_SERVER_UNAVAILABLE', '/api/code/hover');
    refused(await get('/api/code/diagnostics', { path: 'src/app.ts' }), 503, 'LANGUAGE_SERVER_UNAVAILABLE', '/api/code/diagnostics');
    refused(
      await local.request('POST', '/api/code/rename', { path: 'src/math.ts', line: 2, column: 17, newName: 'sum2' }),
      503,
      'LANGUAGE_SERVER_UNAVAILABLE',
      '/api/code/rename',
    );
    refused(
      await local.request('POST', '/api/code/rename', { path: 'src/math.ts', line: 2, column: 17, newName: '' }),
      400,
      'VALIDATION_ERROR',
      '/api/code/rename',
    );
    const last = await get('/api/code/diagnostics', { path: 'src/app.ts', fresh: false });
    assert.equal(last.status, 200);
    assert.deepEqual(last.json, { path: 'src/app.ts', server: '', diagnostics: [], omitted: 0 });
    const problems = await local.request('GET', '/api/code/problems');
    assert.deepEqual(problems.json, { files: [], counts: { error: 0, warning: 0, information: 0, hint: 0 } });
  });

  it('applies a preview to an open document (unsaved, file:change) and to a file on disk, all or nothing', async () => {
    const app = FILES['src/app.ts'];
    const math = FILES['src/math.ts'];
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'src/app.ts' })).status, 200);
    const { version } = (await local.request('GET', '/api/editor/text?path=src/app.ts')).json;
    const range = (line: number, from: number, to: number) => ({ start: { line, column: from }, end: { line, column: to } });
    const preview = {
      files: [
        {
          path: 'src/app.ts',
          base: { kind: 'document', version },
          edits: [
            { range: range(1, 10, 13), newText: 'plus' },
            { range: range(3, 28, 31), newText: 'plus' },
          ],
        },
        { path: 'src/math.ts', base: { kind: 'disk', sha256: sha256(math) }, edits: [{ range: range(2, 17, 20), newText: 'plus' }], diff: 'ignored' },
      ],
    };
    const before = events.length;

    // Hostile variants first: each refused whole, nothing changed.
    const stale = structuredClone(preview);
    stale.files[1]!.base = { kind: 'disk', sha256: sha256('other') };
    refused(await local.request('POST', '/api/code/rename/apply', stale), 409, 'VERSION_CONFLICT', '/api/code/rename/apply');
    const overlapping = structuredClone(preview);
    overlapping.files[1]!.edits.push({ range: range(2, 18, 19), newText: 'x' });
    refused(await local.request('POST', '/api/code/rename/apply', overlapping), 400, 'OUT_OF_RANGE', '/api/code/rename/apply');
    const pastTheEnd = structuredClone(preview);
    pastTheEnd.files[1]!.edits = [{ range: range(40, 1, 2), newText: 'x' }];
    refused(await local.request('POST', '/api/code/rename/apply', pastTheEnd), 400, 'OUT_OF_RANGE', '/api/code/rename/apply');
    const badDocumentEdit = structuredClone(preview);
    badDocumentEdit.files.reverse()[1]!.edits = [{ range: range(1, 90, 91), newText: 'x' }];
    refused(await local.request('POST', '/api/code/rename/apply', badDocumentEdit), 400, 'OUT_OF_RANGE', '/api/code/rename/apply');
    const twice = { files: [preview.files[1], preview.files[1]] };
    refused(await local.request('POST', '/api/code/rename/apply', twice), 400, 'BAD_REQUEST', '/api/code/rename/apply');
    const mixedBase = structuredClone(preview);
    mixedBase.files[0]!.base = { kind: 'document', sha256: sha256(app) } as never;
    refused(await local.request('POST', '/api/code/rename/apply', mixedBase), 400, 'BAD_REQUEST', '/api/code/rename/apply');
    const protectedFile = { files: [{ path: '.git/config', base: { kind: 'disk', sha256: sha256('') }, edits: [] }] };
    const refusal = await local.request('POST', '/api/code/rename/apply', protectedFile);
    assert.ok([403, 404].includes(refusal.status), refusal.text);
    refused(
      await local.request('POST', '/api/code/rename/apply', { files: [{ ...preview.files[1], path: '../x.ts' }] }),
      403,
      'FORBIDDEN_PATH',
      '/api/code/rename/apply',
    );
    assert.equal((await local.request('GET', '/api/editor/text?path=src/app.ts')).json.text, app);
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/math.ts'), 'utf8'), math);

    const applied = await local.request('POST', '/api/code/rename/apply', preview);
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual(applied.json.files, [
      { path: 'src/app.ts', to: 'document', version: version + 2 },
      { path: 'src/math.ts', to: 'disk' },
    ]);
    const document = (await local.request('GET', '/api/editor/text?path=src/app.ts')).json;
    assert.equal(document.text, "import { plus } from './math';\n\nexport const sum: number = plus(1, 2);\n");
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/app.ts'), 'utf8'), app, 'the document is not saved');
    assert.match(fs.readFileSync(path.join(local.workspace, 'src/math.ts'), 'utf8'), /export function plus\(/);
    assert.ok(events.slice(before).some((event) => event.type === 'file:change' && event.data['path'] === 'src/app.ts'));
    // Applying the same preview again: the document and the file moved on.
    refused(await local.request('POST', '/api/code/rename/apply', preview), 409, 'VERSION_CONFLICT', '/api/code/rename/apply');
  });
});
