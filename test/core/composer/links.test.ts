// A composer session on an untrusted repository that commits `rootlink → /`: its scratch copy
// (a worktree in the server's data dir) shows the model nothing outside it — not the server's
// /etc, not the data dir's loom.db — whether through the session's globs or the model's tools.
// A real ComposerRunner on SQLite with a scripted OpenAI-compatible model.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ComposerRunner } from '../../../src/core/composer/runner.ts';
import { GitWorkspaceClones } from '../../../src/adapters/git/clones.ts';
import { queuedSession, type ComposerSessionRecord } from '../../../src/core/composer/types.ts';
import { OpenAiProvider } from '../../../src/adapters/models/openai.ts';
import type { Store } from '../../../src/store/index.ts';
import { bareRepository, git } from '../../support/bare-repository.ts';
import { tempDir } from '../../support/cli.ts';
import { startFakeOpenAi, type FakeOpenAi, type ScriptedTurn } from '../../support/openai-fake.ts';
import { openTestStore } from '../../support/store.ts';

const ADD = 'export function add(a, b) {\n  return a - b;\n}\n';

interface Setup {
  store: Store;
  fake: FakeOpenAi;
  runner: ComposerRunner;
  /** The server's data dir: the store (loom.db) and composer's clones and worktrees. */
  dataDir: string;
}

/** The runner, and a registered workspace whose repository holds src/add.ts and `rootlink → /`. */
async function setUp(t: TestContext): Promise<Setup> {
  const fake = await startFakeOpenAi();
  t.after(() => fake.close());
  const dataDir = fs.realpathSync(tempDir(t, 'loom-composer-links-'));
  const store = await openTestStore(t, { dataDir });
  const { bare } = bareRepository(t, { 'src/add.ts': ADD });
  const work = path.join(path.dirname(bare), 'links');
  git(path.dirname(bare), 'clone', '-q', bare, work);
  fs.symlinkSync('/', path.join(work, 'rootlink'));
  git(work, 'add', 'rootlink');
  git(work, 'commit', '-q', '-m', 'a link to the root');
  git(work, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
  await store.composerWorkspaces.put({ name: 'app', repo: bare, branch: 'main', push: false, createdAt: new Date().toISOString() });
  const provider = new OpenAiProvider({ baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' });
  const runner = new ComposerRunner({
    sessions: store.composerSessions,
    workspaces: store.composerWorkspaces,
    providers: { selectChat: () => provider },
    folder: path.join(dataDir, 'composer'),
    clones: new GitWorkspaceClones({ folder: path.join(dataDir, 'composer') }),
  });
  return { store, fake, runner, dataDir };
}

async function runSession(setup: Setup, files: string[]): Promise<ComposerSessionRecord> {
  const id = randomUUID();
  await setup.store.composerSessions.create(
    queuedSession({
      id,
      userId: 'user-1',
      prompt: 'Look around',
      files,
      mode: 'edit',
      workspace: 'app',
      attachments: [],
      budgets: { maxSteps: 10, maxTokens: 100_000, timeoutSeconds: 60 },
      createdAt: new Date().toISOString(),
    }),
  );
  await setup.runner.run(id);
  return (await setup.store.composerSessions.get(id))!;
}

function toolCall(name: string, args: Record<string, unknown>): ScriptedTurn {
  return { kind: 'tools', calls: [{ id: `call_${randomUUID()}`, name, arguments: JSON.stringify(args) }] };
}

/** Every message the model was sent, as one text. */
function sentToModel(fake: FakeOpenAi): string {
  return JSON.stringify(fake.requests.filter((request) => request.path.endsWith('/chat/completions')).map((request) => request.body.messages));
}

describe('a composer session on a repository with a link to /', () => {
  it('refuses globs below the link at once: the model is never asked', async (t) => {
    const setup = await setUp(t);
    const session = await runSession(setup, ['rootlink/etc/*']);
    assert.equal(session.status, 'failed');
    assert.equal(session.error, 'rootlink/etc is outside the workspace.');
    assert.equal(setup.fake.requests.length, 0);
  });

  it("shows the model nothing outside its copy: not /etc, not the data dir's loom.db", async (t) => {
    const setup = await setUp(t);
    const { fake, dataDir } = setup;
    fake.chat.queue(
      toolCall('list_files', { pattern: 'rootlink/etc/*' }),
      toolCall('list_files', { pattern: `rootlink${dataDir}/*` }),
      toolCall('list_files', { pattern: '**' }),
      toolCall('search', { query: 'root:', pattern: '**' }),
      toolCall('read_file', { path: `rootlink${dataDir}/loom.db` }),
      { kind: 'text', text: 'Nothing to change.' },
    );
    const session = await runSession(setup, ['**']);
    assert.equal(session.status, 'completed', session.error ?? '');
    const sent = sentToModel(fake);
    for (const seen of ['passwd', 'hostname', 'loom.db-wal', 'loom.db-shm']) assert.ok(!sent.includes(seen), `${seen} reached the model`);
    const answers = fake.requests
      .filter((request) => request.path.endsWith('/chat/completions'))
      .slice(1)
      .map((request) => (request.body.messages as { content: string }[]).at(-1)!.content);
    assert.deepEqual(answers, [
      'rootlink/etc is outside the workspace.',
      `rootlink${dataDir} is outside the workspace.`,
      '1 file matches **:\nsrc/add.ts',
      'No line matches "root:".',
      `rootlink${dataDir}/loom.db is outside the workspace.`,
    ]);
  });
});
