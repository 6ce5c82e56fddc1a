// Manifests as VS Code authors write them, and every way one can be wrong: each wrong one is a
// problem to report (with its reason), never an extension to run. Discovery skips hidden
// entries and files; the trust store keys workspaces by their real path, in a 0600 file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { discoverExtensions, readManifest } from '../../src/extensions/manifest.ts';
import { WorkspaceTrust } from '../../src/extensions/trust.ts';

function folder(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-manifest-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const GOOD = {
  name: 'word-count',
  displayName: 'Word Count',
  version: '1.0.0',
  main: './extension.js',
  activationEvents: ['onCommand:wordCount.count'],
  contributes: { commands: [{ command: 'wordCount.count', title: 'Count words' }] },
};

function write(dir: string, manifest: unknown, main = 'extension.js'): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  fs.writeFileSync(path.join(dir, main), '');
  return dir;
}

describe('extension manifests', () => {
  it('reads a valid manifest', (t) => {
    const dir = write(path.join(folder(t), 'word-count'), GOOD);
    const read = readManifest(dir, 'user');
    assert.ok('manifest' in read);
    assert.deepEqual(read.manifest, {
      name: 'word-count',
      version: '1.0.0',
      title: 'Word Count',
      dir: fs.realpathSync(dir),
      main: path.join(fs.realpathSync(dir), 'extension.js'),
      scope: 'user',
      activateOnStartup: false,
      commands: [{ command: 'wordCount.count', title: 'Count words' }],
    });
    assert.equal(
      (readManifest(write(path.join(folder(t), 'x'), { ...GOOD, activationEvents: ['onStartup'] }), 'workspace') as any).manifest.activateOnStartup,
      true,
    );
  });

  const wrong: [string, unknown, RegExp][] = [
    ['not JSON', '{"name": ', /not valid JSON/],
    ['not an object', '[]', /not a JSON object/],
    ['a name with capitals', { ...GOOD, name: 'Word Count' }, /name must be lower case/],
    ['no version', { ...GOOD, version: undefined }, /version must be a string/],
    ['no main', { ...GOOD, main: undefined }, /main must name/],
    ['an absolute main', { ...GOOD, main: '/etc/passwd.js' }, /relative/],
    ['a main that is not JavaScript', { ...GOOD, main: './extension.ts' }, /JavaScript file/],
    ['a main outside the folder', { ...GOOD, main: '../elsewhere.js' }, /does not exist|leaves the extension's folder/],
    ['a missing main', { ...GOOD, main: './missing.js' }, /does not exist/],
    ['an unknown activation event', { ...GOOD, activationEvents: ['onLanguage:python'] }, /not one Loom knows/],
    ['onCommand of a command not contributed', { ...GOOD, activationEvents: ['onCommand:other.cmd'] }, /does not declare/],
    ['a command without a title', { ...GOOD, contributes: { commands: [{ command: 'a.b' }] } }, /needs a title/],
    ['a command name with spaces', { ...GOOD, contributes: { commands: [{ command: 'a b', title: 't' }] } }, /needs a command/],
    [
      'a command twice',
      {
        ...GOOD,
        activationEvents: [],
        contributes: {
          commands: [
            { command: 'a.b', title: 't' },
            { command: 'a.b', title: 'u' },
          ],
        },
      },
      /twice/,
    ],
  ];
  for (const [what, manifest, reason] of wrong)
    it(`refuses ${what}`, (t) => {
      const read = readManifest(write(path.join(folder(t), 'ext'), manifest), 'user');
      assert.ok('problem' in read, 'refused');
      assert.match(read.problem, reason);
    });

  it('refuses a main that is a symlink out of the folder', (t) => {
    const root = folder(t);
    fs.writeFileSync(path.join(root, 'outside.js'), '');
    const dir = write(path.join(root, 'ext'), { ...GOOD, main: './link.js' });
    fs.symlinkSync(path.join(root, 'outside.js'), path.join(dir, 'link.js'));
    const read = readManifest(dir, 'user');
    assert.ok('problem' in read);
    assert.match(read.problem, /leaves the extension's folder/);
  });

  it('discovers the folders of a root, skipping hidden entries and files, reporting bad ones; a missing root holds none', (t) => {
    const root = folder(t);
    write(path.join(root, 'good'), GOOD);
    write(path.join(root, 'bad'), { ...GOOD, name: 'BAD' });
    write(path.join(root, '.hidden'), GOOD);
    fs.writeFileSync(path.join(root, 'README.md'), 'not an extension');
    const { manifests, problems } = discoverExtensions(root, 'workspace');
    assert.deepEqual(
      manifests.map((m) => [m.name, m.scope]),
      [['word-count', 'workspace']],
    );
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.dir, path.join(root, 'bad'));
    assert.deepEqual(discoverExtensions(path.join(root, 'nowhere'), 'user'), { manifests: [], problems: [] });
  });
});

describe('workspace trust', () => {
  it('keeps real paths in a 0600 file; a symlink to a trusted folder is trusted, another folder is not', (t) => {
    const root = folder(t);
    const config = path.join(root, 'config');
    const workspace = path.join(root, 'ws');
    fs.mkdirSync(workspace);
    fs.symlinkSync(workspace, path.join(root, 'link'));
    const trust = new WorkspaceTrust(config);
    assert.equal(trust.isTrusted(workspace), false);
    assert.equal(trust.trust(path.join(root, 'link')), fs.realpathSync(workspace));
    assert.equal(trust.isTrusted(workspace), true);
    assert.equal(trust.isTrusted(root), false);
    assert.equal(fs.statSync(trust.file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(config).mode & 0o777, 0o700);
    trust.untrust(workspace);
    assert.equal(trust.isTrusted(path.join(root, 'link')), false);
  });

  it('a damaged file trusts nothing, and says so', (t) => {
    const config = folder(t);
    const warnings: string[] = [];
    const trust = new WorkspaceTrust(config, (message) => warnings.push(message));
    fs.writeFileSync(trust.file, '{"workspaces": [', { mode: 0o600 });
    assert.equal(trust.isTrusted(config), false);
    assert.match(warnings[0]!, /not valid JSON/);
  });
});
