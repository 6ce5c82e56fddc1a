// The window's terminal, end to end on the real server (`startLocal`, the production wiring) and
// a real shell in a pseudo-terminal: it runs in the workspace folder and echoes through the
// socket; it resizes; several run side by side; closing the socket ends the shell and what it
// started; a window that stops reading pauses the shell instead of filling memory. And who may
// open one (docs/security.md, "Who may run code"): the signed-in window of a trusted workspace
// only — never the token, a window signed in with the token, a page without the session's
// ticket or Origin, or an untrusted workspace. What the terminal shows never reaches the log,
// the event stream or a webhook.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it, type TestContext } from 'node:test';
import WebSocket from 'ws';
import { OUTPUT_HIGH_WATER } from '../../src/local/terminal/terminals.ts';
import { signInWindow, type WindowHeaders } from '../support/agent-local.ts';
import { startTestLocal, type TestLocal, type TestLocalOptions } from '../support/local.ts';
import { captureLog } from '../support/log-lines.ts';
import { buyTicket, connectTerminal, running, upgradeHeaders, type TerminalClient } from '../support/terminal.ts';
import { waitFor } from '../support/wait.ts';

/** A bash without the user's profile and rc files: what it prints is only what the test types. */
const SHELL_ENV = { SHELL: '/bin/bash' };

async function serve(t: TestContext, options: TestLocalOptions = {}): Promise<TestLocal> {
  const previous = process.env['SHELL'];
  process.env['SHELL'] = SHELL_ENV.SHELL;
  t.after(() => (previous === undefined ? delete process.env['SHELL'] : (process.env['SHELL'] = previous)));
  const local = await startTestLocal(options);
  t.after(() => local.close());
  return local;
}

async function trustedWindow(local: TestLocal): Promise<WindowHeaders> {
  const window = await signInWindow(local, 'link');
  const trusted = await local.request('POST', '/api/workspace/trust', { trusted: true }, window);
  assert.equal(trusted.status, 200, trusted.text);
  return window;
}

async function openTerminal(t: TestContext, local: TestLocal, window: WindowHeaders): Promise<TerminalClient> {
  const ticket = await buyTicket(local, window);
  assert.equal(ticket.status, 200, JSON.stringify(ticket.json));
  const { client, status } = await connectTerminal(local, ticket.json.ticket, upgradeHeaders(local, window));
  assert.ok(client && !client.closed, `the terminal did not open (status ${status}, closed ${JSON.stringify(client?.closed)})`);
  t.after(() => client.socket.terminate());
  return client;
}

