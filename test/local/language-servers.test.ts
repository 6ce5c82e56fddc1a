// Code intelligence through the real local server (startTestLocal, production wiring) and the
// real bundled servers, typescript-language-server and pyright: diagnostics of the text the user
// sees (unsaved edits included) and their clearing, as diagnostics:change events and as the
// problems list; definition and references across files; hover; document symbols; a rename
// previewed as diffs and applied through the editor's documents. The workspace is not trusted,
// so both servers run restricted (docs/code-intelligence.md), as in any fresh clone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { LoomEvent } from '../../src/core/events/bus.ts';
import { LoomError } from '../../src/core/errors.ts';
import { WorkspaceTrust } from '../../src/extensions/trust.ts';
import { writeSettings } from '../../src/local/settings.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const FILES = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', noEmit: true } }),
  'src/math.ts':
    'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport class Meter {\n  total = 0;\n  record(value: number): void {\n    this.total = add(this.total, value);\n  }\n}\n',
  'src/app.ts': "import { add } from './math';\n\nexport const sum: number = add(1, 2);\n",
  // A line with characters outside the BMP before the name: columns count UTF-16 code units.
  'src/emoji.ts': "import { add } from './math';\nconst label = '😀😀'; export const three = add(1, 2);\n",
  'src/broken.ts': "export const count: number = 'three';\n",
  'tool.py': 'def double(x: int) -> int:\n    return x * 2\n\nresult: int = double(4)\n',
};

