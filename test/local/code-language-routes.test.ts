// The code intelligence routes that language servers answer, through the real local server and
// the real bundled typescript-language-server (restricted: the workspace is not trusted, as in
// any fresh clone): definition, references, hover, a broken file's diagnostics and the
// problems list, a rename previewed and applied; hostile input to them. Then the trust rule at
// the routes: a server named in settings.json runs workspace code, so it serves nothing until the
// workspace is trusted (the routes say why), and the index answers definitions meanwhile.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const FILES = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', noEmit: true } }),
  'src/math.ts': '/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'src/app.ts': "import { add } from './math';\n\nexport const sum: number = add(1, 2);\n",
};

const SETTINGS = { apiToken: `loom_${'l'.repeat(40)}`, rateLimits: { default: 100_000 } };

describe('code intelligence routes answered by a language server', () => {
  let local: TestLocal;

  before(async () => {
    local = await startTestLocal({ files: FILES, settings: SETTINGS, languageServers: { enabled: 'on', requestTimeoutMs: 60_000 }, codeIndex: true });
  });
  after(() => local.close());

  const get = (route: string) => local.request('GET', route);

  it('goes to a definition, finds references and hovers, from the TypeScript server', async () => {
    const definition = await get('/api/code/definition?path=src/app.ts&line=3&column=28');
    assert.equal(definition.status, 200, definition.text);
    assert.equal(definition.json.source, 'language-server');
    assert.equal(definition.json.server, 'typescript');
    assert.deepEqual(
      definition.json.locations.map((location: { path: string; range: unknown }) => [location.path, location.range]),
      [['src/math.ts', { start: { line: 2, column: 17 }, end: { line: 2, column: 20 } }]],
    );

    const references = await get('/api/code/references?path=src/math.ts&line=2&column=17&includeDeclaration=false');
    assert.equal(references.status, 200, references.text);
    assert.deepEqual(
      references.json.locations.map((location: { path: string; range: { start: { line: number } } }) => `${location.path}:${location.range.start.line}`).sort(),
      ['src/app.ts:1', 'src/app.ts:3'],
    );

    const hover = await get('/api/code/hover?path=src/app.ts&line=3&column=28');
    assert.equal(hover.status, 200, hover.text);
    assert.match(hover.json.markdown, /add\(a: number, b: number\): number/);
    assert.match(hover.json.markdown, /Adds two numbers\./);
    const nothing = await get('/api/code/hover?path=src/app.ts&line=2&column=1');
    assert.deepEqual(nothing.json, { markdown: null });
  });

  it("serves a broken file's diagnostics for its text now, and lists the workspace's problems", async () => {
    local.write('src/app.ts', "import { add } from './math';\n\nexport const sum: string = add(1, 2);\n");
    const diagnostics = await get('/api/code/diagnostics?path=src/app.ts');
    assert.equal(diagnostics.status, 200, diagnostics.text);
    assert.equal(diagnostics.json.current, true);
    assert.equal(diagnostics.json.server, 'typescript');
    assert.deepEqual(
      diagnostics.json.diagnostics.map((d: { severity: string; message: string; range: unknown }) => [d.severity, d.message, d.range]),
      [['error', "Type 'number' is not assignable to type 'string'.", { start: { line: 3, column: 14 }, end: { line: 3, column: 17 } }]],
    );
    const problems = await get('/api/code/problems');
    assert.equal(problems.json.counts.error, 1);
    assert.equal(problems.json.files[0].path, 'src/app.ts');
    const last = await get('/api/code/diagnostics?path=src/app.ts&fresh=false');
    assert.equal(last.json.diagnostics.length, 1);
    assert.equal(last.json.current, undefined);
    local.write('src/app.ts', FILES['src/app.ts']);
    assert.deepEqual((await get('/api/code/diagnostics?path=src/app.ts')).json.diagnostics, []);
  });

  it('previews a rename as diffs, changing nothing, then applies it through the documents', async () => {
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'src/app.ts' })).status, 200);
    const preview = await local.request('POST', '/api/code/rename', { path: 'src/math.ts', line: 2, column: 17, newName: 'plus' });
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(
      preview.json.files.map((file: { path: string; base: { kind: string } }) => [file.path, file.base.kind]),
      [
        ['src/app.ts', 'document'],
        ['src/math.ts', 'disk'],
      ],
    );
    assert.match(preview.json.files[1].diff, /^-export function add\(a: number, b: number\): number \{$/m);
    assert.match(preview.json.files[1].diff, /^\+export function plus\(a: number, b: number\): number \{$/m);
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/math.ts'), 'utf8'), FILES['src/math.ts'], 'a preview changes nothing');

    const applied = await local.request('POST', '/api/code/rename/apply', preview.json);
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual(
      applied.json.files.map((file: { path: string; to: string }) => [file.path, file.to]),
      [
        ['src/app.ts', 'document'],
        ['src/math.ts', 'disk'],
      ],
    );
    assert.equal((await get('/api/editor/text?path=src/app.ts')).json.text, "import { plus } from './math';\n\nexport const sum: number = plus(1, 2);\n");
    assert.match(fs.readFileSync(path.join(local.workspace, 'src/math.ts'), 'utf8'), /export function plus\(/);
    const again = await local.request('POST', '/api/code/rename/apply', preview.json);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.json.error.code, 'VERSION_CONFLICT');
  });

  it('refuses hostile input with a 4xx, never a 5xx', async () => {
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/api/code/rename', { path: 'src/app.ts', line: 2, column: 1, newName: 'x' }, 400, 'BAD_REQUEST'],
      ['POST', '/api/code/rename', { path: 'src/app.ts', line: 1, column: 10, newName: 'a\nb' }, 400, 'BAD_REQUEST'],
      ['POST', '/api/code/rename', { path: 'src/app.ts', line: 1, column: 999, newName: 'x' }, 400, 'OUT_OF_RANGE'],
      ['POST', '/api/code/rename', { path: 'src/none.ts', line: 1, column: 1, newName: 'x' }, 404, 'NOT_FOUND'],
      ['POST', '/api/code/rename', { path: 'src/app.ts', line: 1, column: 10, newName: 'x', apply: true }, 400, 'VALIDATION_ERROR'],
      ['GET', '/api/code/hover?path=src/app.ts&line=1&column=-1', undefined, 400, 'VALIDATION_ERROR'],
      ['GET', '/api/code/hover?path=%2Fetc%2Fpasswd&line=1&column=1', undefined, 403, 'FORBIDDEN_PATH'],
      ['GET', '/api/code/diagnostics?path=src', undefined, 400, 'NOT_A_FILE'],
      ['GET', '/api/code/diagnostics?path=tsconfig.json&fresh=yes', undefined, 400, 'VALIDATION_ERROR'],
    ];
    for (const [method, route, body, status, code] of cases) {
      const answer = await local.request(method, route, body);
      assert.equal(answer.status, status, `${method} ${route}: ${answer.text}`);
      assert.equal(answer.json.error.code, code, `${method} ${route}: ${answer.text}`);
    }
  });
});

