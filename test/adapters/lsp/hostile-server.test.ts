// A language server that misbehaves (test/support/fake-lsp-server.mjs, scripted by the first line
// of the file it is asked about) costs Loom one clear error and a restart with backoff, never a
// hang, a crash or unbounded memory: it crashes, hangs, floods, announces a huge message, sends
// garbage, stops reading, or grows past the memory limit. And one left idle is stopped.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LspManager } from '../../../src/adapters/lsp/manager.ts';
import type { ServerSpec } from '../../../src/adapters/lsp/server-specs.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { LoomError } from '../../../src/core/errors.ts';
import type { LanguageServerSettings } from '../../../src/core/language/types.ts';
import { waitFor } from '../../support/wait.ts';

const FAKE_SERVER = fileURLToPath(new URL('../../support/fake-lsp-server.mjs', import.meta.url));

const fakeSpec: ServerSpec = {
  name: 'fake',
  languages: ['plaintext'],
  origin: 'settings',
  key: 'fake',
  check: () => undefined,
  launch: async () => ({ command: process.execPath, args: [FAKE_SERVER] }),
};

function setUp(t: TestContext, settings: Partial<LanguageServerSettings> = {}, options: { maxMessageBytes?: number; specs?: ServerSpec[] } = {}) {
  const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-lsp-')));
  const log = path.join(workspace, '.pids');
  const clock = new ManualClock();
  const notices: string[] = [];
  const limits: LanguageServerSettings = { enabled: true, requestTimeoutMs: 10_000, idleSeconds: 60, memoryLimitMb: 4096, ...settings };
  const manager = new LspManager({
    workspace,
    stateDir: workspace,
    settings: () => limits,
    trusted: () => true,
    specs: options.specs ?? [fakeSpec],
    clock,
    env: { ...process.env, FAKE_LSP_LOG: log },
    notice: (_level, text) => notices.push(text),
    tickMs: 50,
    backoff: { firstMs: 50, maxMs: 200 },
    maxMessageBytes: options.maxMessageBytes,
  });
  t.after(async () => {
    await manager.close();
    fs.rmSync(workspace, { recursive: true, force: true });
  });
  const hover = (firstLine: string, name = 'a.txt') =>
    manager.request({ path: name, language: 'plaintext', text: `${firstLine}\n` }, 'textDocument/hover', (uri) => ({
      textDocument: { uri },
      position: { line: 0, character: 0 },
    }));
  const starts = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').length : 0);
  const fake = () => manager.status()[0]!;
  return { manager, clock, notices, limits, hover, starts, fake };
}

