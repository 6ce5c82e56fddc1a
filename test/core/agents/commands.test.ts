// run_command: a command listed in settings.json runs exactly as listed (no shell), in the
// workspace, with a time limit, an output cap and an environment without Loom's settings or any
// known secret; any other is asked of the user first (the task waits; once, always, deny, or no
// answer in time), and runs the same way once approved. What cannot be shown to the user as it
// would run (control or invisible characters, an unclosed quote) is refused without asking.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { commandEnvironment, splitCommand } from '../../../src/core/agents/tools/run-command.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { waitFor } from '../../support/wait.ts';
import { agentHarness, calls, chatRequest, says, type Harness } from './support.ts';

const ENV_SCRIPT = `const names = Object.keys(process.env);
console.log('cwd', process.cwd());
console.log('args', JSON.stringify(process.argv.slice(2)));
console.log('loom', names.filter((name) => name.startsWith('LOOM_')).length);
console.log('secret', names.filter((name) => /sk-provider-secret-123|loom_local_api_token/.test(process.env[name])).length);
console.log('path', Boolean(process.env.PATH));
`;

describe('run_command', () => {
  it('runs a listed command without a shell, in the workspace, without Loom’s settings or secrets in its environment', async (t) => {
    const command = `node env.js '$HOME' "a b" *`;
    const h = await agentHarness(t, { files: { 'src/a.ts': 'x\n', 'env.js': ENV_SCRIPT }, settings: { commands: [command, 'node -e "process.exit(3)"'] } });
    const saved = { ...process.env };
    t.after(() => {
      for (const name of ['LOOM_API_TOKEN_FOR_TEST', 'MY_PROVIDER_KEY']) delete process.env[name];
      Object.assign(process.env, saved);
    });
    process.env.LOOM_API_TOKEN_FOR_TEST = 'anything';
    process.env.MY_PROVIDER_KEY = 'Bearer sk-provider-secret-123';
    h.fake.chat.queue(calls(['run_command', { command }], ['run_command', { command: 'node -e "process.exit(3)"' }]), says('Checked.'));
    const { taskId } = await h.agents.run({ task: 'Check the environment', files: ['src/**'] });
    await h.completed(taskId);
    const request = h.fake.requests.find((r) => r.path === '/v1/chat/completions')!.body;
    const tool = request.tools.find((declared: { function: { name: string } }) => declared.function.name === 'run_command');
    assert.ok(tool.function.description.includes(`These run at once: ${JSON.stringify(command)}, "node -e \\"process.exit(3)\\"".`), tool.function.description);
    assert.match(tool.function.description, /Any other command needs the user's approval/);
    const results = chatRequest(h.fake, 1)
      .slice(-2)
      .map((message) => message.content!);
    // Nothing expanded: no variable, no glob.
    assert.equal(
      results[0],
      `$ ${command}\ncwd ${fs.realpathSync(h.root)}\nargs ["$HOME","a b","*"]\nloom 0\nsecret 0\npath true\n[${command} exited with code 0]`,
    );
    assert.match(results[1]!, /\[node -e "process\.exit\(3\)" exited with code 3\]$/);
    const steps = (await h.agents.steps(taskId)).filter((step) => step.tool === 'run_command');
    assert.deepEqual(
      steps.map((step) => step.ok),
      [true, false],
    );
    assert.equal(h.events.filter((event) => event.type === 'agent:approval').length, 0, 'a listed command is not asked for');
  });

  it('kills a command at its time limit and keeps the start and the end of a long output', async (t) => {
    const forever = 'node -e "setInterval(() => {}, 1000)"';
    const chatty = `node -e "process.stdout.write('a'.repeat(10000) + 'b'.repeat(100000) + 'END')"`;
    const h = await agentHarness(t, { settings: { commands: [forever, chatty], commandTimeoutSeconds: 1 } });
    h.fake.chat.queue(calls(['run_command', { command: forever }], ['run_command', { command: chatty }]), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Run', files: ['src/**'] });
    await h.completed(taskId);
    const [stopped, long] = chatRequest(h.fake, 1)
      .slice(-2)
      .map((message) => message.content!);
    assert.match(stopped!, /was stopped at its time limit\]$/);
    assert.match(long!, /^\$ node -e [^\n]*\na{4096}\n… \[\d+ characters of output left out\] …\n[ab]+END\n/);
    assert.ok(long!.length < 40_000);
  });

  it('is offered with no command listed, saying that each needs the user’s approval', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Run', files: ['src/**'] });
    await h.completed(taskId);
    const request = h.fake.requests.find((r) => r.path === '/v1/chat/completions')!.body;
    const tool = request.tools.find((declared: { function: { name: string } }) => declared.function.name === 'run_command');
    assert.match(tool.function.description, /No command is approved in advance: each one needs the user's approval/);
    assert.match(request.messages[0].content, /any other waits for the user's approval/);
  });

  it('asks for an unlisted command and waits: once runs it as a listed one runs, and the next call asks again', async (t) => {
    const h = await agentHarness(t, { files: { 'src/a.ts': 'x\n', 'env.js': ENV_SCRIPT } });
    const command = 'node env.js "a b"';
    h.fake.chat.queue(calls(['run_command', { command }]), calls(['run_command', { command }]), says('Ran it twice.'));
    const { taskId } = await h.agents.run({ task: 'Run it', files: ['src/**'] });
    for (const round of [1, 2]) {
      const asked = await nextApproval(h, taskId, round);
      assert.deepEqual([asked.command, asked.cwd], [command, h.root]);
      assert.ok(Date.parse(asked.expiresAt) > Date.parse(asked.askedAt));
      const status = await h.agents.status(taskId);
      assert.deepEqual(
        [status.status, status.approval?.approvalId, status.approval?.command],
        ['running', asked.approvalId, command],
        'the status shows what the task waits for',
      );
      const answered = await h.agents.answer(taskId, asked.approvalId, 'once');
      assert.equal(answered.approval, undefined);
      await assert.rejects(h.agents.answer(taskId, asked.approvalId, 'once'), { code: 'not_found' }, 'answered once only');
    }
    await h.completed(taskId);
    const results = chatRequest(h.fake, 2)
      .filter((message) => message.role === 'tool')
      .map((message) => message.content!);
    for (const result of results) {
      assert.match(result, /^The user approved this command for this once\.\n\$ node env\.js "a b"\n/);
      // Run as a listed command runs: no shell, the workspace, no secret in its environment.
      assert.match(result, /args \["a b"\]\nloom 0\nsecret 0\n/);
    }
    const decisions = h.events.filter((event) => event.type === 'agent:approval' && event.data.decision !== undefined).map((event) => event.data.decision);
    assert.deepEqual(decisions, ['once', 'once']);
    assert.deepEqual(h.settings.commands, [], '"once" lists nothing');
  });

  it('"always" adds the command to the list: the next call runs without asking', async (t) => {
    const h = await agentHarness(t, { files: { 'src/a.ts': 'x\n' } });
    const command = 'node -e "console.log(42)"';
    h.fake.chat.queue(calls(['run_command', { command }]), calls(['run_command', { command }]), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Run it', files: ['src/**'] });
    const asked = await nextApproval(h, taskId, 1);
    await h.agents.answer(taskId, asked.approvalId, 'always');
    await h.completed(taskId);
    assert.deepEqual(h.settings.commands, [command]);
    assert.equal(h.events.filter((event) => event.type === 'agent:approval' && event.data.decision === undefined).length, 1, 'asked once');
    const results = chatRequest(h.fake, 2)
      .filter((message) => message.role === 'tool')
      .map((message) => message.content!);
    assert.match(results[0]!, /^The user approved this command, and it now runs without asking\.\n\$ node -e/);
    assert.match(results[1]!, /^\$ node -e "console\.log\(42\)"\n42\n/);
    const third = h.fake.requests.filter((r) => r.path === '/v1/chat/completions')[2]!.body;
    const tool = third.tools.find((declared: { function: { name: string } }) => declared.function.name === 'run_command');
    assert.ok(tool.function.description.includes(JSON.stringify(command)), 'the list offered to the model follows');
  });

  it('deny: the model is told and goes on; the same command is not asked again in this run', async (t) => {
    const h = await agentHarness(t, { files: { 'src/a.ts': 'x\n' } });
    h.fake.chat.queue(
      calls(['run_command', { command: 'curl https://example.com/install.sh' }]),
      calls(['run_command', { command: 'curl https://example.com/install.sh' }]),
      says('I could not run it.'),
    );
    const { taskId } = await h.agents.run({ task: 'Install', files: ['src/**'] });
    const asked = await nextApproval(h, taskId, 1);
    await h.agents.answer(taskId, asked.approvalId, 'deny');
    const complete = await h.completed(taskId);
    assert.deepEqual([complete.data.status, complete.data.reason], ['completed', 'done']);
    const results = chatRequest(h.fake, 2)
      .filter((message) => message.role === 'tool')
      .map((message) => message.content!);
    assert.match(results[0]!, /^The user did not approve "curl https:\/\/example\.com\/install\.sh"\. It was not run\./);
    assert.match(results[1]!, /^The user did not approve "curl https:\/\/example\.com\/install\.sh" when you asked before; it is not asked again\./);
    assert.equal(h.events.filter((event) => event.type === 'agent:approval' && event.data.decision === undefined).length, 1);
  });

  it('no answer within the time limit: denied, the model told; no other command is asked in this run', async (t) => {
    const h = await agentHarness(t, { files: { 'src/a.ts': 'x\n' }, settings: { approvalTimeoutSeconds: 1 } });
    h.fake.chat.queue(calls(['run_command', { command: 'npm test' }], ['run_command', { command: 'npm run lint' }]), says('Could not check.'));
    const { taskId } = await h.agents.run({ task: 'Check', files: ['src/**'] });
    await h.completed(taskId);
    const results = chatRequest(h.fake, 1)
      .filter((message) => message.role === 'tool')
      .map((message) => message.content!);
    assert.match(results[0]!, /^The user did not approve "npm test": there was no answer within 1 seconds\. It was not run\./);
    assert.match(results[1]!, /^"npm run lint" was not run: the user did not answer an earlier request/);
    assert.deepEqual(
      h.events.filter((event) => event.type === 'agent:approval').map((event) => event.data.decision ?? 'asked'),
      ['asked', 'expired'],
    );
  });

  it('the wall-time budget stands still while the task waits for the user', async (t) => {
    const clock = new ManualClock();
    const h = await agentHarness(t, { files: { 'src/a.ts': 'x\n' }, clock });
    h.fake.chat.queue(calls(['run_command', { command: 'node -e "1"' }]), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Check', files: ['src/**'], budgets: { timeoutSeconds: 60 } });
    const asked = await nextApproval(h, taskId, 1);
    clock.advance(3_600_000); // the user answers an hour later
    await h.agents.answer(taskId, asked.approvalId, 'once');
    const complete = await h.completed(taskId);
    assert.deepEqual([complete.data.status, complete.data.reason], ['completed', 'done']);
  });

  it('a cancel while waiting ends the task cancelled, and the request with it', async (t) => {
    const h = await agentHarness(t, { files: { 'src/a.ts': 'x\n' } });
    h.fake.chat.queue(calls(['run_command', { command: 'npm test' }]), says('unused'));
    const { taskId } = await h.agents.run({ task: 'Check', files: ['src/**'] });
    const asked = await nextApproval(h, taskId, 1);
    const cancelled = await h.agents.cancel(taskId);
    assert.deepEqual([cancelled.status, cancelled.reason, cancelled.approval], ['cancelled', 'cancelled', undefined]);
    await assert.rejects(h.agents.answer(taskId, asked.approvalId, 'once'), { code: 'not_found' });
    assert.equal(h.events.find((event) => event.type === 'agent:approval' && event.data.decision !== undefined)?.data.decision, 'cancelled');
  });

  it('refuses without asking what could not be shown as it would run: control and invisible characters, an unclosed quote, 1,001 characters', async (t) => {
    const h = await agentHarness(t, { files: { 'src/a.ts': 'x\n' } });
    const bad = ['npm test\nrm -rf ~', 'npm test \u202Eclean', 'echo "open', `echo ${'a'.repeat(996)}`, '   '];
    h.fake.chat.queue(calls(...bad.map((command): [string, Record<string, unknown>] => ['run_command', { command }])), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Check', files: ['src/**'] });
    await h.completed(taskId);
    const results = chatRequest(h.fake, 1)
      .filter((message) => message.role === 'tool')
      .map((message) => message.content!);
    assert.match(results[0]!, /^"npm test\\nrm -rf ~" holds control or invisible characters/);
    assert.match(results[1]!, /^"npm test \\u202eclean" holds control or invisible characters/);
    assert.match(results[2]!, /^"echo \\"open" cannot be run: unclosed "/);
    assert.match(results[3]!, /the command is 1001 characters long; a command has at most 1000/);
    assert.match(results[4]!, /"command" is empty/);
    assert.equal(h.events.filter((event) => event.type === 'agent:approval').length, 0);
  });
});

/** The `round`-th approval request of the task (its agent:approval event, asking). */
async function nextApproval(
  h: Harness,
  taskId: string,
  round: number,
): Promise<{ approvalId: string; command: string; cwd: string; askedAt: string; expiresAt: string }> {
  const asking = () => h.events.filter((event) => event.type === 'agent:approval' && event.data.taskId === taskId && event.data.decision === undefined);
  await waitFor(() => asking().length >= round, undefined, `approval request ${round}`);
  return asking()[round - 1]!.data as never;
}

describe('splitCommand and commandEnvironment', () => {
  it('splits words as a shell splits plain text and quotes, expanding nothing', () => {
    assert.deepEqual(splitCommand('npm test'), ['npm', 'test']);
    assert.deepEqual(splitCommand(`npx tsc -p "my app/tsconfig.json"`), ['npx', 'tsc', '-p', 'my app/tsconfig.json']);
    assert.deepEqual(splitCommand(`echo '$HOME' "a \\"b\\" \\\\" c\\ d`), ['echo', '$HOME', 'a "b" \\', 'c d']);
    assert.deepEqual(splitCommand(`a|b > c; d`), ['a|b', '>', 'c;', 'd']);
    assert.deepEqual(splitCommand(`x ''`), ['x', '']);
    assert.throws(() => splitCommand(`echo "open`), /unclosed "/);
  });

  it('drops LOOM_ variables and any variable holding a known secret', () => {
    const env = {
      PATH: '/bin',
      LOOM_OPENAI_API_KEY: 'k',
      loom_other: 'x',
      OPENAI_API_KEY: 'sk-provider-secret-123',
      URL: 'http://u:sk-provider-secret-123@h',
      HOME: '/h',
    };
    assert.deepEqual(commandEnvironment(env, ['sk-provider-secret-123', 'short']), { PATH: '/bin', HOME: '/h' });
  });
});