describe('local API: the terminal', () => {
  it('runs a shell in the workspace folder, echoes through the socket, resizes, and keeps several apart', async (t) => {
    const local = await serve(t);
    const window = await trustedWindow(local);
    const one = await openTerminal(t, local, window);
    const two = await openTerminal(t, local, window);
    assert.equal(one.messages[0].type, 'ready');
    assert.equal(local.terminals.stats().open, 2);

    // printf's format keeps the marker out of the echo of what was typed.
    one.type(`printf 'c%sd=%s\\n' w "$PWD"\r`);
    const [, cwd] = await one.see(/cwd=(.+)\r\n/);
    assert.equal(cwd, fs.realpathSync(local.workspace));
    two.type(`printf 'two%s\\n' ' says hi'\r`);
    await two.see(/two says hi/);
    assert.doesNotMatch(one.output(), /two says hi/);

    one.resize(123, 45);
    one.type(`printf 's%se=%s\\n' iz "$(stty size)"\r`);
    await one.see(/size=45 123/);

    // The shell's exit closes the socket, saying how it ended.
    two.type('exit 3\r');
    await waitFor(() => two.closed !== undefined, undefined, 'the socket closing');
    assert.deepEqual(two.messages.at(-1), { type: 'exit', exitCode: 3 });
    assert.equal(two.closed!.code, 1000);
    await waitFor(() => local.terminals.stats().open === 1, undefined, 'one terminal left');
  });

  it('closing the socket ends the shell and every process of its session', async (t) => {
    const local = await serve(t);
    const window = await trustedWindow(local);
    const client = await openTerminal(t, local, window);
    // A job of its own (job control puts it in its own process group) and one in the foreground's group.
    client.type(`sleep 1000 & printf 'job=%s shell=%s\\n' "$!" "$$"\r`);
    const [, job, shell] = await client.see(/job=(\d+) shell=(\d+)/);
    client.type(`(sleep 1001 & printf 'sub=%s\\n' "$!"; wait)\r`);
    const [, sub] = await client.see(/sub=(\d+)/);
    const pids = [job, shell, sub].map(Number);
    for (const pid of pids) assert.ok(running(pid), `${pid} runs`);

    client.socket.close();
    await waitFor(() => pids.every((pid) => !running(pid)), undefined, `the end of ${pids.join(', ')}`);
    await waitFor(() => local.terminals.stats().open === 0, undefined, 'no terminal left');
  });

  it('pauses the shell while the window does not read, and resumes it when it does', async (t) => {
    const local = await serve(t);
    const window = await trustedWindow(local);
    const client = await openTerminal(t, local, window);
    // The window stops reading: its socket's receive buffer fills, then the server's send buffer
    // (a few MB each on loopback), then what the server holds, and the shell is paused.
    client.socket.pause();
    // Output without end: however large the buffers on the way, the shell is paused in the end.
    client.type(`yes 0123456789 | tr -d '\\n'\r`);
    await waitFor(() => local.terminals.stats().paused === 1, undefined, 'the shell paused');
    // What waits in the server is bounded: the high-water mark and one read of the pseudo-terminal.
    assert.ok(local.terminals.stats().maxOutstanding <= OUTPUT_HIGH_WATER + 64 * 1024, `waiting: ${local.terminals.stats().maxOutstanding}`);
    // Ctrl+C reaches the shell's foreground job while its output waits; then the window reads again.
    client.type('\x03');
    client.socket.resume();
    client.type(`printf 'end%s\\n' ed\r`);
    await client.see(/ended/);
    await waitFor(() => local.terminals.stats().paused === 0, undefined, 'the shell resumed');
  });

  it('stops reading the socket while the shell does not take its input, and ends it on close', async (t) => {
    const local = await serve(t);
    const window = await trustedWindow(local);
    const client = await openTerminal(t, local, window);
    client.type(`printf 's%sp\\n' lee; sleep 1000\r`);
    await client.see(/sleep\r\n/);
    // The terminal's input queue holds a few KB; the rest of a 2 MB paste waits in the server, up to a bound.
    const piece = 'y'.repeat(32 * 1024);
    for (let i = 0; i < 64; i++) client.type(piece);
    await waitFor(() => local.terminals.stats().inputPaused === 1, undefined, 'the socket paused');
    client.socket.close();
    await waitFor(() => local.terminals.stats().open === 0, undefined, 'the terminal ending');
  });

  it('is refused to the token (403 WINDOW_REQUIRED), to a window signed in with it, without the session, its ticket or the Origin', async (t) => {
    const local = await serve(t);
    const window = await trustedWindow(local);
    const port = local.port;

    // The bare token — scripts, extensions, MCP clients — never buys a ticket…
    const byToken = await buyTicket(local, {});
    assert.deepEqual([byToken.status, byToken.json.error.code], [403, 'WINDOW_REQUIRED']);
    assert.match(byToken.json.error.hint, /loom serve --open/);
    // …nor opens the socket with it.
    const valid = (await buyTicket(local, window)).json.ticket;
    const withToken = await connectTerminal(local, valid, { authorization: `Bearer ${local.token()}`, origin: `http://127.0.0.1:${port}` });
    assert.deepEqual([withToken.status, withToken.json?.error.code], [403, 'WINDOW_REQUIRED']);
    // A window signed in with the token: anything holding the token could sign in so.
    const tokenWindow = await signInWindow(local, 'token');
    const byTokenWindow = await buyTicket(local, tokenWindow);
    assert.deepEqual([byTokenWindow.status, byTokenWindow.json.error.code], [403, 'WINDOW_REQUIRED']);
    assert.deepEqual((await connectTerminal(local, valid, upgradeHeaders(local, tokenWindow))).status, 403);
    // Without its CSRF value, the window's cookie buys nothing (another page of the browser).
    const noProof = await buyTicket(local, { ...window, 'x-loom-csrf': '' });
    assert.deepEqual([noProof.status, noProof.json.error.code], [403, 'FORBIDDEN']);
    // No credentials at all.
    assert.equal((await buyTicket(local, { authorization: '' })).status, 401);

    // The upgrade: without Origin, from another, without the cookie, with a made-up or another session's ticket.
    const other = await signInWindow(local, 'link');
    const othersTicket = (await buyTicket(local, other)).json.ticket;
    const cases: [string, string, Record<string, string>, number][] = [
      ['no Origin', (await buyTicket(local, window)).json.ticket, { cookie: window['cookie']! }, 403],
      ['a foreign Origin', (await buyTicket(local, window)).json.ticket, { cookie: window['cookie']!, origin: 'http://evil.example' }, 403],
      ['no cookie', (await buyTicket(local, window)).json.ticket, { origin: `http://127.0.0.1:${port}` }, 401],
      ['a made-up ticket', 'x'.repeat(32), upgradeHeaders(local, window), 401],
      ["another session's ticket", othersTicket, upgradeHeaders(local, window), 401],
    ];
    for (const [what, ticket, headers, status] of cases) {
      assert.equal((await connectTerminal(local, ticket, headers)).status, status, what);
    }
    // The other session's ticket was spent by the refused try: it no longer opens its own session's terminal.
    assert.equal((await connectTerminal(local, othersTicket, upgradeHeaders(local, other))).status, 401);
    // A ticket opens one terminal, once.
    const once = (await buyTicket(local, window)).json.ticket;
    const first = await connectTerminal(local, once, upgradeHeaders(local, window));
    assert.ok(first.client && !first.client.closed);
    t.after(() => first.client!.socket.terminate());
    assert.equal((await connectTerminal(local, once, upgradeHeaders(local, window))).status, 401);
    // An event ticket (the token buys those) opens no terminal.
    const eventTicket = (await local.request('POST', '/api/events/ticket')).json.ticket;
    assert.equal((await connectTerminal(local, eventTicket, upgradeHeaders(local, window))).status, 401);
    // Without an upgrade, the path says what it is.
    const plain = await local.request('GET', '/terminal', undefined, { authorization: '', cookie: window['cookie']!, origin: `http://127.0.0.1:${port}` });
    assert.deepEqual([plain.status, plain.json.error.code], [426, 'UPGRADE_REQUIRED']);
    assert.equal(local.terminals.stats().open, 1);
  });

  it('is refused in an untrusted workspace (403 WORKSPACE_UNTRUSTED), also when trust goes between the ticket and the socket', async (t) => {
    const local = await serve(t);
    const window = await signInWindow(local, 'link');
    const untrusted = await buyTicket(local, window);
    assert.deepEqual([untrusted.status, untrusted.json.error.code], [403, 'WORKSPACE_UNTRUSTED']);
    assert.match(untrusted.json.error.hint, /Trust the workspace/);

    assert.equal((await local.request('POST', '/api/workspace/trust', { trusted: true }, window)).status, 200);
    const ticket = (await buyTicket(local, window)).json.ticket;
    assert.equal((await local.request('POST', '/api/workspace/trust', { trusted: false }, window)).status, 200);
    const { client } = await connectTerminal(local, ticket, upgradeHeaders(local, window));
    assert.deepEqual(client?.closed, { code: 4403, reason: 'WORKSPACE_UNTRUSTED: a terminal runs only in a trusted workspace' });
    assert.equal(local.terminals.stats().open, 0);
  });

  it('closes the terminals already open when trust is taken back (4403), and ends their shells', async (t) => {
    const local = await serve(t);
    const window = await trustedWindow(local);
    const client = await openTerminal(t, local, window);
    client.type(`printf 'r%sy\\n' ead\r`);
    await client.see(/ready/);
    assert.equal((await local.request('POST', '/api/workspace/trust', { trusted: false }, window)).status, 200);
    await waitFor(() => client.closed !== undefined, undefined, 'the terminal closing');
    assert.deepEqual(client.closed, { code: 4403, reason: 'WORKSPACE_UNTRUSTED: a terminal runs only in a trusted workspace' });
    await waitFor(() => local.terminals.stats().open === 0, undefined, 'no terminal left');
  });

  it('ends with the window session: signing out closes its terminals (4401) and ends their shells', async (t) => {
    const local = await serve(t);
    const window = await trustedWindow(local);
    const client = await openTerminal(t, local, window);
    client.type(`printf 'shell=%s\\n' "$$"\r`);
    const shell = Number((await client.see(/shell=(\d+)/))[1]);
    assert.equal((await local.request('POST', '/api/session/end', undefined, window)).status, 200);
    await waitFor(() => client.closed !== undefined, undefined, 'the socket closing');
    assert.deepEqual(client.closed, { code: 4401, reason: 'SIGNED_OUT: the window signed out' });
    await waitFor(() => !running(shell), undefined, 'the shell ending');
  });

  it('never logs, emits or sends to a webhook what the terminal shows or is sent', async (t) => {
    const log = captureLog();
    const local = await serve(t, { log });
    const window = await trustedWindow(local);
    const seen: string[] = [];
    const eventTicket = (await local.request('POST', '/api/events/ticket')).json.ticket;
    const events = new WebSocket(`ws://127.0.0.1:${local.port}/events?ticket=${eventTicket}`);
    t.after(() => events.terminate());
    events.on('message', (data) => seen.push(String(data)));
    await waitFor(() => seen.length > 0, undefined, 'the hello');

    const client = await openTerminal(t, local, window);
    client.type(`printf 'SECRET%s\\n' _OUTPUT_7f3a; echo TYPED_INPUT_9c2e >/dev/null\r`);
    await client.see(/SECRET_OUTPUT_7f3a/);
    client.socket.close();
    await waitFor(() => local.terminals.stats().open === 0, undefined, 'the terminal ending');
    // A request after it: its line is written, so the log has caught up with the terminal's.
    await local.request('GET', '/api/health');
    await waitFor(() => log.text().some((line) => line.includes('/api/health')), undefined, 'the health line');

    const everything = [...log.text(), ...seen, JSON.stringify((await local.request('GET', '/api/webhooks/deliveries')).json)];
    for (const secret of ['SECRET_OUTPUT_7f3a', 'TYPED_INPUT_9c2e', '_OUTPUT_7f3a']) {
      for (const line of everything) assert.ok(!line.includes(secret), `${secret} in: ${line}`);
    }
    // The upgrade was logged as a request to its route, with no query (no ticket).
    assert.ok(log.lines().some((line) => line['route'] === '/terminal'));
    assert.ok(log.text().every((line) => !line.includes('ticket=')));
  });
});