async function refusal(promise: Promise<unknown>): Promise<LoomError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LoomError, `expected a LoomError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a refusal');
}

/** Waits until the server is running again after `restarts` restarts, and answers. */
async function answersAgain(setup: ReturnType<typeof setUp>, restarts: number): Promise<void> {
  await waitFor(() => setup.fake().restarts === restarts && setup.fake().state === 'running', undefined, `restart ${restarts}`);
  const { result } = await setup.hover('hello');
  assert.deepEqual(result, { contents: { kind: 'plaintext', value: 'hello' } });
}

describe('a misbehaving language server', () => {
  it('that crashes fails its request clearly, and is restarted and answers', async (t) => {
    const setup = setUp(t);
    assert.deepEqual((await setup.hover('hello')).result, { contents: { kind: 'plaintext', value: 'hello' } });
    const error = await refusal(setup.hover('crash'));
    assert.equal(error.code, 'language_server_failed');
    assert.match(error.message, /The fake language server exited with code 3/);
    await answersAgain(setup, 1);
    assert.equal(setup.starts(), 2);
    assert.match(
      setup.notices.join('\n'),
      /The fake language server exited with code 3 \(its last words: fake server: crashing as asked\); it restarts in 1 s\./,
    );
  });

  it('that hangs gives a time-limit error, and is restarted and answers', async (t) => {
    const setup = setUp(t, { requestTimeoutMs: 300 });
    const error = await refusal(setup.hover('hang'));
    assert.equal(error.code, 'language_server_timeout');
    assert.equal(error.message, 'The fake language server did not answer textDocument/hover within 300 ms.');
    // It answers no ping either: hung, so restarted.
    setup.limits.requestTimeoutMs = 10_000;
    await answersAgain(setup, 1);
    assert.match(setup.notices.join('\n'), /stopped answering/);
  });

  it('that is only slow gives a time-limit error and is kept: it answers the ping', async (t) => {
    const setup = setUp(t, { requestTimeoutMs: 300 });
    await setup.hover('hello');
    const pid = setup.fake().pid;
    const error = await refusal(setup.hover('slow 2000'));
    assert.equal(error.code, 'language_server_timeout');
    // The ping after the time limit is answered: the server is busy, not hung.
    const { result } = await setup.hover('hello');
    assert.deepEqual(result, { contents: { kind: 'plaintext', value: 'hello' } });
    assert.equal(setup.fake().pid, pid);
    assert.equal(setup.fake().restarts, 0);
  });

  it('that floods notifications is read through, and still answers', async (t) => {
    const setup = setUp(t);
    const { result } = await setup.hover('flood');
    assert.deepEqual(result, { contents: { kind: 'plaintext', value: 'flood' } });
    assert.equal(setup.fake().restarts, 0);
  });

  it('that announces a message over the cap is stopped at once, and restarted', async (t) => {
    const setup = setUp(t, {}, { maxMessageBytes: 1024 * 1024 });
    const error = await refusal(setup.hover('huge'));
    assert.equal(error.code, 'language_server_failed');
    assert.match(error.message, /The fake language server announced a message of 10737418240 bytes, over the cap of 1048576/);
    await answersAgain(setup, 1);
  });

  it('that sends a body that is not JSON is stopped, and restarted', async (t) => {
    const setup = setUp(t);
    const error = await refusal(setup.hover('garbage'));
    assert.match(error.message, /sent a message that is not JSON/);
    await answersAgain(setup, 1);
  });

  it('that stops reading its input is stopped once a thousand messages wait for it', async (t) => {
    const setup = setUp(t);
    await setup.hover('deaf');
    // Each request gives it the file's new text first: notifications it never takes.
    const results = await Promise.allSettled(Array.from({ length: 1100 }, (_, i) => setup.hover(`text ${i}`)));
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [(result.reason as Error).message] : []));
    assert.ok(
      failures.some((message) => /stopped reading its input/.test(message)),
      failures[0],
    );
    await answersAgain(setup, 1);
  });

  it('that goes over the memory limit is restarted with a notice', { skip: process.platform !== 'linux' && 'memory is read from /proc' }, async (t) => {
    const setup = setUp(t, { memoryLimitMb: 160 });
    await setup.hover('hello');
    await waitFor(() => setup.fake().rssBytes !== undefined, undefined, 'a first look at its memory');
    assert.ok(setup.fake().rssBytes! < 160 * 1024 * 1024, `a fresh fake server takes ${setup.fake().rssBytes} bytes`);
    // The look that finds it over may come while it still allocates (its answer is lost then) or after.
    await setup.hover('memory 200').catch((error: LoomError) => assert.match(error.message, /over the limit of 160 MB/));
    await waitFor(() => setup.fake().restarts === 1, undefined, 'the restart');
    assert.match(
      setup.notices.join('\n'),
      /The fake language server used \d+ MB of memory, over the limit of 160 MB \(languageServers.memoryLimitMb\); it restarts in 1 s\./,
    );
    await answersAgain(setup, 1);
  });

  it('that cannot start keeps being retried with backoff, told three times in a row, then only by its status', async (t) => {
    const setup = setUp(t, {}, { specs: [{ ...fakeSpec, key: 'dies', launch: async () => ({ command: process.execPath, args: ['-e', 'process.exit(7)'] }) }] });
    const error = await refusal(setup.hover('hello'));
    assert.equal(error.code, 'language_server_failed');
    await waitFor(() => setup.fake().restarts >= 5, undefined, 'five failed starts');
    assert.equal(setup.notices.length, 3);
    assert.match(setup.notices[2]!, /exited with code 7; it restarts in 1 s \(further restarts are not told; its status says them\)\./);
    assert.match(setup.fake().reason!, /exited with code 7/);
    // Asked meanwhile: waiting out its backoff (unavailable), or failing to start again.
    const during = await refusal(setup.hover('hello'));
    assert.ok(['language_server_unavailable', 'language_server_failed'].includes(during.code), during.message);
  });

  it('is stopped when idle, and started again when needed', async (t) => {
    const setup = setUp(t, { idleSeconds: 60 });
    await setup.hover('hello');
    const first = setup.fake().pid;
    setup.clock.advance(59_000);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(setup.fake().state, 'running');
    setup.clock.advance(2_000);
    await waitFor(() => setup.fake().state === 'stopped', undefined, 'the idle stop');
    assert.equal(setup.fake().reason, 'idle for more than 60 s');
    assert.equal(setup.fake().restarts, 0);
    await setup.hover('hello again');
    assert.notEqual(setup.fake().pid, first);
    assert.equal(setup.starts(), 2);
  });

  it('reports diagnostics with their version; a request waits for those of the text it gave', async (t) => {
    const setup = setUp(t);
    const reports: { uri: string; diagnostics: unknown }[] = [];
    setup.manager.onDiagnostics((_server, uri, diagnostics) => reports.push({ uri, diagnostics }));
    const file = { path: 'b.txt', language: 'plaintext', text: 'first\n' };
    assert.equal(await setup.manager.settleDiagnostics(file), true);
    assert.equal(await setup.manager.settleDiagnostics({ ...file, text: 'second\n' }), true);
    const messages = reports.filter((report) => report.uri.endsWith('/b.txt')).map((report) => (report.diagnostics as { message: string }[])[0]?.message);
    assert.deepEqual(messages, ['fake: first', 'fake: second']);
  });
});
