// What agent tasks do to files: created, modified, deleted and renamed files with their diffs,
// reverted as a whole (and refused, nothing undone, when a file was edited since); an edit by
// the user meanwhile is a conflict the model is told about, never overwritten; an open
// document changes live; two tasks never edit the same file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STATUS_DIFF_CHARS, STEP_DIFF_CHARS } from '../../../src/core/agents/diffs.ts';
import { RevertConflictError } from '../../../src/core/agents/errors.ts';
import { AGENT_FILE_LIMIT } from '../../../src/core/agents/files/agent-files.ts';
import { STEP_TEXT_LIMIT } from '../../../src/core/agents/types.ts';
import { agentHarness, calls, chatRequest, MATH, says } from './support.ts';

const FILES = { 'src/a.ts': 'export const a = 1;\n', 'src/c.ts': 'export const c = 3;\n', 'src/d.ts': 'export const d = 4;\n' };

/** A task that modifies a.ts, creates b.ts, deletes c.ts and renames d.ts to e.ts. */
function everyKindOfChange() {
  return [
    calls(
      ['edit_file', { path: 'src/a.ts', search: 'export const a = 1;\n', replace: 'export const a = 10;\n' }],
      ['create_file', { path: 'src/b.ts', content: 'export const b = 2;\n' }],
      ['delete_file', { path: 'src/c.ts' }],
      ['rename_file', { from: 'src/d.ts', to: 'src/e.ts' }],
    ),
    says('Done.'),
  ];
}

