// A server whose start fails says why in one way (a ConfigError for a setting that cannot
// work, checked before anything is opened) and leaves nothing open behind it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../../src/config/load.ts';
import { startHosted } from '../../src/hosted/server.ts';
import { startLocal } from '../../src/local/server.ts';
import { SQLITE_FILE } from '../../src/store/database.ts';
import { testConfig } from '../support/config.ts';

const folders: string[] = [];
after(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-start-'));
  folders.push(folder);
  return folder;
}

/** Files of `folder` this process holds open (Linux's /proc), or undefined where it cannot tell. */
function openFilesIn(folder: string): string[] | undefined {
  if (!fs.existsSync('/proc/self/fd')) return undefined;
  const open: string[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(folder + path.sep)) open.push(target);
    } catch {
      // closed while listing
    }
  }
  return open;
}

/** A port something else listens on. */
async function takenPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}

function config(dataDir: string, values: Record<string, unknown> = {}) {
  return testConfig(dataDir, {
    dataDir,
    configDir: dataDir,
    workspace: dataDir,
    logLevel: 'silent',
    hosted: { port: 0, host: '127.0.0.1' },
    local: { port: 0 },
    ...values,
  });
}

describe('a start that fails', () => {
  it('is a ConfigError naming the setting when the workspace is not a folder, and opens nothing', async () => {
    const dataDir = tempFolder();
    const missing = path.join(dataDir, 'gone');
    const failure = await startLocal(config(dataDir, { workspace: missing })).catch((error: unknown) => error);
    assert.ok(failure instanceof ConfigError, String(failure));
    assert.equal(failure.message, `The workspace ${missing} (--workspace, LOOM_WORKSPACE) is not a folder.`);
    assert.equal(fs.existsSync(path.join(dataDir, SQLITE_FILE)), false);
  });

  it('is a ConfigError naming the setting when the corpus is not a folder, and opens nothing', async () => {
    const dataDir = tempFolder();
    const file = path.join(dataDir, 'corpus.txt');
    fs.writeFileSync(file, 'not a folder');
    const failure = await startHosted(config(dataDir, { corpusDir: file })).catch((error: unknown) => error);
    assert.ok(failure instanceof ConfigError, String(failure));
    assert.equal(failure.message, `The corpus folder ${file} (--corpus-dir, LOOM_CORPUS_DIR) is not a folder.`);
    assert.equal(fs.existsSync(path.join(dataDir, SQLITE_FILE)), false);
  });

  for (const [name, start, portSetting] of [
    ['the hosted server', startHosted, (port: number) => ({ hosted: { port, host: '127.0.0.1' } })],
    ['the local server', startLocal, (port: number) => ({ local: { port } })],
  ] as const) {
    it(`closes the store ${name} had opened when its port is taken`, async (t) => {
      const dataDir = tempFolder();
      const taken = await takenPort();
      t.after(() => taken.release());
      await assert.rejects(start(config(dataDir, portSetting(taken.port))), { code: 'EADDRINUSE' });
      assert.ok(fs.existsSync(path.join(dataDir, SQLITE_FILE)), 'the store was opened before listening');
      const open = openFilesIn(dataDir);
      if (open === undefined) return t.skip('no /proc/self/fd here to see which files are open');
      assert.deepEqual(open, []);
    });
  }
});
