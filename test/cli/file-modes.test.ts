// The CLI tightens what it finds open to other users (the data dir and database of
// `loom admin`, the config folder and settings.json of `loom token`, credentials.json of
// `loom logout`) and says so on stderr, one `loom: warning:` line each; stdout stays the answer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openStore } from '../../src/store/index.ts';
import { cleanEnv, runLoom, tempDir } from '../support/cli.ts';

const skip = process.platform === 'win32' ? 'file modes are POSIX' : false;

function modeOf(file: string): string {
  return `0${(fs.statSync(file).mode & 0o777).toString(8)}`;
}

describe('the CLI and loose file modes', { skip }, () => {
  it('loom admin feedback list tightens the data dir and loom.db, and warns on stderr', async (t) => {
    const home = tempDir(t);
    const dataDir = path.join(home, 'data-dir');
    await (await openStore({ dataDir })).close();
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, 'loom.db'), 0o644);
    const result = await runLoom(['admin', 'feedback', 'list', '--data-dir', dataDir], cleanEnv(home));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'No feedback stored.\n');
    assert.equal(
      result.stderr,
      `loom: warning: ${dataDir} was 0755, open to other users; it is now 0700\n` +
        `loom: warning: ${path.join(dataDir, 'loom.db')} was 0644, open to other users; it is now 0600\n`,
    );
    assert.equal(modeOf(dataDir), '0700');
    assert.equal(modeOf(path.join(dataDir, 'loom.db')), '0600');
    const again = await runLoom(['admin', 'feedback', 'list', '--data-dir', dataDir], cleanEnv(home));
    assert.equal(again.stderr, '', 'nothing left to warn about');
  });

  it('loom token tightens the config folder and settings.json, and warns on stderr', async (t) => {
    const home = tempDir(t);
    const configDir = path.join(home, 'config', 'loom');
    fs.mkdirSync(configDir, { recursive: true });
    fs.chmodSync(configDir, 0o755);
    const token = `loom_${'a'.repeat(43)}`;
    fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify({ apiToken: token }), { mode: 0o644 });
    fs.chmodSync(path.join(configDir, 'settings.json'), 0o644);
    const result = await runLoom(['token'], cleanEnv(home));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${token}\n`);
    assert.equal(
      result.stderr,
      `loom: warning: ${configDir} was 0755, open to other users; it is now 0700\n` +
        `loom: warning: ${path.join(configDir, 'settings.json')} was 0644, open to other users; it is now 0600\n`,
    );
    assert.equal(modeOf(configDir), '0700');
    assert.equal(modeOf(path.join(configDir, 'settings.json')), '0600');
  });

  it('loom logout tightens the config folder and credentials.json, and warns on stderr', async (t) => {
    const home = tempDir(t);
    const configDir = path.join(home, 'config', 'loom');
    fs.mkdirSync(configDir, { recursive: true });
    fs.chmodSync(configDir, 0o755);
    const credentials = path.join(configDir, 'credentials.json');
    fs.writeFileSync(credentials, JSON.stringify({ servers: {} }));
    fs.chmodSync(credentials, 0o644);
    const result = await runLoom(['logout', '--server', 'http://127.0.0.1:9'], cleanEnv(home));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Not signed in to http://127.0.0.1:9.\n');
    assert.match(result.stderr, new RegExp(`^loom: warning: ${configDir} was 0755, open to other users; it is now 0700\\n`));
    assert.match(result.stderr, /credentials\.json was 0644, open to other users; it is now 0600\n/);
    assert.equal(modeOf(configDir), '0700');
    assert.equal(modeOf(credentials), '0600');
  });
});