describe('agent changes', () => {
  it('lists every kind of change with its diff, and reverts them as a whole', async (t) => {
    const h = await agentHarness(t, { files: FILES });
    h.fake.chat.queue(...everyKindOfChange());
    const { taskId } = await h.agents.run({ task: 'Reshape', files: ['src/*.ts'] });
    await h.completed(taskId);
    const status = await h.agents.status(taskId);
    assert.deepEqual(status.changes, [
      { file: 'src/a.ts', action: 'modified', diff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 1;\n+export const a = 10;\n' },
      { file: 'src/b.ts', action: 'created', diff: '--- /dev/null\n+++ b/src/b.ts\n@@ -0,0 +1 @@\n+export const b = 2;\n' },
      { file: 'src/c.ts', action: 'deleted', diff: '--- a/src/c.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-export const c = 3;\n' },
      { file: 'src/e.ts', action: 'renamed', from: 'src/d.ts', diff: '--- a/src/d.ts\n+++ b/src/e.ts\n' },
    ]);
    assert.deepEqual(
      [h.file('src/a.ts'), h.file('src/b.ts'), h.file('src/c.ts'), h.file('src/d.ts'), h.file('src/e.ts')],
      ['export const a = 10;\n', 'export const b = 2;\n', null, null, 'export const d = 4;\n'],
    );

    const reverted = await h.agents.revert(taskId);
    assert.ok(reverted.revertedAt);
    assert.deepEqual(
      [h.file('src/a.ts'), h.file('src/b.ts'), h.file('src/c.ts'), h.file('src/d.ts'), h.file('src/e.ts')],
      [FILES['src/a.ts'], null, FILES['src/c.ts'], FILES['src/d.ts'], null],
    );
    // Twice: nothing more happens.
    assert.deepEqual(await h.agents.revert(taskId), reverted);
  });

  it('refuses to revert, undoing nothing, when a file is no longer as the task left it', async (t) => {
    const h = await agentHarness(t, { files: FILES });
    h.fake.chat.queue(...everyKindOfChange());
    const { taskId } = await h.agents.run({ task: 'Reshape', files: ['src/*.ts'] });
    await h.completed(taskId);
    h.write('src/a.ts', 'export const a = 11; // the user\n');
    h.write('src/c.ts', 'export const c = 33;\n');
    await assert.rejects(h.agents.revert(taskId), (error: unknown) => {
      assert.ok(error instanceof RevertConflictError);
      assert.equal(error.code, 'revert_conflict');
      assert.deepEqual(error.files, ['src/a.ts', 'src/c.ts']);
      assert.match(error.message, /^src\/a\.ts, src\/c\.ts are no longer as the task left them; nothing was reverted\.$/);
      return true;
    });
    assert.deepEqual([h.file('src/b.ts'), h.file('src/e.ts')], ['export const b = 2;\n', 'export const d = 4;\n'], 'nothing undone');
    assert.equal((await h.agents.status(taskId)).revertedAt, undefined);
  });

  it('a task that deletes a file it created, or writes one back, shows no change for it', async (t) => {
    const h = await agentHarness(t, { files: FILES });
    h.fake.chat.queue(
      calls(
        ['create_file', { path: 'src/tmp.ts', content: 'x\n' }],
        ['edit_file', { path: 'src/a.ts', search: 'export const a = 1;\n', replace: 'export const a = 2;\n' }],
      ),
      calls(['delete_file', { path: 'src/tmp.ts' }], ['edit_file', { path: 'src/a.ts', search: 'export const a = 2;\n', replace: 'export const a = 1;\n' }]),
      says('Done.'),
    );
    const { taskId } = await h.agents.run({ task: 'Nothing in the end', files: ['src/*.ts'] });
    await h.completed(taskId);
    assert.deepEqual((await h.agents.status(taskId)).changes, []);
    assert.deepEqual(await h.store.agentTasks.changes(taskId), [
      { id: 2, path: 'src/a.ts', origin: 'src/a.ts', before: FILES['src/a.ts'], after: FILES['src/a.ts'] },
    ]);
  });
});

describe('agent edits and the user', () => {
  it('never overwrites a file the user changed since the model read it: the model is told, the user’s text stays', async (t) => {
    const h = await agentHarness(t, { files: { 'src/math.ts': MATH, 'src/other.ts': 'x\n' } });
    h.fake.chat.queue(
      calls(['read_file', { path: 'src/math.ts' }]),
      { ...calls(['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]), hold: true },
      says('The user edited it; leaving it.'),
    );
    const held = h.fake.chat.held();
    const { taskId } = await h.agents.run({ task: 'Swap', files: ['src/**'] });
    await held;
    const mine = MATH.replace('a + b', 'a + b + 0');
    h.write('src/math.ts', mine);
    h.fake.chat.release();
    await h.completed(taskId);
    assert.equal(h.file('src/math.ts'), mine);
    assert.match(
      chatRequest(h.fake, 2).at(-1)!.content!,
      /^src\/math\.ts changed since you last read it: the user \(or another program\) edited it, and your change was not applied\. Read it again/,
    );
    assert.deepEqual((await h.agents.status(taskId)).changes, []);
  });

  it('never writes a file whose open document has unsaved edits', async (t) => {
    const h = await agentHarness(t, { files: { 'src/math.ts': MATH, 'src/other.ts': 'x\n' } });
    await h.documents.openFile('src/math.ts');
    await h.documents.insert({ path: 'src/math.ts', text: '// typing\n', line: 1, column: 1 });
    h.fake.chat.queue(
      calls(['read_file', { path: 'src/math.ts' }], ['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]),
      says('Left it.'),
    );
    const { taskId } = await h.agents.run({ task: 'Swap', files: ['src/**'] });
    await h.completed(taskId);
    assert.equal(h.file('src/math.ts'), MATH);
    assert.equal((await h.documents.text('src/math.ts')).text, `// typing\n${MATH}`);
    assert.match(chatRequest(h.fake, 1).at(-1)!.content!, /^src\/math\.ts has edits in the editor that the user has not saved/);
  });

  it('changes an open document live, as one edit, and saves it', async (t) => {
    const h = await agentHarness(t);
    const opened = await h.documents.openFile('src/math.ts');
    h.fake.chat.queue(calls(['edit_file', { path: 'src/math.ts', search: '  return a - b;\n', replace: '  return a - b; // difference\n' }]), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Comment', files: ['src/**'] });
    await h.completed(taskId);
    const text = await h.documents.text('src/math.ts');
    assert.equal(text.text, MATH.replace('a - b;', 'a - b; // difference'));
    assert.equal(text.version, opened.version + 1, 'one edit');
    assert.equal(h.file('src/math.ts'), text.text);
    const [summary] = h.documents.list();
    assert.equal(summary?.dirty, false);
    assert.ok(h.events.some((event) => event.type === 'file:save' && event.data.path === 'src/math.ts'));
  });

  it('tells a deletion and a rename as the file tree tells its own, and an open document follows the rename', async (t) => {
    const h = await agentHarness(t, { files: FILES });
    await h.documents.openFile('src/d.ts');
    h.fake.chat.queue(...everyKindOfChange());
    const { taskId } = await h.agents.run({ task: 'Reshape', files: ['src/*.ts'] });
    await h.completed(taskId);
    const told = (type: string) => h.events.filter((event) => event.type === type).map((event) => event.data);
    assert.deepEqual(told('file:delete'), [{ path: 'src/c.ts', kind: 'file' }]);
    assert.deepEqual(told('file:rename'), [{ from: 'src/d.ts', to: 'src/e.ts', kind: 'file' }]);
    assert.deepEqual(
      h.documents.list().map((document) => document.path),
      ['src/e.ts'],
    );
    assert.equal((await h.documents.text('src/e.ts')).text, FILES['src/d.ts']);
    // A revert is told too: the rename back and the created file's deletion.
    await h.agents.revert(taskId);
    assert.deepEqual(told('file:rename').at(-1), { from: 'src/e.ts', to: 'src/d.ts', kind: 'file' });
    assert.deepEqual(told('file:delete').at(-1), { path: 'src/b.ts', kind: 'file' });
    assert.deepEqual(
      h.documents.list().map((document) => document.path),
      ['src/d.ts'],
    );
  });

  it('two tasks never edit the same file: the second is refused while the first runs', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(calls(['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]), {
      kind: 'text',
      text: 'thinking…',
      hold: true,
    });
    const held = h.fake.chat.held();
    const first = await h.agents.run({ task: 'Swap', files: ['src/**'] });
    await held;
    h.fake.chat.queue(calls(['edit_file', { path: 'src/math.ts', search: '  return a - b;\n', replace: '  return b - a;\n' }]), says('It is locked.'));
    const second = await h.agents.run({ task: 'Swap sub', files: ['src/**'] });
    await h.completed(second.taskId);
    assert.equal(
      chatRequest(h.fake, 3).at(-1)!.content,
      `src/math.ts is being changed by another agent task (${first.taskId}), which holds it until it ends. Work on other files, or finish and say what you would change in it.`,
    );
    h.fake.chat.release();
    await h.completed(first.taskId);
    assert.equal(h.file('src/math.ts'), MATH.replace('a + b', 'b + a'));
  });

  it('trims long texts in the step log', async (t) => {
    const long = `${'const x = 1;\n'.repeat(2000)}`;
    const h = await agentHarness(t, { files: { 'src/long.ts': long } });
    h.fake.chat.queue(calls(['read_file', { path: 'src/long.ts' }]), says('Read it.'));
    const { taskId } = await h.agents.run({ task: 'Read', files: ['src/**'] });
    await h.completed(taskId);
    const read = (await h.agents.steps(taskId)).find((step) => step.tool === 'read_file')!;
    assert.ok(read.text.length < STEP_TEXT_LIMIT + 100);
    assert.match(read.text, /… \[\d+ more characters\]$/);
    // The model itself got the whole read (400 lines).
    assert.match(chatRequest(h.fake, 1).at(-1)!.content!, /^src\/long\.ts, lines 1–400 of 2000:[\s\S]*\n… 1600 more lines: read_file with start_line 401\.$/);
  });

  it('refuses a write over the agents’ file limit, telling the model; nothing is written or recorded', async (t) => {
    const big = 'x'.repeat(AGENT_FILE_LIMIT) + '\n';
    const h = await agentHarness(t, { files: { 'src/a.ts': 'export const a = 1;\n' } });
    // One JSON body: 2 MiB of arguments streamed in 7-character pieces would take long.
    h.fake.chat.queue(
      {
        ...calls(
          ['create_file', { path: 'src/big.ts', content: big }],
          ['read_file', { path: 'src/a.ts' }],
          ['edit_file', { path: 'src/a.ts', search: 'export const a = 1;\n', replace: big }],
        ),
        json: true,
      },
      says('Could not.'),
    );
    const { taskId } = await h.agents.run({ task: 'Write a lot', files: ['src/**'] });
    await h.completed(taskId);
    const tools = (await h.agents.steps(taskId)).filter((step) => step.kind === 'tool');
    const refusal = /^src\/(big|a)\.ts would be 1,048,577 bytes; agents write files of at most 1,048,576 bytes \(1 MiB\)\. Nothing was written/;
    assert.deepEqual(
      tools.map((step) => [step.tool, step.ok]),
      [
        ['create_file', false],
        ['read_file', true],
        ['edit_file', false],
      ],
    );
    assert.match(tools[0]!.text, refusal);
    assert.match(tools[2]!.text, refusal);
    assert.match(chatRequest(h.fake, 1).find((message) => message.role === 'tool')!.content!, refusal);
    assert.equal(h.file('src/big.ts'), null);
    assert.equal(h.file('src/a.ts'), 'export const a = 1;\n');
    assert.deepEqual((await h.agents.status(taskId)).changes, []);
  });

  it('cuts a large diff in the status and the step log at a line’s end, saying so; the file has every line', async (t) => {
    const content = 'export const line = "0123456789012345678901234567890123456789";\n'.repeat(15_000);
    const h = await agentHarness(t, { files: { 'src/a.ts': 'export const a = 1;\n' } });
    h.fake.chat.queue({ ...calls(['create_file', { path: 'src/big.ts', content }]), json: true }, says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Write a lot', files: ['src/**'] });
    await h.completed(taskId);
    assert.equal(h.file('src/big.ts'), content);
    const [change] = (await h.agents.status(taskId)).changes;
    const cut = /\n\\ diff too large: (\d+) characters, the first (\d+) shown\n$/;
    const [, total, shown] = cut.exec(change!.diff)!;
    assert.ok(Number(total) > content.length, 'the note gives the whole diff’s length');
    assert.ok(Number(shown) <= STATUS_DIFF_CHARS);
    assert.equal(change!.diff.length, Number(shown) + change!.diff.match(cut)![0].length - 1);
    assert.ok(change!.diff.startsWith('--- /dev/null\n+++ b/src/big.ts\n'));
    const step = (await h.agents.steps(taskId)).find((entry) => entry.tool === 'create_file')!;
    assert.match(step.diff!, cut);
    assert.ok(Number(cut.exec(step.diff!)![2]) <= STEP_DIFF_CHARS);
  });
});
