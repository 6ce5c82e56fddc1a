// run_command: offered only with commands listed in settings.json, each run exactly as listed
// (no shell), in the workspace, with a time limit, an output cap and an environment without
// Loom's settings or any known secret.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { commandEnvironment, splitCommand } from '../../../src/core/agents/tools/run-command.ts';
import { agentHarness, calls, chatRequest, says } from './support.ts';

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
    h.fake.chat.queue(
      calls(
        ['run_command', { command }],
        ['run_command', { command: 'node -e "process.exit(3)"' }],
        ['run_command', { command: 'rm -rf /' }],
        ['run_command', { command: `${command}; rm -rf ~` }],
      ),
      says('Checked.'),
    );
    const { taskId } = await h.agents.run({ task: 'Check the environment', files: ['src/**'] });
    await h.completed(taskId);
    const request = h.fake.requests.find((r) => r.path === '/v1/chat/completions')!.body;
    const tool = request.tools.find((declared: { function: { name: string } }) => declared.function.name === 'run_command');
    assert.deepEqual(tool.function.parameters.properties.command.enum, [command, 'node -e "process.exit(3)"']);
    const results = chatRequest(h.fake, 1)
      .slice(-4)
      .map((message) => message.content!);
    // Nothing expanded: no variable, no glob.
    assert.equal(
      results[0],
      `$ ${command}\ncwd ${fs.realpathSync(h.root)}\nargs ["$HOME","a b","*"]\nloom 0\nsecret 0\npath true\n[${command} exited with code 0]`,
    );
    assert.match(results[1]!, /\[node -e "process\.exit\(3\)" exited with code 3\]$/);
    assert.match(results[2]!, /^"rm -rf \/" is not a command you may run\. You may run only: "node env\.js/);
    assert.match(results[3]!, /is not a command you may run/);
    const steps = (await h.agents.steps(taskId)).filter((step) => step.tool === 'run_command');
    assert.deepEqual(
      steps.map((step) => step.ok),
      [true, false, false, false],
    );
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

  it('is not offered when settings.json lists no command', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(calls(['run_command', { command: 'npm test' }]), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Run', files: ['src/**'] });
    await h.completed(taskId);
    assert.match(chatRequest(h.fake, 1).at(-1)!.content!, /^There is no tool "run_command"/);
  });
});

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
