// Completion's cross-file context over a real code index of a small workspace: which
// identifiers count (the lines near the cursor, nearest first, not the word being typed), which
// definitions they bring (the imported file's, not the file's own, none for a name defined
// everywhere), how they are written (comments of the language, headed by the path, a class with
// its members), the budget, and the order (the best last, next to the code).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { CodeIndex } from '../../../src/adapters/code/code-index.ts';
import { crossFileContext } from '../../../src/compose/code-intel.ts';
import { CrossFileContext, formatDefinition, identifiersNearCursor, lineComment } from '../../../src/core/completion/cross-file.ts';

const FILES: Record<string, string> = {
  'src/router.ts': [
    '/** Routes requests to handlers by method and path. */',
    'export class Router {',
    '  /** Adds a route. */',
    '  add(method: string, path: string, handler: Handler): void {}',
    '  match(method: string, path: string): Handler | undefined {',
    '    return undefined;',
    '  }',
    '}',
    'export type Handler = (request: Request) => Response;',
    '',
  ].join('\n'),
  'src/url.ts': ['/** The path of a URL, without its query. */', 'export function getPath(url: string): string {', "  return url.split('?')[0];", '}', ''].join(
    '\n',
  ),
  'src/a.ts': 'export function init(): void {}\n',
  'src/b.ts': 'export function init(): void {}\n',
  'src/c.ts': 'export function init(): void {}\n',
  'src/d.ts': 'export function init(): void {}\n',
  'src/app.ts': [
    "import { Router } from './router';",
    "import { getPath } from './url';",
    '',
    'function local(x: number): number {',
    '  return x;',
    '}',
    '',
    'const router = new Router();',
    'init();',
    'local(1);',
    'router.add(',
    '',
  ].join('\n'),
  'scripts/tool.py': 'from helpers import slugify\n\nprint(slugify("A b"))\n',
  'scripts/helpers.py': 'def slugify(text):\n    """Lower case, dashes for spaces."""\n    return text.lower().replace(" ", "-")\n',
};

