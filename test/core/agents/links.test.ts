// Symbolic links and an agent's walks (list_files, search, a task's globs), driven by the
// scripted model: a link out of the workspace (`outdir → ../outside`, `rootlink → /`) shows
// nothing from outside, and a glob that starts below one is a tool failure the model is told; a
// link to a folder inside is followed; a loop of links ends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { agentHarness, calls, chatRequest, MATH, says, type Harness } from './support.ts';

/** The harness's workspace with links out of it, to a folder inside it, and round a loop. */
async function linkedWorkspace(t: TestContext): Promise<Harness> {
  const h = await agentHarness(t, { files: { 'src/math.ts': MATH, 'docs/guide.md': '# Guide\n' } });
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-agent-outside-'));
  t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'the outside secret\n');
  fs.symlinkSync(outside, path.join(h.root, 'outdir'));
  fs.symlinkSync('/', path.join(h.root, 'rootlink'));
  fs.symlinkSync('src', path.join(h.root, 'alias'));
  fs.symlinkSync('..', path.join(h.root, 'docs', 'up'));
  return h;
}

/** What the model was told after its turn number `turn` (1-based): the last tool message. */
function told(h: Harness, turn: number): string {
  return chatRequest(h.fake, turn).at(-1)!.content!;
}

describe('agent tools and symbolic links', () => {
  it('shows nothing through a link out of the workspace, and tells the model a glob below one leaves it', async (t) => {
    const h = await linkedWorkspace(t);
    h.fake.chat.queue(
      calls(['list_files', { pattern: 'outdir/**' }]),
      calls(['list_files', { pattern: 'rootlink/etc/*' }]),
      calls(['list_files', {}]),
      calls(['search', { query: 'outside secret' }]),
      calls(['search', { query: 'root', pattern: 'rootlink/etc/*' }]),
      says('Looked around.'),
    );
    const { taskId } = await h.agents.run({ task: 'Look around', files: ['src/**'] });
    assert.equal((await h.completed(taskId)).data.status, 'completed');
    assert.match(told(h, 1), /^outdir is outside the workspace\./);
    assert.match(told(h, 2), /^rootlink\/etc is outside the workspace\./);
    const all = told(h, 3);
    assert.doesNotMatch(all, /outdir|rootlink|secret|passwd/);
    assert.match(all, /alias\/math\.ts/);
    assert.equal(told(h, 4), 'No line matches "outside secret".');
    assert.match(told(h, 5), /^rootlink\/etc is outside the workspace\./);
    const steps = (await h.agents.steps(taskId)).filter((step) => step.kind === 'tool');
    assert.deepEqual(
      steps.map((step) => step.ok),
      [false, false, true, true, false],
    );
  });

  it('follows a link to a folder inside the workspace, for list_files, search and a task’s globs', async (t) => {
    const h = await linkedWorkspace(t);
    h.fake.chat.queue(calls(['list_files', { pattern: '*/*.ts' }]), calls(['search', { query: 'return a - b', pattern: '**/*.ts' }]), says('Found it.'));
    const { taskId } = await h.agents.run({ task: 'Find sub', files: ['*/math.ts'] });
    assert.equal((await h.completed(taskId)).data.status, 'completed');
    // The first message lists the files the globs match, through the link too.
    assert.match(chatRequest(h.fake, 0).at(-1)!.content!, /alias\/math\.ts[^]*src\/math\.ts/);
    assert.equal(told(h, 1), '2 files match */*.ts:\nalias/math.ts\nsrc/math.ts');
    assert.equal(told(h, 2), 'alias/math.ts:6: return a - b;\nsrc/math.ts:6: return a - b;');
  });

  it('ends on a loop of links, each folder walked once along a path', async (t) => {
    const h = await linkedWorkspace(t);
    h.fake.chat.queue(calls(['list_files', { pattern: 'docs/**' }]), says('Listed.'));
    const { taskId } = await h.agents.run({ task: 'List the docs', files: ['docs/**'] });
    assert.equal((await h.completed(taskId)).data.status, 'completed');
    // docs/up leads to the workspace folder, which holds docs: a loop, not followed.
    assert.equal(told(h, 1), '1 file matches docs/**:\ndocs/guide.md');
  });

  it('refuses a task whose globs start below a link out of the workspace, at once', async (t) => {
    const h = await linkedWorkspace(t);
    for (const glob of ['rootlink/etc/*', 'outdir/**']) {
      await assert.rejects(h.agents.run({ task: 'Read it', files: [glob] }), { code: 'forbidden_path' }, glob);
    }
    // A glob that only matches through such a link matches nothing.
    await assert.rejects(h.agents.run({ task: 'Read it', files: ['*/etc/passwd'] }), { code: 'validation_error', message: /No file matches/ });
    assert.equal(h.fake.requests.length, 0, 'no model was asked');
  });
});
