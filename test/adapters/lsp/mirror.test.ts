// What a language server is given: the editor's open documents with their unsaved text (opened,
// changed, closed as the editor does), and the workspace's files changed on disk, from the folder
// watcher, as workspace/didChangeWatchedFiles. Shown with the scripted server, which reports one
// diagnostic quoting each document's first line and tells what it heard of the disk.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LspManager } from '../../../src/adapters/lsp/manager.ts';
import { EventBus } from '../../../src/core/events/bus.ts';
import { fileUri } from '../../../src/core/language/lsp-convert.ts';
import { Documents } from '../../../src/core/workspace/documents.ts';
import { FolderWatcher } from '../../../src/core/workspace/folder-watcher.ts';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';
import { waitFor } from '../../support/wait.ts';

const FAKE_SERVER = fileURLToPath(new URL('../../support/fake-lsp-server.mjs', import.meta.url));

function setUp(t: TestContext) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-mirror-')));
  fs.writeFileSync(path.join(root, 'a.txt'), 'saved text\nmore\n');
  fs.writeFileSync(path.join(root, 'old.txt'), 'to be removed\n');
  const paths = new WorkspacePaths(root);
  const documents = new Documents(paths, new EventBus());
  const watcher = new FolderWatcher(root, { skipsDirectory: (name) => name === 'node_modules' });
  watcher.start();
  const servers = new LspManager({
    workspace: root,
    stateDir: root,
    settings: () => ({ enabled: true, requestTimeoutMs: 10_000, idleSeconds: 600, memoryLimitMb: 4096 }),
    trusted: () => true,
    serverSettings: () => ({ fake: { command: process.execPath, args: [FAKE_SERVER], languages: ['plaintext'] } }),
    documents,
    watcher,
  });
  const reports = new Map<string, string[]>();
  servers.onDiagnostics((_server, uri, diagnostics) =>
    reports.set(
      uri,
      (diagnostics as { message: string }[]).map((d) => d.message),
    ),
  );
  t.after(async () => {
    await servers.close();
    watcher.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return { root, documents, servers, reports };
}

describe('what a language server is given', () => {
  it("mirrors the editor's documents, unsaved text included, and lets go of a closed one", async (t) => {
    const { root, documents, reports } = setUp(t);
    const uri = fileUri(root, 'a.txt');
    // Opening a document of its language starts the server, which gets the document.
    await documents.openFile('a.txt');
    await waitFor(() => reports.get(uri)?.[0] === 'fake: saved text', undefined, 'the opened document');
    await documents.replace({ path: 'a.txt', startLine: 1, startColumn: 1, endLine: 1, endColumn: 6, text: 'unsaved' });
    await waitFor(() => reports.get(uri)?.[0] === 'fake: unsaved text', undefined, 'the unsaved edit');
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'saved text\nmore\n');
    await documents.close('a.txt', { discard: true });
    await waitFor(() => reports.get(uri)?.length === 0, undefined, 'the closed document let go');
  });

  it('tells of files created, changed and removed on disk', async (t) => {
    const { root, servers } = setUp(t);
    const heard = async () =>
      (
        (
          await servers.request({ path: 'a.txt', language: 'plaintext', text: 'watched\n' }, 'textDocument/hover', (uri) => ({
            textDocument: { uri },
            position: { line: 0, character: 0 },
          }))
        ).result as { contents: { value: string } }
      ).contents.value.split('\n');
    await heard(); // started
    fs.writeFileSync(path.join(root, 'new.txt'), 'fresh\n');
    fs.rmSync(path.join(root, 'old.txt'));
    await waitFor(
      async () => {
        const lines = await heard();
        return lines.includes(`1 ${fileUri(root, 'new.txt')}`) && lines.includes(`3 ${fileUri(root, 'old.txt')}`);
      },
      undefined,
      'the created and the removed file',
    );
  });
});