describe('language servers through the local server', () => {
  let local: TestLocal;
  const events: LoomEvent[] = [];

  before(async () => {
    local = await startTestLocal({ files: FILES, languageServers: { enabled: 'on', requestTimeoutMs: 60_000 }, codeIndex: true });
    local.events.subscribe((event) => void events.push(event));
  });
  after(() => local.close());

  it('reports a broken TypeScript file, and clears it once fixed in the editor (unsaved)', async () => {
    const broken = await local.languages.currentDiagnostics('src/broken.ts');
    assert.equal(broken.current, true);
    assert.equal(broken.server, 'typescript');
    assert.deepEqual(
      broken.diagnostics.map((d) => [d.severity, d.message, d.range]),
      [['error', "Type 'string' is not assignable to type 'number'.", { start: { line: 1, column: 14 }, end: { line: 1, column: 19 } }]],
    );
    assert.equal(local.languages.problems().counts.error, 1);
    await waitFor(
      () => events.some((event) => event.type === 'diagnostics:change' && event.data['path'] === 'src/broken.ts'),
      undefined,
      'the diagnostics:change event',
    );
    const announced = events.find((event) => event.type === 'diagnostics:change' && event.data['path'] === 'src/broken.ts')!;
    assert.deepEqual(announced.data['counts'], { error: 1, warning: 0, information: 0, hint: 0 });

    // Fixed in the editor, not saved: the server sees the text the user sees.
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'src/broken.ts' })).status, 200);
    const fixed = await local.request('POST', '/api/editor/replace', {
      path: 'src/broken.ts',
      startLine: 1,
      startColumn: 30,
      endLine: 1,
      endColumn: 37,
      text: '3',
    });
    assert.equal(fixed.status, 200, fixed.text);
    await waitFor(() => local.languages.diagnostics('src/broken.ts').diagnostics.length === 0, undefined, 'the mirrored edit clearing the error');
    assert.equal((await local.languages.currentDiagnostics('src/broken.ts')).diagnostics.length, 0);
    assert.equal(local.languages.problems().counts.error, 0);
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/broken.ts'), 'utf8'), FILES['src/broken.ts'], 'nothing saved');
    await waitFor(
      () =>
        events.some(
          (event) => event.type === 'diagnostics:change' && event.data['path'] === 'src/broken.ts' && (event.data['diagnostics'] as unknown[]).length === 0,
        ),
      undefined,
      'the clearing event',
    );
  });

  it('reports a broken Python file through pyright, and clears it once fixed', async () => {
    const text = FILES['tool.py'];
    fs.writeFileSync(path.join(local.workspace, 'tool.py'), text.replace('double(4)', 'double("4")'));
    const broken = await local.languages.currentDiagnostics('tool.py');
    assert.equal(broken.server, 'python');
    assert.equal(broken.diagnostics.length, 1);
    assert.equal(broken.diagnostics[0]!.severity, 'error');
    assert.match(broken.diagnostics[0]!.message, /"Literal\['4'\]" is not assignable to "int"/);
    assert.deepEqual(broken.diagnostics[0]!.range.start, { line: 4, column: 22 });
    fs.writeFileSync(path.join(local.workspace, 'tool.py'), text);
    assert.deepEqual((await local.languages.currentDiagnostics('tool.py')).diagnostics, []);
  });

  it('finds a definition and the references across files', async () => {
    const definition = await local.languages.definition('src/app.ts', { line: 3, column: 28 });
    assert.equal(definition.source, 'language-server');
    assert.deepEqual(
      definition.locations.map((l) => [l.path, l.range.start]),
      [['src/math.ts', { line: 1, column: 17 }]],
    );
    const references = await local.languages.references('src/math.ts', { line: 1, column: 17 });
    const places = references.locations.map((l) => `${l.path}:${l.range.start.line}:${l.range.start.column}`).sort();
    assert.deepEqual(places, ['src/app.ts:1:10', 'src/app.ts:3:28', 'src/emoji.ts:1:10', 'src/emoji.ts:2:44', 'src/math.ts:1:17', 'src/math.ts:8:18']);
    const withoutDeclaration = await local.languages.references('src/math.ts', { line: 1, column: 17 }, { includeDeclaration: false });
    assert.ok(!withoutDeclaration.locations.some((l) => l.path === 'src/math.ts' && l.range.start.line === 1));
  });

  it('counts columns in UTF-16 code units, as the editor does', async () => {
    // Two emoji (two code units each) before `add` on line 2: it starts at column 44, as JavaScript counts.
    const line = FILES['src/emoji.ts'].split('\n')[1]!;
    assert.equal(line.indexOf('add(') + 1, 44);
    const definition = await local.languages.definition('src/emoji.ts', { line: 2, column: 44 });
    assert.deepEqual(definition.locations[0]!.range, { start: { line: 1, column: 17 }, end: { line: 1, column: 20 } });
    await assert.rejects(local.languages.definition('src/emoji.ts', { line: 2, column: 200 }), (error: LoomError) => error.code === 'out_of_range');
  });

  it('answers hover and document symbols', async () => {
    const hover = await local.languages.hover('src/app.ts', { line: 3, column: 28 });
    assert.match(hover!.markdown, /add\(a: number, b: number\): number/);
    assert.deepEqual(hover!.range, { start: { line: 3, column: 28 }, end: { line: 3, column: 31 } });
    const symbols = await local.languages.documentSymbols('src/math.ts');
    assert.deepEqual(
      symbols.map((s) => [s.name, s.kind, s.children.map((c) => [c.name, c.kind]).sort()]),
      [
        ['add', 'function', []],
        [
          'Meter',
          'class',
          [
            ['record', 'method'],
            ['total', 'property'],
          ],
        ],
      ],
    );
    const pythonHover = await local.languages.hover('tool.py', { line: 4, column: 16 });
    assert.match(pythonHover!.markdown, /def double\(x: int\) -> int/);
  });

  it('previews a rename as diffs, and applies it through the open documents and to the files on disk', async () => {
    await local.request('POST', '/api/editor/open', { path: 'src/app.ts' });
    const opened = await local.request('GET', '/api/editor/text?path=src/app.ts');
    const preview = await local.languages.renamePreview('src/math.ts', { line: 1, column: 17 }, 'plus');
    assert.deepEqual(
      preview.files.map((f) => [f.path, f.base.kind, f.edits.length]),
      [
        ['src/app.ts', 'document', 2],
        ['src/emoji.ts', 'disk', 2],
        ['src/math.ts', 'disk', 2],
      ],
    );
    assert.equal(
      preview.files[0]!.diff,
      "--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,3 +1,3 @@\n-import { add } from './math';\n+import { plus } from './math';\n \n-export const sum: number = add(1, 2);\n+export const sum: number = plus(1, 2);\n",
    );
    // Nothing changed yet.
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/math.ts'), 'utf8'), FILES['src/math.ts']);

    const before = events.length;
    const applied = await local.languages.applyEdit(preview);
    assert.deepEqual(
      applied.files.map((f) => [f.path, f.to]),
      [
        ['src/app.ts', 'document'],
        ['src/emoji.ts', 'disk'],
        ['src/math.ts', 'disk'],
      ],
    );
    // The open document changed, unsaved, told to the window by file:change events.
    const text = await local.request('GET', '/api/editor/text?path=src/app.ts');
    assert.equal(text.json.text, "import { plus } from './math';\n\nexport const sum: number = plus(1, 2);\n");
    assert.equal(text.json.version, opened.json.version + 2);
    const changes = events.slice(before).filter((event) => event.type === 'file:change');
    assert.deepEqual(
      changes.map((event) => [event.data['from'], event.data['text']]),
      [
        [{ line: 3, column: 28 }, 'plus'],
        [{ line: 1, column: 10 }, 'plus'],
      ],
    );
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/app.ts'), 'utf8'), FILES['src/app.ts'], 'the document is not saved');
    assert.match(fs.readFileSync(path.join(local.workspace, 'src/math.ts'), 'utf8'), /export function plus\(a: number, b: number\)[^]*this\.total = plus\(/);
    assert.equal((await local.languages.currentDiagnostics('src/app.ts')).diagnostics.length, 0);

    // The same preview again: the files are no longer as previewed, and nothing changes.
    await assert.rejects(local.languages.applyEdit(preview), (error: LoomError) => error.code === 'version_conflict');
    assert.equal((await local.request('GET', '/api/editor/text?path=src/app.ts')).json.version, text.json.version);
  });

  it('refuses a rename to nothing, or at a place with nothing to rename', async () => {
    await assert.rejects(local.languages.renamePreview('src/math.ts', { line: 1, column: 17 }, ''), (error: LoomError) => error.code === 'bad_request');
    await assert.rejects(
      local.languages.renamePreview('src/math.ts', { line: 1, column: 17 }, 'two\nlines'),
      (error: LoomError) => error.code === 'bad_request',
    );
    // `return`: a keyword, nothing to rename.
    await assert.rejects(local.languages.renamePreview('src/math.ts', { line: 2, column: 3 }, 'x'), (error: LoomError) => {
      assert.equal(error.code, 'bad_request');
      assert.equal(error.message, 'The typescript language server finds nothing to rename at line 2, column 3 of src/math.ts.');
      return true;
    });
  });

  it('answers definitions and references from the code index where no server runs, and says so', async () => {
    local.write('lib/build.rb', 'def build_all(target)\n  target\nend\n');
    local.write('Rakefile', "task :default do\n  build_all('app')\nend\n");
    await waitFor(async () => (await local.code.findSymbols('build_all')).some((hit) => hit.name === 'build_all'), undefined, 'the index, with the new files');
    // Ruby has no server here: none is bundled, and settings.json names none.
    const definition = await local.languages.definition('Rakefile', { line: 2, column: 5 });
    assert.equal(definition.source, 'index');
    assert.deepEqual(
      definition.locations.map((l) => [l.path, l.range.start]),
      [['lib/build.rb', { line: 1, column: 5 }]],
    );
    const references = await local.languages.references('lib/build.rb', { line: 1, column: 5 });
    assert.equal(references.source, 'index');
    assert.deepEqual(references.locations.map((l) => `${l.path}:${l.range.start.line}`).sort(), ['Rakefile:2', 'lib/build.rb:1']);
    // Hover has no such fallback: it says why no server runs.
    await assert.rejects(local.languages.hover('Rakefile', { line: 2, column: 5 }), (error: LoomError) => {
      assert.equal(error.code, 'language_server_unavailable');
      assert.match(error.message, /No language server serves ruby/);
      return true;
    });
  });

  it('refuses paths outside the workspace, and runs both bundled servers restricted', async () => {
    await assert.rejects(local.languages.hover('../outside.ts', { line: 1, column: 1 }), (error: LoomError) => error.code === 'forbidden_path');
    assert.deepEqual(
      local.languages
        .status()
        .filter((s) => s.state === 'running')
        .map((s) => [s.server, s.mode]),
      [
        ['typescript', 'restricted'],
        ['python', 'restricted'],
      ],
    );
  });
});

