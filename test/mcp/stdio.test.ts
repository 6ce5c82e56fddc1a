// `loom mcp` as an MCP client runs it: the SDK's stdio client spawns the real `bin/loom.js mcp`,
// which drives a running local server (startLocal on port 0, a temporary git workspace and config
// folder) through its local API. The tools are exactly the route table's `mcpTool` entries with
// the contracts' schemas; each read tool answers what the HTTP route answers to the same request;
// edits, saves, commits and agent tasks land in the app; the app's refusals come back as
// `isError` results with its error code; with no app running, the server still starts and every
// tool says to start it; stdout carries JSON-RPC and nothing else. The last test runs the real
// `loom serve` too, and `loom mcp` finds it by its port and the token it wrote for itself.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { TSchema } from 'typebox';
import { LOOM_VERSION } from '../../src/config/version.ts';
import { localRoutes, type LocalRoute } from '../../src/contracts/local-routes.ts';
import { plainSchema } from '../../src/contracts/schema-helpers.ts';
import { calls, MATH, says } from '../core/agents/support.ts';
import { cleanEnv, LOCAL_READY, ROOT, startLoom, tempDir } from '../support/cli.ts';
import { startTestLocal as startLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

type Json = Record<string, any>;

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

const BIN = path.join(ROOT, 'bin', 'loom.js');
const TOKEN = 'loom_mcp_stdio_test_token_0123456789abcdef';
/** A file for the code intelligence tools (the editing tools change src/math.ts). */
const UNITS = 'export function toMeters(feet: number): number {\n  return feet * 0.3048;\n}\n\nexport const mile = toMeters(5280);\n';
const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_SYSTEM: '/dev/null',
  GIT_AUTHOR_NAME: 'T',
  GIT_AUTHOR_EMAIL: 't@x',
  GIT_COMMITTER_NAME: 'T',
  GIT_COMMITTER_EMAIL: 't@x',
};

/** The routes the table makes tools of, in its order. */
const TOOL_ROUTES = (localRoutes as readonly LocalRoute[]).filter((route) => route.mcpTool);

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

/** The input schema the contracts give a route: its one part as it is, or the fields of several side by side. */
function expectedInputSchema(route: LocalRoute): Json {
  const parts = (['params', 'query', 'body'] as const).flatMap((key) => (route.request[key] ? [route.request[key] as TSchema] : []));
  if (parts.length === 0) return { type: 'object', properties: {}, additionalProperties: false };
  if (parts.length === 1) return plainSchema(parts[0]!);
  const plain = parts.map((part) => plainSchema(part) as { properties?: Json; required?: string[] });
  const required = plain.flatMap((part) => part.required ?? []);
  // A body that takes no other fields keeps saying so for the fields side by side.
  const closed = (route.request.body as { additionalProperties?: unknown } | undefined)?.additionalProperties === false;
  return {
    type: 'object',
    properties: Object.assign({}, ...plain.map((part) => part.properties)),
    ...(required.length ? { required } : {}),
    ...(closed ? { additionalProperties: false } : {}),
  };
}

/** The SDK's stdio client running `loom mcp ARGS…`; what reaches its stderr and any unreadable stdout is kept. */
async function connect(args: string[], env: NodeJS.ProcessEnv): Promise<{ client: Client; errors: Error[]; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd: ROOT,
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'loom-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, errors, stderr: () => stderr };
}

