// The agent loop driven by the scripted OpenAI-compatible server: tool calls, search/replace
// blocks in plain text, and what real models get wrong (malformed arguments, shifted
// indentation, an ambiguous block, a file outside the task's globs, a write to .git/config,
// an unknown tool); what the model is told each time, what lands on disk, the task's status,
// changes, diffs, step log and events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentHarness, calls, chatRequest, MATH, says } from './support.ts';

const SUM = MATH.replace('add(', 'sum(');

describe('agent runtime: tool calls', () => {
  it('reads, edits and ends when the model answers without a call: status, changes with diffs, events, step log', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(
      calls(['read_file', { path: 'src/math.ts' }]),
      calls([
        'edit_file',
        {
          path: 'src/math.ts',
          search: 'export function add(a: number, b: number): number {\n',
          replace: 'export function sum(a: number, b: number): number {\n',
        },
      ]),
      says('Renamed add to sum in src/math.ts.'),
    );
    const started = await h.agents.run({ task: 'Rename add to sum', files: ['src/**/*.ts'] });
    assert.equal(started.status, 'running');
    assert.match(started.taskId, /^task_[0-9a-f]{24}$/);
    assert.ok(Number.isInteger(started.estimatedTime) && started.estimatedTime >= 1);
    const complete = await h.completed(started.taskId);
    assert.equal(h.file('src/math.ts'), SUM);

    const status = await h.agents.status(started.taskId);
    assert.equal(status.status, 'completed');
    assert.equal(status.reason, 'done');
    assert.equal(status.summary, 'Renamed add to sum in src/math.ts.');
    assert.equal(status.steps, 3);
    assert.equal(status.tokens, 3 * 1050);
    assert.deepEqual(status.changes, [
      {
        file: 'src/math.ts',
        action: 'modified',
        diff: '--- a/src/math.ts\n+++ b/src/math.ts\n@@ -1,4 +1,4 @@\n-export function add(a: number, b: number): number {\n+export function sum(a: number, b: number): number {\n   return a + b;\n }\n \n',
      },
    ]);
    assert.deepEqual(complete.data, {
      taskId: started.taskId,
      status: 'completed',
      reason: 'done',
      summary: 'Renamed add to sum in src/math.ts.',
      steps: 3,
      tokens: 3150,
      changes: [{ file: 'src/math.ts', action: 'modified' }],
    });

    // The model saw the file numbered, then the edit's result with the lines in place.
    const second = chatRequest(h.fake, 1);
    assert.match(second.at(-1)!.content!, /^src\/math\.ts \(7 lines\):\n1\texport function add/);
    const third = chatRequest(h.fake, 2);
    assert.match(third.at(-1)!.content!, /^Block 1 \(src\/math\.ts\): applied; it is now line 1\.\nThe lines now/);

    const types = h.events.filter((event) => String(event.data.taskId) === started.taskId).map((event) => event.type);
    assert.deepEqual(types[0], 'agent:start');
    assert.deepEqual(types.at(-1), 'agent:complete');
    assert.equal(types.filter((type) => type === 'agent:step').length, 5, '3 model turns, 2 tool calls');
    const edit = h.events.find((event) => event.type === 'agent:step' && event.data.tool === 'edit_file');
    assert.match(String(edit?.data.diff), /^--- a\/src\/math\.ts\n\+\+\+ b\/src\/math\.ts\n@@ -1,4 \+1,4 @@\n-export function add/);

    const steps = await h.agents.steps(started.taskId);
    assert.deepEqual(
      steps.map((step) => [step.index, step.kind, step.turn, step.tool ?? '', step.ok ?? '']),
      [
        [1, 'model', 1, '', ''],
        [2, 'tool', 1, 'read_file', true],
        [3, 'model', 2, '', ''],
        [4, 'tool', 2, 'edit_file', true],
        [5, 'model', 3, '', ''],
      ],
    );
    assert.deepEqual(steps[0]!.tokens, { prompt: 1000, completion: 50 });
    assert.deepEqual(
      (await h.agents.steps(started.taskId, { after: 3, limit: 1 })).map((step) => step.index),
      [4],
    );
  });

  it('tells the model its system prompt, tools and task, with the small files in scope already read', async (t) => {
    const h = await agentHarness(t, { files: { 'src/math.ts': MATH, 'docs/guide.md': '# Guide\n' } });
    h.fake.chat.queue(
      calls([
        'edit_file',
        { path: 'src/math.ts', search: 'export function add(a: number, b: number): number {', replace: 'export function sum(a: number, b: number): number {' },
      ]),
      says('Done.'),
    );
    const { taskId } = await h.agents.run({ task: 'Rename add to sum', files: ['src/**'] });
    await h.completed(taskId);
    const request = h.fake.requests.find((r) => r.path === '/v1/chat/completions')!.body;
    assert.match(request.messages[0].content, /You may change only files whose path matches: src\/\*\*/);
    assert.match(request.messages[1].content, /^Task: Rename add to sum\n\nFiles you may change \(src\/\*\*\) — 1 exist now:\nsrc\/math\.ts \(141 B\)/);
    assert.ok(request.messages[1].content.includes(`src/math.ts\n\`\`\`\n${MATH}\`\`\``), 'the file in full, in a fence');
    assert.deepEqual(
      request.tools.map((tool: { function: { name: string } }) => tool.function.name),
      ['list_files', 'read_file', 'search', 'edit_file', 'create_file', 'delete_file', 'rename_file', 'run_command'],
      'run_command even without commands in settings.json: the model may ask for one',
    );
    // Shown in the first message counts as read: the edit applied without a read_file.
    assert.equal(h.file('src/math.ts'), SUM);
  });

  it('corrects malformed JSON arguments and an unknown tool, then goes on', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(
      calls(['edit_file', '{"path": "src/math.ts", "search": "add(", replace: "sum("}']),
      calls(['open_file', { path: 'src/math.ts' }]),
      calls([
        'edit_file',
        { path: 'src/math.ts', search: 'export function add(a: number, b: number): number {', replace: 'export function sum(a: number, b: number): number {' },
      ]),
      says('Done.'),
    );
    const { taskId } = await h.agents.run({ task: 'Rename add to sum', files: ['src/math.ts'] });
    await h.completed(taskId);
    assert.match(
      chatRequest(h.fake, 1).at(-1)!.content!,
      /^Your call of edit_file could not be read: The arguments are not valid JSON: .*Send it again with its arguments as one JSON object\.$/,
    );
    assert.match(chatRequest(h.fake, 2).at(-1)!.content!, /^There is no tool "open_file"\. The tools are: list_files, read_file, search, edit_file/);
    assert.equal(h.file('src/math.ts'), SUM);
    assert.equal((await h.agents.status(taskId)).reason, 'done');
  });

  it('never echoes a tool name whole: one of 100,000 characters is quoted in a few words, and kept short in the step log', async (t) => {
    const h = await agentHarness(t);
    const name = `x${'y'.repeat(99_999)}`;
    h.fake.chat.queue(calls([name, {}]), calls([`${name}!`, '{broken']), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Look', files: ['src/math.ts'] });
    await h.completed(taskId);
    const unknown = chatRequest(h.fake, 1).at(-1)!.content!;
    assert.match(unknown, /^There is no tool "xy+…" \(100000 characters\)\. The tools are: list_files/);
    assert.ok(unknown.length < 300, `told in ${unknown.length} characters`);
    const unreadable = chatRequest(h.fake, 2).at(-1)!.content!;
    assert.match(unreadable, /^Your call of "xy+…" \(100001 characters\) could not be read: /);
    assert.ok(unreadable.length < 400, `told in ${unreadable.length} characters`);
    const steps = (await h.agents.steps(taskId)).filter((step) => step.kind === 'tool');
    assert.deepEqual(
      steps.map((step) => step.tool),
      [`${name.slice(0, 64)}… (100000 characters)`, `${name.slice(0, 64)}… (100001 characters)`],
    );
    const events = h.events.filter((event) => event.type === 'agent:step' && event.data.kind === 'tool');
    assert.ok(
      events.every((event) => String(event.data.tool).length < 100),
      'the events carry the short name',
    );
  });

  it('ends a task whose answers cannot be acted on three turns in a row (unusable_answers)', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(calls(['edit_file', '{broken']), calls(['nope', {}]), calls(['edit_file', '{"path": 1}}']));
    const { taskId } = await h.agents.run({ task: 'Rename add to sum', files: ['src/math.ts'] });
    await h.completed(taskId);
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason, status.steps], ['failed', 'unusable_answers', 3]);
    assert.equal(h.file('src/math.ts'), MATH);
  });
});

