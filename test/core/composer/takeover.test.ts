// A composer session taken over after its runner died: the next runner starts over, and what
// the session shows is its own attempt's result, never a mix. The first attempt is played
// through the store exactly as a runner writes (a claim whose lease has already lapsed, then
// its writes); the second is a real ComposerRunner on SQLite with a scripted OpenAI-compatible
// model, on attachments or on a bare git repository it pushes to.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { Claim } from '../../../src/core/composer/records.ts';
import { contentHash } from '../../../src/core/composer/hash.ts';
import { ComposerRunner } from '../../../src/core/composer/runner.ts';
import { GitWorkspaceClones } from '../../../src/adapters/git/clones.ts';
import { queuedSession, type ComposerSessionRecord } from '../../../src/core/composer/types.ts';
import { OpenAiProvider } from '../../../src/adapters/models/openai.ts';
import type { Store } from '../../../src/store/index.ts';
import { bareRepository, git } from '../../support/bare-repository.ts';
import { tempDir } from '../../support/cli.ts';
import { startFakeOpenAi, type FakeOpenAi, type ScriptedTurn } from '../../support/openai-fake.ts';
import { openTestStore } from '../../support/store.ts';

const BEFORE = 'export function add(a, b) {\n  return a - b;\n}\n';
const AFTER = 'export function add(a, b) {\n  return a + b;\n}\n';
const PLAN = { summary: 'Rename add to sum.', steps: ['rename it'], files: ['src/add.ts'] };

const says = (text: string): ScriptedTurn => ({ kind: 'text', text });
const fixesTheSign: ScriptedTurn = {
  kind: 'tools',
  calls: [{ id: 'call_1', name: 'edit_file', arguments: JSON.stringify({ path: 'src/add.ts', search: '  return a - b;', replace: '  return a + b;' }) }],
};

interface Setup {
  store: Store;
  fake: FakeOpenAi;
  runner: ComposerRunner;
  folder: string;
}