describe('loom mcp (SDK stdio client, the real CLI, a running local server)', () => {
  let home: string;
  let local: TestLocal;
  let fake: FakeOpenAi;
  let client: Client;
  let errors: Error[];
  let stderr: () => string;

  before(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-mcp-'));
    fake = await startFakeOpenAi();
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(home, 'ws-')));
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(path.join(workspace, 'src', 'math.ts'), MATH);
    fs.writeFileSync(path.join(workspace, 'README.md'), 'hello\n');
    fs.writeFileSync(path.join(workspace, 'src', 'units.ts'), UNITS);
    git(workspace, 'init', '-q', '-b', 'main');
    git(workspace, 'config', 'user.name', 'T');
    git(workspace, 'config', 'user.email', 't@x');
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-q', '-m', 'first');
    local = await startLocal({
      workspace,
      settings: { apiToken: TOKEN, completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } } },
    });
    ({ client, errors, stderr } = await connect(['--port', String(local.port), '--config-dir', local.configDir], cleanEnv(home)));
  });
  after(async () => {
    await client?.close();
    await local?.close();
    await fake?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  const call = async (name: string, args: Json = {}) => (await client.callTool({ name, arguments: args })) as unknown as ToolResult;
  const http = async (method: string, route: string, body?: Json) => {
    const res = await local.request(method, route, body);
    return res.json;
  };
  /** A successful result carries its answer as structuredContent and as the same JSON in text. */
  const answer = (result: ToolResult): Json => {
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.deepEqual(JSON.parse(result.content[0]!.text), result.structuredContent);
    return result.structuredContent!;
  };
  /** A failed result: isError, the local error envelope as text, nothing structured. */
  const failure = (result: ToolResult): Json => {
    assert.equal(result.isError, true, JSON.stringify(result));
    assert.equal(result.structuredContent, undefined);
    return JSON.parse(result.content[0]!.text).error;
  };

  it('initializes as the desktop app, at the latest protocol revision', () => {
    assert.deepEqual(client.getServerVersion(), { name: 'loom-desktop', title: 'Loom desktop app', version: LOOM_VERSION });
    assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
    assert.match(client.getInstructions() ?? '', /loom serve/);
    assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
  });

  it("lists exactly the route table's mcpTool entries, with the contracts' schemas", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      TOOL_ROUTES.map((route) => route.mcpTool),
    );
    for (const route of TOOL_ROUTES) {
      const tool = tools.find((candidate) => candidate.name === route.mcpTool)!;
      assert.deepEqual(tool.inputSchema, expectedInputSchema(route), route.id);
      assert.deepEqual(tool.outputSchema, plainSchema(route.success.schema), route.id);
      assert.deepEqual([tool.title, tool.description], [route.summary, route.description]);
      assert.equal(tool.annotations?.readOnlyHint, route.method === 'GET' || route.readOnly === true, route.id);
    }
    // The tools of the issue, at least.
    for (const name of [
      'get_active_file',
      'open_file',
      'insert_text',
      'replace_text',
      'save_file',
      'complete_code',
      'run_agent',
      'get_agent_status',
      'cancel_agent_task',
      'git_status',
      'git_commit',
    ])
      assert.ok(
        tools.some((tool) => tool.name === name),
        name,
      );
  });

  it('edits through the app: open, insert, replace and save land in the document and the file; each read tool answers what its route does', async () => {
    const opened = answer(await call('open_file', { path: 'src/math.ts' }));
    assert.deepEqual([opened.path, opened.active, opened.dirty], ['src/math.ts', true, false]);
    assert.deepEqual(answer(await call('get_active_file')), await http('GET', '/api/editor/file'));

    const inserted = answer(await call('insert_text', { text: '// via MCP\n', line: 1 }));
    assert.deepEqual(inserted.range, { start: { line: 1, column: 1 }, end: { line: 2, column: 1 } });
    assert.equal((await http('GET', '/api/editor/text?path=src%2Fmath.ts')).text, `// via MCP\n${MATH}`);
    const replaced = answer(await call('replace_text', { text: 'plus', startLine: 2, startColumn: 17, endLine: 2, endColumn: 20, path: 'src/math.ts' }));
    assert.equal(replaced.path, 'src/math.ts');
    const text = answer(await call('get_text', { path: 'src/math.ts' }));
    assert.deepEqual(text, await http('GET', '/api/editor/text?path=src%2Fmath.ts'));
    assert.match(text.text, /^\/\/ via MCP\nexport function plus\(/);
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src', 'math.ts'), 'utf8'), MATH, 'nothing written before save');

    const saved = answer(await call('save_file', {}));
    assert.equal(saved.dirty, false);
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src', 'math.ts'), 'utf8'), text.text);
    assert.deepEqual(answer(await call('list_documents')), await http('GET', '/api/editor/documents'));
  });

  it('git: status and branches as the routes answer them; a commit lands in the repository', async () => {
    fs.writeFileSync(path.join(local.workspace, 'README.md'), 'hello, MCP\n');
    const status = answer(await call('git_status'));
    assert.deepEqual(status, await http('GET', '/api/git/status'));
    assert.ok(JSON.stringify(status).includes('README.md'), JSON.stringify(status));
    assert.deepEqual(answer(await call('git_branches')), await http('GET', '/api/git/branches'));

    const committed = answer(await call('git_commit', { message: 'Edited through MCP', files: ['README.md'] }));
    assert.equal(git(local.workspace, 'log', '-1', '--format=%s'), 'Edited through MCP');
    assert.deepEqual([committed.commit, committed.summary, committed.files], [git(local.workspace, 'rev-parse', 'HEAD'), 'Edited through MCP', ['README.md']]);
    assert.equal(failure(await call('git_commit', { message: 'Again', files: ['README.md'] })).code, 'NOTHING_TO_COMMIT');
  });

  it("refuses what the app refuses, with the app's code: a write into .git/, a path out of the workspace, invalid arguments", async () => {
    // .git/config opens read-only; no edit reaches it.
    answer(await call('open_file', { path: '.git/config' }));
    const protectedPath = failure(await call('insert_text', { path: '.git/config', text: '[core]\n\tfsmonitor = /tmp/x\n', line: 1 }));
    assert.equal(protectedPath.code, 'PROTECTED_PATH');
    assert.equal(typeof protectedPath.message, 'string');
    assert.doesNotMatch(fs.readFileSync(path.join(local.workspace, '.git', 'config'), 'utf8'), /fsmonitor/);
    assert.equal(failure(await call('open_file', { path: '../outside.ts' })).code, 'FORBIDDEN_PATH');

    const invalid = failure(await call('insert_text', { text: 'x', line: 0 }));
    assert.equal(invalid.code, 'VALIDATION_ERROR');
    assert.equal(invalid.details[0].field, 'body.line');
    assert.equal(failure(await call('open_file', { path: 'src/math.ts', extra: true })).code, 'VALIDATION_ERROR');
    // A path parameter that is no path segment is refused before anything is sent.
    assert.equal(failure(await call('get_agent_status', { taskId: '..' })).code, 'VALIDATION_ERROR');
    assert.equal(failure(await call('get_agent_status', { taskId: 'task_nope' })).code, 'NOT_FOUND');
    assert.equal(failure(await call('run_command', { name: 'no.such.command', args: [] })).code, 'UNKNOWN_COMMAND');
    // Trusting the workspace runs the code it carries: a user's decision, never a tool's.
    assert.ok(!(await client.listTools()).tools.some((tool) => /trust/.test(tool.name)));
    // An unknown tool is a protocol error, not a tool result.
    await assert.rejects(client.callTool({ name: 'rm_rf', arguments: {} }), /Unknown tool: rm_rf/);
  });

  it('completes code as the route does', async () => {
    const body = { prompt: 'export function mul(a: number, b: number): number {\n  ', language: 'typescript', model: 'builtin' };
    const viaMcp = answer(await call('complete_code', body));
    const viaHttp = await http('POST', '/api/ai/complete', body);
    assert.deepEqual({ ...viaMcp, latencyMs: 0 }, { ...viaHttp, latencyMs: 0 });
  });

  it("agent tasks: run, status, steps and list as the routes answer them; revert undoes the task's edit; cancel stops a running one", async () => {
    fake.chat.queue(calls(['edit_file', { path: 'src/math.ts', search: '  return a - b;\n', replace: '  return b - a;\n' }]), says('Swapped.'));
    const started = answer(await call('run_agent', { task: 'Swap the operands of sub', files: ['src/**/*.ts'] }));
    const { taskId } = started;
    assert.match(taskId, /^task_/);
    await waitFor(async () => (await http('GET', `/api/agent/status/${taskId}`)).status !== 'running', undefined, 'the task ends');
    const status = answer(await call('get_agent_status', { taskId }));
    assert.deepEqual(status, await http('GET', `/api/agent/status/${taskId}`));
    assert.equal(status.status, 'completed');
    assert.match(fs.readFileSync(path.join(local.workspace, 'src', 'math.ts'), 'utf8'), /return b - a;/);
    assert.deepEqual(answer(await call('get_agent_steps', { taskId, after: 1 })), await http('GET', `/api/agent/steps/${taskId}?after=1`));
    assert.deepEqual(answer(await call('list_agent_tasks', { limit: 5 })), await http('GET', '/api/agent/tasks?limit=5'));

    const reverted = answer(await call('revert_agent_task', { taskId }));
    assert.equal(typeof reverted.revertedAt, 'string');
    assert.match(fs.readFileSync(path.join(local.workspace, 'src', 'math.ts'), 'utf8'), /return a - b;/);

    fake.chat.queue({ kind: 'text', text: 'Thinking…', hold: true });
    const held = fake.chat.held();
    const running = answer(await call('run_agent', { task: 'Think for a long time', files: ['src/**'] }));
    await held;
    const cancelled = answer(await call('cancel_agent_task', { taskId: running.taskId }));
    assert.equal(cancelled.status, 'cancelled');
    fake.chat.release();
  });

  it("code intelligence: the index's tools answer what their routes do; what needs a language server says none runs; a rename preview applies", async () => {
    await local.code.refresh();
    const status = answer(await call('code_index_status', {}));
    assert.equal((status.index as Json).state, 'ready');
    const symbols = answer(await call('find_symbols', { query: 'tometers' }));
    assert.deepEqual(symbols, await http('GET', '/api/code/symbols?query=tometers'));
    assert.equal((symbols.symbols as Json[])[0]!.path, 'src/units.ts');
    const files = answer(await call('find_files', { query: 'units' }));
    assert.equal((files.files as Json[])[0]!.path, 'src/units.ts');
    const found = answer(await call('search_text', { pattern: 'toMeters(', include: ['src/**'] }));
    assert.equal(found.matchCount, 2);
    const definition = answer(await call('go_to_definition', { path: 'src/units.ts', line: 5, column: 21 }));
    assert.equal(definition.source, 'index');
    assert.deepEqual(
      (definition.locations as Json[]).map((location) => [location.path, location.range]),
      [['src/units.ts', { start: { line: 1, column: 17 }, end: { line: 1, column: 25 } }]],
    );
    const references = answer(await call('find_references', { path: 'src/units.ts', line: 1, column: 17 }));
    assert.equal((references.locations as Json[]).length, 2);
    const located = answer(await call('locate_files', { task: 'toMeters rounds feet wrongly', limit: 3 }));
    assert.equal((located.files as Json[])[0]!.path, 'src/units.ts');
    const map = answer(await call('repository_map', { focus: ['src/units.ts'], tokens: 100 }));
    assert.match(map.text as string, /^src\/units\.ts\n\s+1│export function toMeters/);
    assert.ok(answer(await call('search_code', { query: 'meters' })));
    assert.deepEqual(answer(await call('list_problems', {})), { files: [], counts: { error: 0, warning: 0, information: 0, hint: 0 } });
    const noServer = failure(await call('get_diagnostics', { path: 'src/units.ts' }));
    assert.equal(noServer.code, 'LANGUAGE_SERVER_UNAVAILABLE');
    assert.equal(failure(await call('go_to_definition', { path: '../x.ts', line: 1, column: 1 })).code, 'FORBIDDEN_PATH');
    assert.equal(failure(await call('go_to_definition', { path: 'src/units.ts', line: 1 })).code, 'VALIDATION_ERROR');

    // A preview (here written by hand: no language server runs) applies through the app.
    const { createHash } = await import('node:crypto');
    const sha256 = createHash('sha256').update(UNITS).digest('hex');
    const range = (line: number, from: number, to: number) => ({ start: { line, column: from }, end: { line, column: to } });
    const edits = [
      { range: range(1, 17, 25), newText: 'feetToMeters' },
      { range: range(5, 21, 29), newText: 'feetToMeters' },
    ];
    const applied = answer(await call('apply_rename', { files: [{ path: 'src/units.ts', base: { kind: 'disk', sha256 }, edits }] }));
    assert.deepEqual(applied, { files: [{ path: 'src/units.ts', to: 'disk' }] });
    assert.match(fs.readFileSync(path.join(local.workspace, 'src', 'units.ts'), 'utf8'), /export const mile = feetToMeters\(5280\);/);
    const stale = failure(await call('apply_rename', { files: [{ path: 'src/units.ts', base: { kind: 'disk', sha256 }, edits }] }));
    assert.equal(stale.code, 'VERSION_CONFLICT');
  });

  it('reads the token at each call: after a rotation, calls go on', async () => {
    const rotated = 'loom_mcp_stdio_rotated_token_abcdef0123456789';
    const settings = JSON.parse(fs.readFileSync(path.join(local.configDir, 'settings.json'), 'utf8'));
    fs.writeFileSync(path.join(local.configDir, 'settings.json'), JSON.stringify({ ...settings, apiToken: rotated }), { mode: 0o600 });
    await waitFor(() => local.token() === rotated, undefined, 'the server takes the new token');
    assert.equal(answer(await call('git_status')).branch, 'main');
  });

  it('wrote nothing but JSON-RPC to stdout, and nothing to stderr', () => {
    assert.deepEqual(
      errors.map((error) => error.message),
      [],
    );
    assert.equal(stderr(), '');
  });
});