async function workspace(t: TestContext): Promise<{ root: string; index: CodeIndex }> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-crossfile-')));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-crossfile-data-'));
  for (const [name, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  const index = CodeIndex.open({ root, dataDir, workers: 1 });
  t.after(async () => {
    await index.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  await index.refresh();
  return { root, index };
}

/** The request of a cursor at the end of `src/app.ts` (after `router.add(`). */
function atEndOfApp(filePath = 'src/app.ts') {
  const text = FILES['src/app.ts']!;
  return { prefix: text.slice(0, text.length - 1), suffix: '\n', filePath, language: 'typescript' };
}

describe('identifiers near the cursor', () => {
  it('takes the cursor line first, then lines by distance, never the word being typed, keywords or strings', () => {
    const prefix = "import { x } from './x';\nconst router = new Router();\nrouter.add(getPa";
    const suffix = ', handler);\nreturn done;\n';
    assert.deepEqual(identifiersNearCursor(prefix, suffix), ['add', 'router', 'handler', 'Router', 'done']);
  });

  it('leaves out what a comment or a string says', () => {
    assert.deepEqual(identifiersNearCursor('log("Router here"); // see Handler\nrun(', ''), ['run', 'log']);
  });
});

describe('the comment of a language', () => {
  it('is # for Python, Ruby and shell, -- for SQL and Lua, // otherwise', () => {
    assert.equal(lineComment('python'), '#');
    assert.equal(lineComment('', 'x/y.rb'), '#');
    assert.equal(lineComment('sql'), '--');
    assert.equal(lineComment('typescript'), '//');
    assert.equal(lineComment('plaintext', 'a.go'), '//');
  });

  it('writes a definition with its path, its doc and its members', () => {
    const range = { start: { line: 1 } };
    const text = formatDefinition(
      { path: 'src/r.ts', name: 'R', kind: 'class', signature: 'class R {', doc: 'Routes.\nMore.', range },
      [{ path: 'src/r.ts', name: 'add', kind: 'method', signature: 'add(a: string) {', range }],
      '//',
    );
    assert.equal(text, '// Path: src/r.ts\n// Routes.\n// More.\n// class R {\n//   add(a: string) {\n');
  });
});

describe('cross-file context over a code index', () => {
  it('brings the imported definitions, a class with its members, and not the file’s own', async (t) => {
    const { index } = await workspace(t);
    const context = crossFileContext(index);
    const { text, definitions } = await context.select(atEndOfApp(), 2048);
    const names = definitions.map((definition) => `${definition.path}:${definition.name}`);
    // `add` (nearest), `router`/`Router`, then the imports: getPath; `local` is the file's own,
    // `init` is defined in four files and says nothing.
    // `add` is shown within its class, at its place.
    assert.deepEqual(names, ['src/router.ts:Router', 'src/url.ts:getPath']);
    assert.match(text, /^\/\/ Path: src\/router\.ts\n/m);
    assert.match(
      text,
      /\/\/ Routes requests to handlers by method and path\.\n\/\/ export class Router \{\n\/\/ {3}add\(method: string, path: string, handler: Handler\): void \{\}\n/,
    );
    assert.match(text, /\/\/ The path of a URL, without its query\.\n\/\/ export function getPath\(url: string\): string \{\n/);
    assert.doesNotMatch(text, /init|local/);
    // The best last: Router (for `add`) ends the context, next to the code.
    assert.ok(text.trimEnd().endsWith('//   match(method: string, path: string): Handler | undefined {'), text);
    assert.ok(text.startsWith('// Path: src/url.ts\n'), text);
  });

  it('takes a path absolute inside the workspace, and none outside it', async (t) => {
    const { root, index } = await workspace(t);
    const context = crossFileContext(index);
    const absolute = await context.select(atEndOfApp(path.join(root, 'src/app.ts')), 2048);
    assert.equal(absolute.definitions.length, 2);
    // Outside the workspace: no file of its own and no imports, but the names near the cursor
    // still count (app.ts's own `local` too, then: the file is not known to be app.ts).
    const outside = await context.select(atEndOfApp('/elsewhere/app.ts'), 2048);
    const names = outside.definitions.map((definition) => definition.name);
    assert.equal(names[0], 'Router');
    assert.ok(!names.includes('init'), names.join());
  });

  it('stays within the budget, keeping the best and leaving out what does not fit', async (t) => {
    const { index } = await workspace(t);
    const context = crossFileContext(index);
    const full = await context.select(atEndOfApp(), 2048);
    for (const budget of [0, 40, 120, 200, full.text.length - 1]) {
      const cut = await context.select(atEndOfApp(), budget);
      assert.ok(cut.text.length <= budget, `${cut.text.length} > ${budget}`);
      // What is kept is the best of the full choice, in its order.
      assert.deepEqual(
        cut.definitions.map((definition) => definition.name),
        full.definitions.map((definition) => definition.name).filter((name) => cut.definitions.some((kept) => kept.name === name)),
      );
    }
    assert.equal((await context.select(atEndOfApp(), 0)).text, '');
  });

  it('writes Python definitions as # comments, the import resolved to the module', async (t) => {
    const { index } = await workspace(t);
    const context = crossFileContext(index);
    const { text } = await context.select(
      { prefix: 'from helpers import slugify\n\nname = slugify(', suffix: '\n', filePath: 'scripts/tool.py', language: 'python' },
      2048,
    );
    assert.equal(text, '# Path: scripts/helpers.py\n# Lower case, dashes for spaces.\n# def slugify(text):\n');
  });

  it('answers nothing past its deadline, and nothing when the index fails', async () => {
    const never = new CrossFileContext(
      {
        definitionsNamed: () => new Promise(() => {}),
        importsOf: async () => [],
        findSymbols: async () => [],
      },
      { deadlineMs: 5 },
    );
    assert.deepEqual(await never.select(atEndOfApp(), 2048), { text: '', definitions: [] });
    const failing = new CrossFileContext({
      definitionsNamed: async () => {
        throw new Error('the index is closed');
      },
      importsOf: async () => [],
      findSymbols: async () => [],
    });
    assert.deepEqual(await failing.select(atEndOfApp(), 2048), { text: '', definitions: [] });
  });
});
