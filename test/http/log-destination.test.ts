// The servers' log destination (src/http/log-destination.ts): asynchronous, batched writes that
// lose nothing, whether the server closes, the process exits at once, or it ends on its own; and
// `loom hosted` writes one JSON line per request on stdout, all of them out before it exits.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AsyncLogDestination } from '../../src/http/log-destination.ts';
import { cleanEnv, ROOT, startLoom, tempDir } from '../support/cli.ts';

/** Runs an ES module snippet (TypeScript imports allowed) in a child process; resolves with its stdout. */
function runSnippet(code: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ code: exitCode, stdout, stderr }));
  });
}

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `{"line":${i}}`);

describe('the asynchronous log destination', () => {
  it('writes every line, in order, by the time flush() resolves', async (t) => {
    const file = path.join(tempDir(t), 'server.log');
    const destination = new AsyncLogDestination(file);
    const lines = numbered(20_000);
    // Lines larger than a batch, and ones that are not ASCII, among them.
    lines.splice(5_000, 0, `{"long":"${'x'.repeat(200_000)}"}`, `{"text":"${'é€😀'.repeat(10_000)}"}`);
    for (const line of lines) destination.write(`${line}\n`);
    await destination.flush();
    assert.deepEqual(fs.readFileSync(file, 'utf8').trimEnd().split('\n'), lines);
    destination.write('{"line":"after"}\n');
    await destination.flush();
    assert.equal(fs.readFileSync(file, 'utf8').trimEnd().split('\n').at(-1), '{"line":"after"}');
  });

  it('loses nothing when the process exits at once after logging', async () => {
    const result = await runSnippet(`
      import { stdoutLog } from './src/http/log-destination.ts';
      const log = stdoutLog();
      for (let i = 0; i < 20000; i++) log.write('{"line":' + i + '}\\n');
      process.exit(0);
    `);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.stdout.trimEnd().split('\n'), numbered(20_000));
  });

  it('at exit, waits for room in a full pipe (EAGAIN) rather than dropping the last batch', (t) => {
    // A reader that is behind leaves a non-blocking pipe full: the exit's synchronous write is
    // refused with EAGAIN until it reads. (Seen as lost lines under load, on Node 20 and 24.)
    const file = path.join(tempDir(t), 'exit.log');
    const destination = new AsyncLogDestination(file);
    const atExit = (destination as unknown as { writeAtExit(): void }).writeAtExit;
    t.after(() => void process.removeListener('exit', atExit));
    destination.write('{"line":0}\n'); // still in the batch: its timer has not fired
    const writeSync = fs.writeSync;
    let refusals = 3;
    t.mock.method(fs, 'writeSync', (...args: Parameters<typeof fs.writeSync>) => {
      if (refusals-- > 0) throw Object.assign(new Error('EAGAIN: resource temporarily unavailable, write'), { code: 'EAGAIN' });
      return (writeSync as (...a: unknown[]) => number)(...args);
    });
    atExit();
    t.mock.restoreAll();
    assert.equal(refusals, -1, 'written once the pipe had room');
    assert.equal(fs.readFileSync(file, 'utf8'), '{"line":0}\n');
  });

  it('loses nothing when the process ends on its own after logging', async () => {
    const result = await runSnippet(`
      import { stdoutLog } from './src/http/log-destination.ts';
      stdoutLog().write('{"line":0}\\n');
    `);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '{"line":0}\n');
  });

  it('loom hosted logs one JSON line per request on stdout, all written before it exits on SIGTERM', async (t) => {
    const home = tempDir(t);
    const server = await startLoom(t, ['hosted', '--port', '0', '--data-dir', path.join(home, 'data')], cleanEnv(home));
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${server.url}/api/v1/health`)).status, 200);
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    const requests = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'request');
    assert.equal(requests.length, 3);
    for (const line of requests) {
      assert.deepEqual(Object.keys(line).sort(), ['hostname', 'level', 'method', 'ms', 'msg', 'pid', 'reqId', 'route', 'status', 'time']);
      assert.equal(line.route, '/api/v1/health');
      assert.equal(line.status, 200);
    }
  });
});