describe('loom mcp with no app running', () => {
  /** A port nothing listens on. */
  async function closedPort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  /**
   * Runs `loom mcp` on raw stdio: writes the messages, reads answers until `expected` came, then
   * closes stdin; with `expected` 0, closes stdin at once, as `printf … | loom mcp` does.
   */
  async function rawSession(args: string[], env: NodeJS.ProcessEnv, messages: (Json | Json[] | string)[], expected: number) {
    const child = spawn(process.execPath, [BIN, 'mcp', ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    for (const message of messages) child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    if (expected > 0) await waitFor(() => stdout.split('\n').filter(Boolean).length >= expected, 60_000, `${expected} answers`);
    child.stdin.end();
    const code = await exited;
    return { code, stdout, stderr };
  }

  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

  it('still starts; initialize and tools/list work; every tool answers isError saying to run `loom serve`; it exits when stdin closes; stdout is only JSON-RPC', async (t) => {
    const home = tempDir(t, 'loom-mcp-off-');
    const configDir = path.join(home, 'cfg');
    fs.mkdirSync(configDir, { mode: 0o700 });
    fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify({ apiToken: TOKEN }), { mode: 0o600 });
    const port = await closedPort();
    const { code, stdout, stderr } = await rawSession(
      ['--port', String(port), '--config-dir', configDir],
      cleanEnv(home),
      [
        initialize,
        initialized,
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_active_file', arguments: {} } },
      ],
      3,
    );
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '');
    assert.ok(stdout.endsWith('\n'));
    const answers = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    for (const message of answers) assert.equal(message.jsonrpc, '2.0');
    const byId = new Map(answers.map((message) => [message.id, message]));
    assert.equal(byId.get(1)!.result.serverInfo.name, 'loom-desktop');
    assert.equal(byId.get(2)!.result.tools.length, TOOL_ROUTES.length);
    const result = byId.get(3)!.result as ToolResult;
    assert.equal(result.isError, true);
    const { error } = JSON.parse(result.content[0]!.text);
    assert.equal(error.code, 'UNREACHABLE');
    assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.match(error.hint, /`loom serve`/);
  });

  it('a line that is not JSON is -32700 Parse error (id null) and stops nothing; --verbose reports it on stderr', async (t) => {
    const home = tempDir(t, 'loom-mcp-bad-');
    for (const verbose of [false, true]) {
      const { code, stdout, stderr } = await rawSession(
        ['--config-dir', path.join(home, 'cfg'), ...(verbose ? ['--verbose'] : [])],
        cleanEnv(home),
        ['not json', '{"jsonrpc":"2.0","id":7,"method":"ping"}'],
        0,
      );
      assert.equal(code, 0);
      assert.deepEqual(
        stdout
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line)),
        [
          { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid JSON.' } },
          { jsonrpc: '2.0', id: 7, result: {} },
        ],
      );
      if (verbose) assert.equal(stderr, 'loom: mcp: Parse error: the line is not valid JSON.\n');
      else assert.equal(stderr, '');
    }
  });

  it('answers what it cannot take with a JSON-RPC error and goes on serving: a message over 10 MiB, a batch, ids out of range, no JSON-RPC', async (t) => {
    const home = tempDir(t, 'loom-mcp-hostile-');
    const huge = 'x'.repeat(11 * 1024 * 1024);
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const { code, stdout, stderr } = await rawSession(
      ['--config-dir', path.join(home, 'cfg')],
      cleanEnv(home),
      [
        // An 11 MB insert_text, which the local API would take: its id is in its first bytes, then not.
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'insert_text', arguments: { text: huge } } },
        { jsonrpc: '2.0', method: 'tools/call', params: { name: 'insert_text', arguments: { text: huge } }, id: 2 },
        ping(3),
        '{"jsonrpc":"2.0","id":4,"method":"ping"',
        ping(5),
        [ping(6), ping(7)],
        ping(8),
        '{"jsonrpc":"2.0","id":1e308,"method":"ping"}',
        '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
        '{"jsonrpc":"2.0","id":null,"method":"ping"}',
        ping(9),
        { jsonrpc: '2.0', id: 10, method: 42 },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: 'not an object' },
        '',
        ping(11),
      ],
      13,
    );
    assert.equal(code, 0, stderr);
    const answers = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    assert.deepEqual(
      answers.filter((answer) => answer.result).map((answer) => answer.id),
      [3, 5, 8, 9, 11],
      'each request after a refused one is answered',
    );
    const refusals = answers.filter((answer) => answer.error).map((answer) => [answer.id, answer.error.code, answer.error.message]);
    const tooLarge = 'Invalid Request: the message is larger than 10485760 bytes, the most loom mcp reads.';
    const badId = 'Invalid Request: the id must be a string or an integer from -(2^53 - 1) to 2^53 - 1.';
    assert.deepEqual(refusals, [
      [1, -32600, tooLarge],
      [null, -32600, tooLarge],
      [null, -32700, 'Parse error: the line is not valid JSON.'],
      [null, -32600, 'Invalid Request: batches are not supported; send one message per line.'],
      [null, -32600, badId],
      [null, -32600, badId],
      [null, -32600, badId],
      [10, -32600, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response that MCP allows.'],
    ]);
    assert.equal(answers.length, 5 + refusals.length, 'the notification that cannot be read is not answered');
  });

  it('params a method does not take are -32602 Invalid params naming them, and the session goes on', async (t) => {
    const home = tempDir(t, 'loom-mcp-params-');
    const { code, stdout, stderr } = await rawSession(
      ['--config-dir', path.join(home, 'cfg')],
      cleanEnv(home),
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'git_status', arguments: '{}' } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { arguments: {} } },
        { jsonrpc: '2.0', id: 3, method: 'initialize', params: {} },
        { jsonrpc: '2.0', id: 4, method: 'ping' },
      ],
      0,
    );
    assert.equal(code, 0, stderr);
    const byId = new Map(
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Json)
        .map((message) => [message.id, message]),
    );
    for (const [id, field] of [
      [1, 'tools/call: params.arguments'],
      [2, 'tools/call: params.name'],
      [3, 'initialize: params.protocolVersion'],
    ] as const) {
      assert.equal(byId.get(id)!.error.code, -32602, JSON.stringify(byId.get(id)));
      assert.ok(byId.get(id)!.error.message.startsWith(`Invalid params of ${field}: `), byId.get(id)!.error.message);
    }
    assert.deepEqual(byId.get(4)!.result, {});
  });

  it('a config folder the app never ran with: the tools say so and to start the app', async (t) => {
    const home = tempDir(t, 'loom-mcp-none-');
    const configDir = path.join(home, 'never');
    const { code, stdout } = await rawSession(
      ['--config-dir', configDir],
      cleanEnv(home),
      [initialize, initialized, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'git_status', arguments: {} } }],
      2,
    );
    assert.equal(code, 0);
    const result = JSON.parse(stdout.trimEnd().split('\n')[1]!).result as ToolResult;
    const { error } = JSON.parse(result.content[0]!.text);
    assert.deepEqual([result.isError, error.code], [true, 'UNREACHABLE']);
    assert.match(error.message, /No settings\.json in .*never/);
    assert.match(error.hint, /`loom serve`/);
    assert.equal(fs.existsSync(configDir), false, 'loom mcp creates no config folder');
  });

  it('LOOM_LOCAL_URL and LOOM_LOCAL_TOKEN point it at an app; input that ends at once still gets its answers; a bad --url is a usage error', async (t) => {
    const home = tempDir(t, 'loom-mcp-env-');
    const local = await startLocal({ settings: { apiToken: TOKEN } });
    t.after(() => local.close());
    const { code, stdout } = await rawSession(
      ['--config-dir', path.join(home, 'elsewhere')],
      cleanEnv(home, { LOOM_LOCAL_URL: `http://127.0.0.1:${local.port}`, LOOM_LOCAL_TOKEN: TOKEN }),
      [initialize, initialized, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_documents', arguments: {} } }],
      0,
    );
    assert.equal(code, 0);
    const result = JSON.parse(stdout.trimEnd().split('\n')[1]!).result as ToolResult;
    assert.deepEqual(result.structuredContent, (await local.request('GET', '/api/editor/documents')).json);

    const bad = spawn(process.execPath, [BIN, 'mcp', '--url', 'ftp://127.0.0.1'], { cwd: ROOT, env: cleanEnv(home), stdio: ['pipe', 'pipe', 'pipe'] });
    let badErr = '';
    let badOut = '';
    bad.stderr.setEncoding('utf8').on('data', (chunk: string) => (badErr += chunk));
    bad.stdout.setEncoding('utf8').on('data', (chunk: string) => (badOut += chunk));
    const badCode = await new Promise<number | null>((resolve) => bad.on('close', (code) => resolve(code)));
    assert.equal(badCode, 2);
    assert.equal(badOut, '');
    assert.match(badErr, /^loom: --url: "ftp:\/\/127\.0\.0\.1" is not an http or https URL\./);
  });
});

