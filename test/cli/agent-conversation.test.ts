// `loom agent say` and a command waiting for approval, as a user runs them: the real CLI against a
// real `loom serve` subprocess whose settings.json points `completion.openai` at the scripted
// OpenAI-compatible server (in this process). `say` continues a task that has ended and follows
// it to its end like `run --watch`; a task that asks to run a command shows the request and where
// to answer it (the window's URL) in `run --watch` and in `status`, since the CLI's token cannot.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { calls, MATH, says } from '../core/agents/support.ts';
import { cleanEnv, LOCAL_READY, runLoom, startLoom, tempDir } from '../support/cli.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_cli_agent_say_test_token_0123456789abcdef';
const SWAP = () => calls(['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]);

interface Served {
  fake: FakeOpenAi;
  workspace: string;
  /** Where the server answers (its window is at `${url}/`). */
  url: string;
  agent(...args: string[]): ReturnType<typeof runLoom>;
}

async function serve(t: TestContext, agents: Record<string, unknown> = {}): Promise<Served> {
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
    JSON.stringify({ apiToken: TOKEN, completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } }, agents }),
    { mode: 0o600 },
  );
  const env = cleanEnv(home);
  const server = await startLoom(t, ['serve', '--workspace', workspace, '--config-dir', configDir, '--port', '0'], env, 60_000, LOCAL_READY);
  const port = new URL(server.url).port;
  return { fake, workspace, url: `http://127.0.0.1:${port}`, agent: (...args) => runLoom(['agent', ...args, '--port', port, '--config-dir', configDir], env) };
}

describe('loom agent say, and a command waiting for approval', () => {
  it('say continues a finished task with a message and follows it to its end; status lists the message', async (t) => {
    const { fake, workspace, agent } = await serve(t);
    fake.chat.queue(SWAP(), says('Swapped the operands.'));
    const run = await agent('run', 'Swap the operands of add', '--files', 'src/**/*.ts', '--watch');
    assert.equal(run.code, 0, run.stderr);
    const taskId = /^(task_\w+)/.exec(run.stdout)![1]!;

    fake.chat.queue(
      calls(['read_file', { path: 'src/math.ts' }]),
      calls([
        'edit_file',
        {
          path: 'src/math.ts',
          search: 'export function sub(a: number, b: number): number {\n',
          replace: 'export function difference(a: number, b: number): number {\n',
        },
      ]),
      says('Renamed sub to difference.'),
    );
    const said = await agent('say', taskId, 'Now rename sub to difference.');
    assert.equal(said.code, 0, said.stderr);
    assert.match(said.stdout, new RegExp(`^${taskId} running \\(estimated \\d+ s\\)\\n· you said: Now rename sub to difference\\.\\n`));
    assert.match(said.stdout, /\+export function difference\(a: number, b: number\): number \{/);
    assert.match(said.stdout, new RegExp(`${taskId} completed: 5 steps, \\d+ tokens, model fake-coder\\n`));
    assert.match(said.stdout, /  then: Now rename sub to difference\.\n/);
    assert.match(said.stdout, /summary: Renamed sub to difference\.\n/);
    assert.equal(
      fs.readFileSync(path.join(workspace, 'src', 'math.ts'), 'utf8'),
      MATH.replace('a + b', 'b + a').replace('function sub(', 'function difference('),
    );

    // While it runs, a message is refused, saying why; --no-watch only sends.
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const held = fake.chat.held();
    const sent = await agent('say', taskId, 'Check it.', '--no-watch');
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, new RegExp(`^${taskId} running again \\(estimated \\d+ s\\); follow it with: loom agent status ${taskId}\\n$`));
    await held;
    const busy = await agent('say', taskId, 'And another thing.');
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /^loom: Task "task_\w+" is running: a message continues a task that has ended\. Wait for its agent:complete, or cancel it/);
    fake.chat.release();
  });

  it('run --watch shows a command waiting for approval and where to answer it; status shows it too; unanswered, it is not run', async (t) => {
    const { fake, workspace, url, agent } = await serve(t, { approvalTimeoutSeconds: 60 });
    fake.chat.queue(calls(['run_command', { command: 'npm test' }]), says('Could not run the tests.'));
    const started = await agent('run', 'Run the tests', '--files', 'src/**', '--json');
    const { taskId } = JSON.parse(started.stdout);
    let status = { stdout: '' } as Awaited<ReturnType<Served['agent']>>;
    await waitFor(async () => /waiting for your approval/.test((status = await agent('status', taskId)).stdout), undefined, 'the approval request');
    assert.match(status.stdout, new RegExp(`^${taskId} running: `));
    assert.match(
      status.stdout,
      new RegExp(
        `  waiting for your approval to run: npm test; answer in the window, ${url}/ \\(opened signed in by loom serve --open\\), by \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    const list = await agent('list');
    assert.match(list.stdout, new RegExp(`${taskId} +running \\(waiting for approval\\) `));
    assert.equal((await agent('cancel', taskId)).code, 0);

    // Watching: the request, where to answer it, and its end when no one answers in time.
    const quick = await serve(t, { approvalTimeoutSeconds: 1 });
    quick.fake.chat.queue(calls(['run_command', { command: 'npm test' }]), says('Could not run the tests.'));
    const run = await quick.agent('run', 'Run the tests', '--files', 'src/**', '--watch');
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(
        `· waiting for your approval to run: npm test\\n  Answer in the window, ${quick.url}/ \\(opened signed in by loom serve --open\\), by \\S+; unanswered, it is denied\\.\\n`,
      ),
    );
    assert.match(run.stdout, /· npm test: not answered in time: not run\n/);
    assert.match(run.stdout, /run_command refused: The user did not approve "npm test": there was no answer within 1 seconds/);
    assert.equal(fs.existsSync(path.join(workspace, 'node_modules')), false);
  });
});