describe('agent runtime: search/replace blocks in plain text', () => {
  it('applies blocks written in the answer (a server without tool calls works), and reports each', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.refuseTools({ status: 400, message: 'tools are not supported by this model' });
    h.fake.chat.queue(
      says(
        [
          'I will rename it.',
          '',
          'src/math.ts',
          '```ts',
          '<<<<<<< SEARCH',
          'export function add(a: number, b: number): number {',
          '=======',
          'export function sum(a: number, b: number): number {',
          '>>>>>>> REPLACE',
          '```',
          '',
          'src/math.ts',
          '<<<<<<< SEARCH',
          '  return a - b;',
          '=======',
          '  return a - b; // difference',
          '>>>>>>> REPLACE',
        ].join('\n'),
      ),
      says('Renamed add to sum and commented sub.'),
    );
    const { taskId } = await h.agents.run({ task: 'Rename add to sum', files: ['src/**/*.ts'] });
    await h.completed(taskId);
    assert.equal(h.file('src/math.ts'), SUM.replace('return a - b;', 'return a - b; // difference'));
    // Request 0 carried tools and was refused; the provider asked again with the tools in text.
    const told = chatRequest(h.fake, 2).at(-1)!;
    assert.equal(told.role, 'user');
    assert.match(
      told.content!,
      /^Your edit blocks:\nBlock 1 \(src\/math\.ts\): applied; it is now line 1\.[\s\S]*\nBlock 2 \(src\/math\.ts\): applied; it is now line 6\./,
    );
    const requests = h.fake.requests.filter((r) => r.path === '/v1/chat/completions');
    assert.ok(requests.at(-1)!.body.tools === undefined, 'tools went in the system prompt once the server refused them');
    assert.match(requests.at(-1)!.body.messages[0].content, /<tools>/);
    assert.equal((await h.agents.status(taskId)).reason, 'done');
  });

  it('reads <tool_call> blocks written in text by a model whose server passes them through', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(says('<tool_call>\n{"name": "read_file", "arguments": {"path": "src/math.ts", "start_line": 5}}\n</tool_call>'), says('It has sub.'));
    const { taskId } = await h.agents.run({ task: 'What is on line 5?', files: ['src/math.ts'] });
    await h.completed(taskId);
    assert.match(chatRequest(h.fake, 1).at(-1)!.content!, /^src\/math\.ts, lines 5–7 of 7:\n5\texport function sub/);
  });

  it('applies a block whose indentation is shifted as a whole, in the file’s indentation', async (t) => {
    const h = await agentHarness(t, { files: { 'src/math.ts': MATH } });
    h.fake.chat.queue(says('src/math.ts\n<<<<<<< SEARCH\n    return a + b;\n=======\n    return b + a;\n>>>>>>> REPLACE\n'), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Swap the operands', files: ['src/math.ts'] });
    await h.completed(taskId);
    assert.equal(h.file('src/math.ts'), MATH.replace('  return a + b;', '  return b + a;'));
    assert.match(
      chatRequest(h.fake, 1).at(-1)!.content!,
      /applied; it is now line 2 \(SEARCH differed from the file in indentation; the file's whitespace was kept\)/,
    );
  });

  it('refuses an ambiguous block, naming the places, and applies the one sent again with context', async (t) => {
    const twice = 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n';
    const h = await agentHarness(t, { files: { 'src/one.ts': twice } });
    h.fake.chat.queue(
      says('src/one.ts\n<<<<<<< SEARCH\n  return 1;\n=======\n  return 2;\n>>>>>>> REPLACE\n'),
      says('src/one.ts\n<<<<<<< SEARCH\nfunction b() {\n  return 1;\n=======\nfunction b() {\n  return 2;\n>>>>>>> REPLACE\n'),
      says('Done.'),
    );
    const { taskId } = await h.agents.run({ task: 'b returns 2', files: ['src/*.ts'] });
    await h.completed(taskId);
    assert.match(chatRequest(h.fake, 1).at(-1)!.content!, /Block 1 \(src\/one\.ts\): not applied\. SEARCH matches 2 places in the file \(lines 2 and 6\)/);
    assert.equal(h.file('src/one.ts'), twice.replace('function b() {\n  return 1;', 'function b() {\n  return 2;'));
    const steps = await h.agents.steps(taskId);
    assert.deepEqual(
      steps.filter((step) => step.kind === 'tool').map((step) => [step.tool, step.ok]),
      [
        ['edit_file', false],
        ['edit_file', true],
      ],
    );
  });

  it('tells the model what is wrong with a block it cannot read', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(says('<<<<<<< SEARCH\n  return a + b;\n=======\n  return b + a;\n>>>>>>> REPLACE\n'), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Swap', files: ['src/math.ts'] });
    await h.completed(taskId);
    assert.match(chatRequest(h.fake, 1).at(-1)!.content!, /^Not applied: Block 1 \(line 1\) has no file path\./);
    assert.equal(h.file('src/math.ts'), MATH);
  });
});

