// Reviewing an agent task's changes through the local API, end to end on the real server
// (`startLocal`) with the scripted OpenAI-compatible model: both sides of a change in full
// (GET /api/agent/change/:taskId), rejecting one hunk of a file (the other kept, the task's
// changes now what is left), rejecting a created file whole, then reverting what is left; and
// every request that must be refused — hunks without their version or on a stale one, out of
// the texts, overlapping, on a created file, a file not among the changes, twice the same file,
// a file edited since, a running task — refused with nothing written.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calls, MATH, says } from '../core/agents/support.ts';
import { ended, openEvents, startAgentLocal } from '../support/agent-local.ts';
import { waitFor } from '../support/wait.ts';

const TWO_EDITS_AND_A_FILE = () =>
  calls(
    ['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }],
    ['edit_file', { path: 'src/math.ts', search: '  return a - b;\n', replace: '  return -(b - a);\n' }],
    ['create_file', { path: 'src/extra.ts', content: 'export const extra = 1;\n' }],
  );
const SWAPPED = MATH.replace('a + b', 'b + a');
const BOTH = SWAPPED.replace('a - b', '-(b - a)');
/** The second edit's hunk: line 6 on both sides. */
const SECOND = { original: { start: 6, count: 1 }, changed: { start: 6, count: 1 } };

async function reviewedTask(t: Parameters<typeof startAgentLocal>[0]) {
  const agent = await startAgentLocal(t);
  agent.fake.chat.queue(TWO_EDITS_AND_A_FILE(), says('Done.'));
  const { taskId } = (await agent.local.request('POST', '/api/agent/run', { task: 'Edit math', files: ['src/**/*.ts'] })).json;
  const status = await ended(agent.local, taskId);
  assert.equal(status.status, 'completed');
  return { ...agent, taskId };
}

describe('local API: reviewing an agent task’s changes', () => {
  it('answers both sides of a change, rejects one hunk (the other kept), rejects a created file whole, then reverts what is left', async (t) => {
    const { local, file, taskId } = await reviewedTask(t);
    const events = await openEvents(t, local);
    assert.equal(file('src/math.ts'), BOTH);

    const change = await local.request('GET', `/api/agent/change/${taskId}?file=src/math.ts`);
    assert.equal(change.status, 200, change.text);
    assert.deepEqual(
      { ...change.json, version: typeof change.json.version },
      { file: 'src/math.ts', action: 'modified', original: MATH, current: BOTH, version: 'string', changedSince: false },
    );
    const created = (await local.request('GET', `/api/agent/change/${taskId}?file=src/extra.ts`)).json;
    assert.deepEqual([created.action, created.original, created.current], ['created', null, 'export const extra = 1;\n']);

    // Open in the editor: the reject goes through its document, as the window's own edits do.
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'src/math.ts' })).status, 200);
    const rejected = await local.request('POST', `/api/agent/revert/${taskId}`, {
      files: [{ file: 'src/math.ts', version: change.json.version, hunks: [SECOND] }, { file: 'src/extra.ts' }],
    });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(file('src/math.ts'), SWAPPED, 'the second hunk undone, the first kept');
    assert.equal(file('src/extra.ts'), null, 'the created file removed');
    assert.equal(rejected.json.revertedAt, undefined, 'not reverted as a whole');
    assert.deepEqual(
      rejected.json.changes.map((c: any) => [c.file, c.action]),
      [['src/math.ts', 'modified']],
    );
    assert.match(rejected.json.changes[0].diff, /\+  return b \+ a;/);
    assert.doesNotMatch(rejected.json.changes[0].diff, /b - a/);
    // Through the editor's documents: the open document changed (file:change) and was saved (file:save).
    await waitFor(() => events.some((event) => event.type === 'file:save' && event.data.path === 'src/math.ts'), undefined, 'file:save of src/math.ts');
    assert.ok(events.some((event) => event.type === 'file:change' && event.data.path === 'src/math.ts'));
    assert.equal((await local.request('GET', '/api/editor/text?path=src/math.ts')).json.text, SWAPPED);

    // The task's text is now the kept change: a new version, and the old one is stale.
    const after = (await local.request('GET', `/api/agent/change/${taskId}?file=src/math.ts`)).json;
    assert.equal(after.current, SWAPPED);
    assert.notEqual(after.version, change.json.version);
    const stale = await local.request('POST', `/api/agent/revert/${taskId}`, {
      files: [{ file: 'src/math.ts', version: change.json.version, hunks: [{ original: { start: 2, count: 1 }, changed: { start: 2, count: 1 } }] }],
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.error.code, 'REVERT_CONFLICT');
    assert.equal(file('src/math.ts'), SWAPPED);

    // A whole revert undoes what is left.
    const whole = await local.request('POST', `/api/agent/revert/${taskId}`);
    assert.equal(whole.status, 200, whole.text);
    assert.ok(whole.json.revertedAt);
    assert.equal(file('src/math.ts'), MATH);
    assert.equal(file('src/extra.ts'), null);
  });

  it('refuses what it must, nothing written: bad hunks, a stale or missing version, unknown or repeated files, a file edited since, a running task', async (t) => {
    const { local, fake, file, taskId } = await reviewedTask(t);
    const { version } = (await local.request('GET', `/api/agent/change/${taskId}?file=src/math.ts`)).json;
    const revert = (body: unknown) => local.request('POST', `/api/agent/revert/${taskId}`, body);
    const hunk = (original: [number, number], changed: [number, number]) => ({
      original: { start: original[0], count: original[1] },
      changed: { start: changed[0], count: changed[1] },
    });
    const refusals: [string, unknown, number, string][] = [
      ['hunks without a version', { files: [{ file: 'src/math.ts', hunks: [SECOND] }] }, 400, 'VALIDATION_ERROR'],
      ['a version that is not the task’s text', { files: [{ file: 'src/math.ts', version: 'deadbeefdeadbeef', hunks: [SECOND] }] }, 409, 'REVERT_CONFLICT'],
      ['a hunk past the end', { files: [{ file: 'src/math.ts', version, hunks: [hunk([6, 1], [8, 5])] }] }, 400, 'VALIDATION_ERROR'],
      ['a hunk starting past the end', { files: [{ file: 'src/math.ts', version, hunks: [hunk([6, 1], [20, 0])] }] }, 400, 'VALIDATION_ERROR'],
      ['overlapping hunks', { files: [{ file: 'src/math.ts', version, hunks: [hunk([2, 2], [2, 2]), hunk([3, 1], [3, 1])] }] }, 400, 'VALIDATION_ERROR'],
      ['hunks out of order', { files: [{ file: 'src/math.ts', version, hunks: [SECOND, hunk([2, 1], [2, 1])] }] }, 400, 'VALIDATION_ERROR'],
      ['line 0', { files: [{ file: 'src/math.ts', version, hunks: [hunk([0, 1], [0, 1])] }] }, 400, 'VALIDATION_ERROR'],
      ['a negative count', { files: [{ file: 'src/math.ts', version, hunks: [hunk([2, -1], [2, 1])] }] }, 400, 'VALIDATION_ERROR'],
      ['hunks of a created file', { files: [{ file: 'src/extra.ts', version, hunks: [hunk([1, 0], [1, 1])] }] }, 400, 'VALIDATION_ERROR'],
      ['a file not among the changes', { files: [{ file: 'package.json' }] }, 404, 'NOT_FOUND'],
      ['a path out of the workspace', { files: [{ file: '../../etc/passwd' }] }, 404, 'NOT_FOUND'],
      ['a protected path', { files: [{ file: '.git/config' }] }, 404, 'NOT_FOUND'],
      ['the same file twice', { files: [{ file: 'src/extra.ts' }, { file: 'src/extra.ts' }] }, 400, 'VALIDATION_ERROR'],
      ['no files', { files: [] }, 400, 'VALIDATION_ERROR'],
      ['an unknown field', { files: [{ file: 'src/extra.ts', force: true }] }, 400, 'VALIDATION_ERROR'],
      ['a hunk that is not one', { files: [{ file: 'src/math.ts', version, hunks: ['6,1'] }] }, 400, 'VALIDATION_ERROR'],
      ['files that are not a list', { files: 'src/math.ts' }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [what, body, status, code] of refusals) {
      const answer = await revert(body);
      assert.equal(answer.status, status, `${what}: ${answer.text}`);
      assert.equal(answer.json.error.code, code, what);
    }
    // A refusal of one file refuses the request: the good file listed with it is not touched.
    const mixed = await revert({ files: [{ file: 'src/extra.ts' }, { file: 'src/math.ts', version, hunks: [hunk([6, 1], [9, 1])] }] });
    assert.equal(mixed.status, 400);
    assert.equal(file('src/math.ts'), BOTH);
    assert.equal(file('src/extra.ts'), 'export const extra = 1;\n');

    for (const query of ['', '?file=', `?file=${encodeURIComponent('../outside.ts')}`, '?file=src/nope.ts']) {
      const answer = await local.request('GET', `/api/agent/change/${taskId}${query}`);
      assert.ok([400, 404].includes(answer.status), `${query}: ${answer.status}`);
    }
    assert.equal((await local.request('GET', '/api/agent/change/task_nope?file=src/math.ts')).status, 404);
    assert.equal((await local.request('POST', '/api/agent/revert/task_nope', { files: [{ file: 'src/math.ts' }] })).status, 404);

    // A file edited since the task: 409 naming it, and the change says so.
    local.write('src/extra.ts', 'export const extra = 2;\n');
    await waitFor(
      async () => (await local.request('GET', `/api/agent/change/${taskId}?file=src/extra.ts`)).json.changedSince === true,
      undefined,
      'changedSince',
    );
    const edited = await revert({ files: [{ file: 'src/extra.ts' }] });
    assert.equal(edited.status, 409);
    assert.deepEqual([edited.json.error.code, edited.json.error.files], ['REVERT_CONFLICT', ['src/extra.ts']]);
    assert.equal(file('src/extra.ts'), 'export const extra = 2;\n');

    // A running task (a follow-up the model is still answering): 409 TASK_RUNNING, nothing undone.
    fake.set({ holdAfterChunks: 0 });
    const held = fake.nextHold();
    assert.equal((await local.request('POST', `/api/agent/message/${taskId}`, { message: 'And more.' })).status, 200);
    await held;
    const running = await revert({ files: [{ file: 'src/math.ts', version, hunks: [SECOND] }] });
    assert.equal(running.status, 409);
    assert.equal(running.json.error.code, 'TASK_RUNNING');
    assert.equal(file('src/math.ts'), BOTH);
    assert.equal((await local.request('GET', `/api/agent/change/${taskId}?file=src/math.ts`)).json.changedSince, true, 'held by the running task');
    fake.set({ holdAfterChunks: undefined });
    fake.chat.queue(says('Nothing more.'));
    fake.release();
    await ended(local, taskId);
  });
});