describe('language servers named in settings.json', () => {
  it('run once the workspace is trusted, follow edits of settings.json, and tell of their restarts', async (t) => {
    const fake = fileURLToPath(new URL('../support/fake-lsp-server.mjs', import.meta.url));
    const local = await startTestLocal({
      files: { 'build.rb': 'hello\n', 'crash.rb': 'crash\n' },
      settings: { apiToken: `loom_${'t'.repeat(40)}`, languageServers: { ruby: { command: process.execPath, args: [fake] } } },
      languageServers: { enabled: 'on' },
    });
    t.after(() => local.close());
    const events: LoomEvent[] = [];
    local.events.subscribe((event) => void events.push(event));
    await assert.rejects(local.languages.hover('build.rb', { line: 1, column: 1 }), /runs only in a trusted workspace/);

    new WorkspaceTrust(local.configDir).trust(local.workspace);
    assert.deepEqual(await local.languages.hover('build.rb', { line: 1, column: 1 }), { markdown: '```\nhello\n```' });
    await assert.rejects(local.languages.hover('crash.rb', { line: 1, column: 1 }), (error: LoomError) => error.code === 'language_server_failed');
    await waitFor(() => events.some((event) => event.type === 'notification' && event.data['source'] === 'language-servers'), undefined, 'the notice');
    const notice = events.find((event) => event.type === 'notification')!;
    assert.equal(notice.data['level'], 'warning');
    assert.match(notice.data['text'] as string, /^The ruby language server exited with code 3/);

    writeSettings(local.configDir, { ...local.settings.current, languageServers: { ruby: { command: process.execPath, args: [fake], enabled: false } } });
    assert.equal(local.settings.reload(), true);
    await assert.rejects(local.languages.hover('build.rb', { line: 1, column: 1 }), /No language server serves ruby/);
  });
});
