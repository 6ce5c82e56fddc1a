// settings.json holds the local API token and webhook secrets: it is 0600 in a 0700 config
// folder, whatever the umask; a folder or file found open to other users is tightened, and the
// warning reaches the operator through `loom serve`'s log.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { startLocal } from '../../src/local/server.ts';
import { loadOrCreateSettings, newApiToken, rotateToken } from '../../src/local/settings.ts';
import { captureLog } from '../support/log-lines.ts';

const skip = process.platform === 'win32' ? 'file modes are POSIX' : false;

function modeOf(file: string): string {
  return `0${(fs.statSync(file).mode & 0o777).toString(8)}`;
}

function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-modes-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A config folder 0755 holding a settings.json 0644, as a hand-made one often is. */
function looseConfigDir(root: string): string {
  const configDir = path.join(root, 'config');
  fs.mkdirSync(configDir);
  fs.chmodSync(configDir, 0o755);
  fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify({ apiToken: newApiToken() }));
  fs.chmodSync(path.join(configDir, 'settings.json'), 0o644);
  return configDir;
}

describe('settings.json file modes', { skip }, () => {
  it('creates the config folder 0700 and settings.json 0600, even with a umask of 0', (t) => {
    const configDir = path.join(tempDir(t), 'config', 'loom');
    const warnings: string[] = [];
    const previous = process.umask(0);
    try {
      loadOrCreateSettings(configDir, (warning) => warnings.push(warning));
      rotateToken(configDir, (warning) => warnings.push(warning));
    } finally {
      process.umask(previous);
    }
    assert.equal(modeOf(configDir), '0700');
    assert.equal(modeOf(path.join(configDir, 'settings.json')), '0600');
    assert.deepEqual(warnings, []);
  });

  it('tightens a config folder and settings.json found open to other users, and says which', (t) => {
    const configDir = looseConfigDir(tempDir(t));
    const warnings: string[] = [];
    loadOrCreateSettings(configDir, (warning) => warnings.push(warning));
    assert.equal(modeOf(configDir), '0700');
    assert.equal(modeOf(path.join(configDir, 'settings.json')), '0600');
    assert.deepEqual(warnings, [
      `${configDir} was 0755, open to other users; it is now 0700`,
      `${path.join(configDir, 'settings.json')} was 0644, open to other users; it is now 0600`,
    ]);
  });

  it('loom serve logs the warnings at start, for the config folder and the data dir', async (t) => {
    const root = tempDir(t);
    const configDir = looseConfigDir(root);
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir);
    fs.chmodSync(dataDir, 0o755);
    const workspace = path.join(root, 'workspace');
    fs.mkdirSync(workspace);
    const configFile = path.join(root, 'config.json');
    fs.writeFileSync(configFile, JSON.stringify({ workspace, configDir, dataDir, local: { port: 0 }, logLevel: 'info' }));
    const log = captureLog();
    const local = await startLocal(loadConfig({ env: {}, configFile }), undefined, { logDestination: log });
    await local.close();
    const warnings = log
      .lines()
      .filter((line) => line.level === 40)
      .map((line) => line.msg);
    assert.deepEqual(warnings, [
      `${configDir} was 0755, open to other users; it is now 0700`,
      `${path.join(configDir, 'settings.json')} was 0644, open to other users; it is now 0600`,
      `${dataDir} was 0755, open to other users; it is now 0700`,
    ]);
    assert.equal(modeOf(dataDir), '0700');
    assert.equal(modeOf(path.join(dataDir, 'loom.db')), '0600');
  });
});