describe('agent runtime: confinement', () => {
  it('refuses a write outside the task’s globs, and one to .git/config, and says so; the files stay', async (t) => {
    const h = await agentHarness(t, { files: { 'src/math.ts': MATH, 'README.md': '# Math\n', '.git/config': '[core]\n' } });
    h.fake.chat.queue(
      calls(['create_file', { path: 'README2.md', content: 'x' }], ['edit_file', { path: 'README.md', search: '# Math\n', replace: '# Maths\n' }]),
      calls(
        ['edit_file', { path: '.git/config', search: '[core]\n', replace: '[core]\n\thooksPath = /tmp/evil\n' }],
        ['create_file', { path: '../outside.txt', content: 'x' }],
      ),
      says('I could not change those files.'),
    );
    const { taskId } = await h.agents.run({ task: 'Edit README', files: ['src/**'] });
    await h.completed(taskId);
    const told = chatRequest(h.fake, 1)
      .slice(-2)
      .map((message) => message.content);
    assert.match(told[0]!, /^README2\.md is outside the files this task may change \(src\/\*\*\); it may be read, not changed\.$/);
    assert.match(told[1]!, /^README\.md is outside the files this task may change/);
    const second = chatRequest(h.fake, 2)
      .slice(-2)
      .map((message) => message.content);
    assert.match(second[0]!, /^\.git\/config is outside the files/, 'outside the globs first');
    assert.match(second[1]!, /^\.\.\/outside\.txt is outside the workspace\./);
    assert.equal(h.file('README.md'), '# Math\n');
    assert.equal(h.file('.git/config'), '[core]\n');
    assert.equal(h.file('README2.md'), null);
    assert.deepEqual((await h.agents.status(taskId)).changes, []);
  });

  it('never writes .git or .loom even when the globs include them', async (t) => {
    const h = await agentHarness(t, { files: { 'src/math.ts': MATH, '.git/config': '[core]\n', '.loom/settings.json': '{}\n' } });
    h.fake.chat.queue(
      calls(
        ['read_file', { path: '.git/config' }],
        ['edit_file', { path: '.git/config', search: '[core]\n', replace: '[core]\n\thooksPath = /tmp/evil\n' }],
        ['create_file', { path: '.loom/extensions/evil.js', content: 'x' }],
        ['rename_file', { from: 'src/math.ts', to: '.git/hooks/pre-commit' }],
      ),
      says('Refused, as it should be.'),
    );
    const { taskId } = await h.agents.run({ task: 'Harden', files: ['**'] });
    await h.completed(taskId);
    const told = chatRequest(h.fake, 1)
      .slice(-4)
      .map((message) => message.content);
    assert.match(told[0]!, /^\.git\/config \(1 lines\):\n1\t\[core\]/, 'reading is allowed');
    assert.match(told[1]!, /^\.git\/config is in a git directory \(\.git\) or would create it; Loom never writes there\./);
    assert.match(told[2]!, /^\.loom\/extensions\/evil\.js is in \.loom/);
    assert.match(told[3]!, /^\.git\/hooks\/pre-commit is in a git directory/);
    assert.equal(h.file('.git/config'), '[core]\n');
    assert.equal(h.file('src/math.ts'), MATH);
    assert.equal(h.file('.loom/extensions/evil.js'), null);
  });

  it('requires a file to be read before it is edited, and refuses a path the model never looked at', async (t) => {
    const files: Record<string, string> = { 'src/math.ts': MATH };
    for (let i = 0; i < 9; i++) files[`src/other${i}.ts`] = `export const x${i} = ${i};\n`;
    const h = await agentHarness(t, { files });
    h.fake.chat.queue(calls(['edit_file', { path: 'src/math.ts', search: 'add(', replace: 'sum(' }]), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Rename', files: ['src/**'] });
    await h.completed(taskId);
    assert.equal(chatRequest(h.fake, 1).at(-1)!.content, 'You have not read src/math.ts: read it first (read_file), then make your change on what it holds.');
    assert.equal(h.file('src/math.ts'), MATH);
  });
});

describe('agent runtime: refused at once', () => {
  it('refuses an empty task, bad globs, globs that match nothing, and models that cannot chat, with hints', async (t) => {
    const h = await agentHarness(t);
    await assert.rejects(h.agents.run({ task: '  ', files: ['src/**'] }), { code: 'validation_error', message: /task is empty/ });
    await assert.rejects(h.agents.run({ task: 'x', files: [] }), { code: 'validation_error' });
    await assert.rejects(h.agents.run({ task: 'x', files: ['../**'] }), { code: 'validation_error', message: /must not contain "\.\."/ });
    await assert.rejects(h.agents.run({ task: 'x', files: ['/etc/*'] }), { code: 'validation_error', message: /relative to the workspace/ });
    await assert.rejects(h.agents.run({ task: 'x', files: ['lib/**/*.py'] }), { code: 'validation_error', message: /^No file matches "lib\/\*\*\/\*\.py"\.$/ });
    await assert.rejects(h.agents.run({ task: 'x', files: ['src/**'], model: 'gpt-9' }), { code: 'unknown_model' });
    await assert.rejects(h.agents.run({ task: 'x', files: ['src/**'], model: 'builtin' }), (error: Error & { code?: string; hint?: string }) => {
      assert.equal(error.code, 'bad_request');
      assert.match(error.message, /cannot chat\. Agents need a model that can chat\.$/);
      assert.match(error.hint!, /^Models that can chat: fake-coder\. To add one: Set openai\.baseUrl and openai\.model/);
      assert.match(error.hint!, /loom models pull/);
      return true;
    });
    assert.equal(h.fake.requests.length, 0, 'no model was asked');
    assert.deepEqual(await h.agents.list(), [], 'no task was recorded');
  });

  it('refuses every task when no model can chat', async (t) => {
    const h = await agentHarness(t, { noChatModel: true, provider: 'builtin' });
    await assert.rejects(h.agents.run({ task: 'x', files: ['src/**'] }), (error: Error & { code?: string; hint?: string }) => {
      assert.equal(error.code, 'bad_request');
      assert.match(error.message, /^No model served here can chat\. Agents need a model that can chat\.$/);
      assert.match(error.hint!, /loom models pull Qwen2\.5-Coder-7B/);
      return true;
    });
  });
});