describe('the trust rule at the code routes', () => {
  it('serves nothing from a server that runs workspace code until the workspace is trusted, and says why', async (t) => {
    const fake = fileURLToPath(new URL('../support/fake-lsp-server.mjs', import.meta.url));
    const local = await startTestLocal({
      files: { 'build.rb': 'hello\n', 'lib.rb': 'def greet\nend\ngreet\n' },
      settings: { ...SETTINGS, languageServers: { ruby: { command: process.execPath, args: [fake] } } },
      languageServers: { enabled: 'on' },
    });
    t.after(() => local.close());
    const hover = await local.request('GET', '/api/code/hover?path=build.rb&line=1&column=1');
    assert.equal(hover.status, 503, hover.text);
    assert.equal(hover.json.error.code, 'LANGUAGE_SERVER_UNAVAILABLE');
    assert.match(hover.json.error.message, /runs only in a trusted workspace/);
    const status = await local.request('GET', '/api/code/status');
    const ruby = status.json.languageServers.find((server: { server: string }) => server.server === 'ruby');
    assert.equal(ruby.state, 'unavailable');
    assert.match(ruby.reason, /trusted/);
    // Definitions come from the index meanwhile, marked so (the index is built on the spot here).
    await local.code.refresh();
    const definition = await local.request('GET', '/api/code/definition?path=lib.rb&line=3&column=1');
    assert.equal(definition.status, 200, definition.text);
    assert.equal(definition.json.source, 'index');

    // Trusting the workspace is the user's call (POST /api/workspace/trust, never an MCP tool).
    assert.equal((await local.request('POST', '/api/workspace/trust', { trusted: true })).status, 200);
    await waitFor(async () => (await local.request('GET', '/api/code/hover?path=build.rb&line=1&column=1')).status === 200, undefined, 'the trusted server');
    const trusted = await local.request('GET', '/api/code/hover?path=build.rb&line=1&column=1');
    assert.deepEqual(trusted.json, { markdown: '```\nhello\n```' });
  });
});