describe('loom mcp against `loom serve` started as a user starts it', () => {
  it('finds the token serve made for itself in the config folder, and edits, saves and commits through it', async (t) => {
    const home = tempDir(t, 'loom-mcp-serve-');
    const workspace = path.join(home, 'ws');
    const configDir = path.join(home, 'config');
    fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'src', 'math.ts'), MATH);
    git(workspace, 'init', '-q', '-b', 'main');
    git(workspace, 'config', 'user.name', 'T');
    git(workspace, 'config', 'user.email', 't@x');
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-q', '-m', 'first');
    const env = cleanEnv(home);
    // No settings.json beforehand: serve writes one with a token of its own.
    const server = await startLoom(t, ['serve', '--workspace', workspace, '--config-dir', configDir, '--port', '0'], env, 120_000, LOCAL_READY);
    const { client, stderr } = await connect(['--port', new URL(server.url).port, '--config-dir', configDir], env);
    t.after(() => client.close());
    const call = async (name: string, args: Json = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as unknown as ToolResult;
      assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result)}`);
      return result.structuredContent!;
    };

    assert.equal((await call('open_file', { path: 'src/math.ts' })).path, 'src/math.ts');
    assert.equal((await call('get_active_file')).path, 'src/math.ts');
    await call('insert_text', { text: '// Edited through loom mcp\n', line: 1, column: 1 });
    await call('save_file');
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'math.ts'), 'utf8'), `// Edited through loom mcp\n${MATH}`);
    assert.deepEqual(
      ((await call('git_status')).files as { path: string }[]).map((file) => file.path),
      ['src/math.ts'],
    );
    await call('git_commit', { message: 'Edited through loom mcp' });
    assert.equal(git(workspace, 'log', '-1', '--format=%s'), 'Edited through loom mcp');
    assert.equal(stderr(), '');
  });
});
