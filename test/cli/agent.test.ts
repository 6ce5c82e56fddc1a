// `loom agent` as a user runs it: the real CLI against a real `loom serve` subprocess whose
// settings.json points `completion.openai` at the scripted OpenAI-compatible server (in this
// process). run --watch prints the edit as a diff and exits 0; --json --watch prints NDJSON; a
// task that fails exits non-zero; status, list, steps and revert work on what it did.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { calls, MATH, says } from '../core/agents/support.ts';
import { cleanEnv, hasStackTrace, LOCAL_READY, runLoom, startLoom, tempDir } from '../support/cli.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';

const TOKEN = 'loom_cli_agent_test_token_0123456789abcdef';
const SWAP = () => calls(['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]);

interface Served {
  fake: FakeOpenAi;
  workspace: string;
  /** `loom agent ARGS… --port … --config-dir …` against the server. */
  agent(...args: string[]): ReturnType<typeof runLoom>;
}

async function serve(t: TestContext): Promise<Served> {
  const home = tempDir(t);
  const workspace = path.join(home, 'ws');
  const configDir = path.join(home, 'loom-config');
  fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'src', 'math.ts'), MATH);
  const fake = await startFakeOpenAi();
  t.after(() => fake.close());
  fs.mkdirSync(configDir, { mode: 0o700 });
  fs.writeFileSync(
    path.join(configDir, 'settings.json'),
    JSON.stringify({ apiToken: TOKEN, completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } } }),
    { mode: 0o600 },
  );
  const env = cleanEnv(home);
  const server = await startLoom(t, ['serve', '--workspace', workspace, '--config-dir', configDir, '--port', '0'], env, 60_000, LOCAL_READY);
  const port = new URL(server.url).port;
  return { fake, workspace, agent: (...args) => runLoom(['agent', ...args, '--port', port, '--config-dir', configDir], env) };
}

describe('loom agent', () => {
  it('run --watch prints the steps and the edit as a diff, ends with the status and exits 0; status, list, steps and revert follow', async (t) => {
    const { fake, workspace, agent } = await serve(t);
    fake.chat.queue(SWAP(), says('Swapped the operands.'));
    const run = await agent('run', 'Swap the operands of add', '--files', 'src/**/*.ts', '--watch');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^task_\w+ running \(estimated \d+ s\)\n/);
    assert.match(run.stdout, /edit_file ok/);
    assert.match(run.stdout, /-  return a \+ b;\n\+  return b \+ a;/);
    assert.match(run.stdout, /task_\w+ completed: 2 steps, \d+ tokens, model fake-coder\n/);
    assert.match(run.stdout, /summary: Swapped the operands\.\n/);
    assert.match(run.stdout, / {4}modified src\/math\.ts\n/);
    const taskId = /^(task_\w+)/.exec(run.stdout)![1]!;
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'math.ts'), 'utf8'), MATH.replace('a + b', 'b + a'));

    const status = await agent('status', taskId, '--json');
    assert.equal(status.code, 0, status.stderr);
    const body = JSON.parse(status.stdout);
    assert.deepEqual([body.status, body.changes[0].file, body.changes[0].action], ['completed', 'src/math.ts', 'modified']);
    const shown = await agent('status', taskId);
    assert.match(shown.stdout, /\+  return b \+ a;/, 'the status shows the diff');
    const list = await agent('list');
    assert.match(list.stdout, new RegExp(`^ID +STATUS +STEPS +CHANGES +STARTED +TASK\\n${taskId} +completed +2 +1 `));
    const steps = await agent('steps', taskId);
    assert.match(steps.stdout, /#\d turn 1 tool edit_file\n/);

    const reverted = await agent('revert', taskId);
    assert.equal(reverted.code, 0, reverted.stderr);
    assert.match(reverted.stdout, /reverted at /);
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'math.ts'), 'utf8'), MATH);
  });

  it('--json --watch prints one event per line, then the status; a task that fails exits 1; a refused one says why', async (t) => {
    const { fake, agent } = await serve(t);
    fake.chat.queue(SWAP(), says('Done.'));
    const json = await agent('run', 'Swap', '--files', 'src/**', '--json', '--watch');
    assert.equal(json.code, 0, json.stderr);
    const lines = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(lines[0].type, 'agent:start');
    assert.ok(lines.some((line) => line.type === 'agent:step' && line.data.tool === 'edit_file'));
    assert.equal(lines.at(-2).type, 'agent:complete');
    assert.deepEqual([lines.at(-1).taskId, lines.at(-1).status], [lines[0].data.taskId, 'completed']);

    fake.chat.queue({ kind: 'error', status: 500, message: 'CUDA out of memory' });
    const failed = await agent('run', 'Swap', '--files', 'src/**', '--watch');
    assert.equal(failed.code, 1, failed.stdout);
    assert.match(failed.stdout, /task_\w+ failed \(model_error\)/);

    const refused = await agent('run', 'Swap', '--files', 'lib/**/*.py');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^loom: No file matches "lib\/\*\*\/\*\.py"\. Globs are relative to the workspace/);
    assert.ok(!hasStackTrace(refused.stderr));
    const started = await agent('run', 'Swap', '--files', 'src/**', '--json');
    assert.deepEqual(Object.keys(JSON.parse(started.stdout)).sort(), ['estimatedTime', 'status', 'taskId']);
    const missing = await agent('status', 'task_nope');
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'loom: There is no agent task "task_nope". GET /api/agent/tasks (loom agent list) lists them.\n');
  });
});
