// The window's bundle: missing or older than a source file means stale; ensureWindowBundle
// builds it then (esbuild, the real build) and not otherwise; a page route serves what was built.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildWindowBundle, bundleIsStale, chunkPath, ensureWindowBundle } from '../../src/local/window/bundle.ts';

describe("the window's bundle", () => {
  it('is built when missing or stale, and only then', async (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bundle-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    const paths = { source: path.join(root, 'web'), output: path.join(root, 'dist') };
    fs.mkdirSync(paths.source);
    fs.writeFileSync(path.join(paths.source, 'main.ts'), "import './window.css';\nconst answer: number = 42;\nconsole.log(answer);\n");
    fs.writeFileSync(path.join(paths.source, 'window.css'), 'body { color: red; }\n');
    assert.equal(bundleIsStale(paths), true, 'missing');
    assert.deepEqual(await ensureWindowBundle(paths), { ready: true });
    assert.match(fs.readFileSync(path.join(paths.output, 'window.js'), 'utf8'), /42.*console\.log\(/);
    assert.match(fs.readFileSync(path.join(paths.output, 'window.css'), 'utf8'), /color:\s?red/);
    assert.equal(bundleIsStale(paths), false);
    const built = fs.statSync(path.join(paths.output, 'window.js')).mtimeMs;
    // A source newer than the bundle makes it stale.
    const earlier = new Date(built - 10_000);
    for (const name of ['window.js', 'window.css']) fs.utimesSync(path.join(paths.output, name), earlier, earlier);
    assert.equal(bundleIsStale(paths), true);
    await ensureWindowBundle(paths);
    assert.equal(bundleIsStale(paths), false);
  });

  it('puts what is imported dynamically in a chunk, and its styles in window.css', async (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bundle-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    const paths = { source: path.join(root, 'web'), output: path.join(root, 'dist') };
    fs.mkdirSync(paths.source);
    fs.writeFileSync(path.join(paths.source, 'main.ts'), "import './window.css';\nvoid import('./lazy.ts').then((lazy) => lazy.run());\n");
    fs.writeFileSync(path.join(paths.source, 'window.css'), 'body { color: red; }\n');
    fs.writeFileSync(path.join(paths.source, 'lazy.ts'), "import './lazy.css';\nexport function run(): void { console.log('lazy part 4711'); }\n");
    fs.writeFileSync(path.join(paths.source, 'lazy.css'), '.lazy-part { color: blue; }\n');
    const written = await buildWindowBundle(paths);
    const entry = fs.readFileSync(path.join(paths.output, 'window.js'), 'utf8');
    assert.ok(!entry.includes('lazy part 4711'), 'the lazy part is not in window.js');
    const name = /import\("\.\/chunks\/([A-Za-z0-9_-]+\.js)"\)/.exec(entry)?.[1];
    assert.ok(name, entry);
    // The build answers its chunks; an earlier build's, kept for a while for windows still open, are not among them.
    assert.deepEqual(written, [`chunks/${name}`]);
    fs.writeFileSync(path.join(paths.source, 'lazy.ts'), "import './lazy.css';\nexport function run(): void { console.log('lazy part 4712'); }\n");
    const rebuilt = await buildWindowBundle(paths);
    assert.equal(rebuilt.length, 1);
    assert.notDeepEqual(rebuilt, written);
    assert.ok(fs.existsSync(chunkPath(paths, name)!), 'the earlier chunk is kept');
    assert.match(fs.readFileSync(chunkPath(paths, name)!, 'utf8'), /lazy part 4711/);
    // The lazy part's CSS reaches the page with the rest; no chunk has CSS of its own.
    assert.match(fs.readFileSync(path.join(paths.output, 'window.css'), 'utf8'), /\.lazy-part/);
    assert.deepEqual(
      fs.readdirSync(path.join(paths.output, 'chunks')).filter((file) => !file.endsWith('.js')),
      [],
    );
  });

  it('names only files of the chunks folder as chunks', () => {
    const paths = { source: '/src/web', output: '/dist/web' };
    assert.equal(chunkPath(paths, 'terminal-ABCD1234.js'), path.join('/dist/web/chunks/terminal-ABCD1234.js'));
    for (const name of ['../window.js', '..', '.js', 'a/b.js', 'a\\b.js', 'window.css', '%2e%2e.js', '', 'x.js\u0000', '/etc/passwd'])
      assert.equal(chunkPath(paths, name), undefined, name);
  });

  it('keeps serving an older bundle when a build fails, and says why', async (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bundle-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    const paths = { source: path.join(root, 'web'), output: path.join(root, 'dist') };
    fs.mkdirSync(paths.source);
    fs.mkdirSync(paths.output);
    fs.writeFileSync(path.join(paths.output, 'window.js'), '');
    fs.writeFileSync(path.join(paths.output, 'window.css'), '');
    const later = new Date(Date.now() + 60_000);
    fs.writeFileSync(path.join(paths.source, 'main.ts'), "import 'no-such-package-anywhere';\n");
    fs.utimesSync(path.join(paths.source, 'main.ts'), later, later);
    const state = await ensureWindowBundle(paths);
    assert.equal(state.ready, true);
    assert.match(state.problem ?? '', /no-such-package-anywhere/);
    fs.rmSync(paths.output, { recursive: true });
    assert.equal((await ensureWindowBundle(paths)).ready, false);
  });
});