async function setUp(t: TestContext): Promise<Setup> {
  const fake = await startFakeOpenAi();
  t.after(() => fake.close());
  const folder = tempDir(t, 'loom-composer-takeover-');
  const store = await openTestStore(t, { dataDir: folder });
  const provider = new OpenAiProvider({ baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' });
  const runner = new ComposerRunner({
    sessions: store.composerSessions,
    workspaces: store.composerWorkspaces,
    providers: { selectChat: () => provider },
    folder: path.join(folder, 'composer'),
    clones: new GitWorkspaceClones({ folder: path.join(folder, 'composer') }),
    runnerId: 'second-runner',
  });
  return { store, fake, runner, folder };
}

async function createSession(store: Store, fields: Partial<ComposerSessionRecord>): Promise<string> {
  const id = randomUUID();
  await store.composerSessions.create({
    ...queuedSession({
      id,
      userId: 'user-1',
      prompt: 'Fix the sign in add',
      files: ['src/**'],
      mode: 'edit',
      workspace: null,
      attachments: [{ path: 'src/add.ts', content: BEFORE }],
      budgets: { maxSteps: 10, maxTokens: 100_000, timeoutSeconds: 60 },
      createdAt: new Date().toISOString(),
    }),
    ...fields,
  });
  await store.composerSessions.appendEvent(id, { type: 'status', data: { status: 'queued' }, at: new Date().toISOString() });
  return id;
}

/** A first attempt by a runner that then died: claimed under a lease that has lapsed already. */
async function diedAttempt(store: Store, id: string): Promise<Claim> {
  const now = Date.now();
  const claimed = await store.composerSessions.claim(id, 'dead-runner', now, now - 1);
  assert.ok(claimed, 'the first runner claims the session');
  const at = new Date().toISOString();
  await store.composerSessions.update(id, claimed.claim, { startedAt: at, model: 'fake-coder' });
  await store.composerSessions.appendEvent(id, { type: 'status', data: { status: 'running', attempt: 1, model: 'fake-coder' }, at }, claimed.claim);
  return claimed.claim;
}

async function eventTypes(store: Store, id: string): Promise<string[]> {
  return (await store.composerSessions.events(id, 0, 100)).map((event) => `${event.type}${event.type === 'status' ? `:${String(event.data.status)}` : ''}`);
}

function chatCalls(fake: FakeOpenAi): number {
  return fake.requests.filter((request) => request.path.endsWith('/chat/completions')).length;
}

describe('a composer session taken over after its runner died', () => {
  it("starts over: the first attempt's edits, counters and words are not the result", async (t) => {
    const { store, fake, runner } = await setUp(t);
    const id = await createSession(store, {});
    const first = await diedAttempt(store, id);
    // The first attempt had edited the file and said something before it died.
    await store.composerSessions.update(id, first, {
      edits: [{ file: 'src/add.ts', action: 'modified', diff: '-old\n+new\n', baseHash: contentHash(BEFORE), content: 'half done\n' }],
      steps: 3,
      tokens: 9_999,
      summary: 'Half way there.',
    });
    await store.composerSessions.appendEvent(id, { type: 'edit', data: { file: 'src/add.ts', action: 'modified' }, at: new Date().toISOString() }, first);

    // This time the model sees nothing to change.
    fake.chat.queue({ kind: 'text', text: 'Nothing needs changing.', usage: { prompt: 10, completion: 5 } });
    await runner.run(id);

    const session = (await store.composerSessions.get(id))!;
    assert.equal(session.status, 'completed', session.error ?? '');
    assert.equal(session.attempt, 2);
    assert.equal(session.runner, 'second-runner');
    assert.deepEqual(session.edits, [], 'no edit of the dead attempt survives');
    assert.equal(session.summary, 'Nothing needs changing.');
    assert.equal(session.steps, 1);
    assert.equal(session.tokens, 15, 'the tokens of this attempt only');
    const events = await store.composerSessions.events(id, 0, 100);
    assert.deepEqual(
      events.filter((event) => event.type === 'status').map((event) => event.data),
      [
        { status: 'queued' },
        { status: 'running', attempt: 1, model: 'fake-coder' },
        { status: 'running', attempt: 2, model: 'fake-coder' },
        { status: 'completed' },
      ],
    );
  });

  it('keeps the edits of the attempt that finished', async (t) => {
    const { store, fake, runner } = await setUp(t);
    const id = await createSession(store, {});
    const first = await diedAttempt(store, id);
    await store.composerSessions.update(id, first, {
      edits: [{ file: 'src/other.ts', action: 'created', diff: '+x\n', baseHash: null, content: 'x\n' }],
    });
    fake.chat.queue(fixesTheSign, says('Fixed the sign.'));
    await runner.run(id);
    const session = (await store.composerSessions.get(id))!;
    assert.equal(session.status, 'completed', session.error ?? '');
    assert.deepEqual(
      session.edits?.map((edit) => [edit.file, edit.action, edit.content]),
      [['src/add.ts', 'modified', AFTER]],
    );
  });

  it('a plan already written with its event: only the end is recorded, the model is not asked again', async (t) => {
    const { store, fake, runner } = await setUp(t);
    const id = await createSession(store, { mode: 'plan' });
    const first = await diedAttempt(store, id);
    // What the runner writes in one transaction: the plan and its event.
    await store.composerSessions.update(
      id,
      first,
      { plan: PLAN, steps: 1, summary: PLAN.summary },
      { type: 'plan', data: { plan: PLAN }, at: new Date().toISOString() },
    );

    await runner.run(id);

    const session = (await store.composerSessions.get(id))!;
    assert.equal(session.status, 'completed', session.error ?? '');
    assert.deepEqual(session.plan, PLAN);
    assert.equal(chatCalls(fake), 0);
    assert.deepEqual(await eventTypes(store, id), ['status:queued', 'status:running', 'plan', 'status:completed']);
  });

  it('a plan session run to its end writes its plan event once', async (t) => {
    const { store, fake, runner } = await setUp(t);
    const id = await createSession(store, { mode: 'plan' });
    fake.chat.queue(says(JSON.stringify(PLAN)));
    await runner.run(id);
    const session = (await store.composerSessions.get(id))!;
    assert.equal(session.status, 'completed', session.error ?? '');
    assert.deepEqual(session.plan, PLAN);
    assert.deepEqual(await eventTypes(store, id), ['status:queued', 'status:running', 'plan', 'status:completed']);
  });

  describe('on a git workspace that is pushed back', () => {
    async function workspaceSession(t: TestContext, setup: Setup): Promise<{ id: string; bare: string; main: string }> {
      const { bare, main } = bareRepository(t, { 'src/add.ts': BEFORE });
      await setup.store.composerWorkspaces.put({ name: 'app', repo: bare, branch: 'main', push: true, createdAt: new Date().toISOString() });
      const id = await createSession(setup.store, { workspace: 'app', attachments: [] });
      return { id, bare, main };
    }

    it('after the push was recorded: only the end is written, nothing is pushed again', async (t) => {
      const setup = await setUp(t);
      const { store, fake, runner } = setup;
      const { id, bare, main } = await workspaceSession(t, setup);
      const first = await diedAttempt(store, id);
      // The first attempt pushed its branch (here: main's commit under the session's name) and recorded it.
      const branch = `loom/composer/${id}`;
      git(bare, 'update-ref', `refs/heads/${branch}`, main);
      const edits = [{ file: 'src/add.ts', action: 'modified' as const, diff: '-a\n+b\n', baseHash: contentHash(BEFORE), content: AFTER }];
      await store.composerSessions.update(id, first, { edits, branch, commit: main, pushed: true });

      await runner.run(id);

      const session = (await store.composerSessions.get(id))!;
      assert.equal(session.status, 'completed', session.error ?? '');
      assert.deepEqual(session.edits, edits);
      assert.equal(session.commit, main);
      assert.equal(chatCalls(fake), 0, 'the model is not asked again');
      assert.equal(git(bare, 'rev-parse', `refs/heads/${branch}`), main, 'the branch is as the first attempt pushed it');
      assert.deepEqual(await eventTypes(store, id), ['status:queued', 'status:running', 'status:completed']);
    });

    it('pushed but not recorded: the one branch is replaced by the new attempt, never a second one', async (t) => {
      const setup = await setUp(t);
      const { store, fake, runner } = setup;
      const { id, bare, main } = await workspaceSession(t, setup);
      const branch = `loom/composer/${id}`;
      const first = await diedAttempt(store, id);
      // The first attempt committed something else and pushed it, then died before recording the push.
      const clone = tempDir(t, 'loom-composer-takeover-clone-');
      git(clone, 'clone', '-q', bare, '.');
      fs.writeFileSync(path.join(clone, 'src/add.ts'), 'half done\n');
      git(clone, 'commit', '-q', '-am', 'first attempt');
      git(clone, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
      const firstCommit = git(clone, 'rev-parse', 'HEAD');
      await store.composerSessions.update(id, first, { branch, commit: firstCommit });

      fake.chat.queue(fixesTheSign, says('Fixed the sign.'));
      await runner.run(id);

      const session = (await store.composerSessions.get(id))!;
      assert.equal(session.status, 'completed', session.error ?? '');
      assert.equal(session.pushed, true);
      assert.equal(session.branch, branch);
      assert.notEqual(session.commit, firstCommit);
      assert.deepEqual(git(bare, 'for-each-ref', '--format=%(refname)', 'refs/heads').split('\n').sort(), ['refs/heads/main', `refs/heads/${branch}`].sort());
      assert.equal(git(bare, 'rev-parse', `refs/heads/${branch}`), session.commit);
      assert.equal(git(bare, 'rev-parse', `${session.commit}^`), main, "the session's one commit sits on main, not on the first attempt's");
      assert.equal(git(bare, 'show', `${session.commit}:src/add.ts`), AFTER.trimEnd());
      assert.deepEqual(
        session.edits?.map((edit) => [edit.file, edit.content]),
        [['src/add.ts', AFTER]],
      );
      assert.equal((await eventTypes(store, id)).filter((type) => type === 'push').length, 1);
    });
  });
});
