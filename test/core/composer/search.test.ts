// A composer session whose model searches with patterns that backtrack for ever: the runner
// runs the agents' own tools (RE2, bounded queries, linear globs), so the session answers, the
// model is told, and the session ends as the model ends it. Before, such a search froze the
// process that ran it (the hosted API with its in-process queue, or a worker).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ComposerRunner } from '../../../src/core/composer/runner.ts';
import { GitWorkspaceClones } from '../../../src/adapters/git/clones.ts';
import { queuedSession } from '../../../src/core/composer/types.ts';
import { OpenAiProvider } from '../../../src/adapters/models/openai.ts';
import { tempDir } from '../../support/cli.ts';
import { startFakeOpenAi } from '../../support/openai-fake.ts';
import { openTestStore } from '../../support/store.ts';

describe('a composer session searching with hostile patterns', () => {
  it('answers the model and completes', async (t) => {
    const fake = await startFakeOpenAi();
    t.after(() => fake.close());
    const folder = tempDir(t, 'loom-composer-search-');
    const store = await openTestStore(t, { dataDir: folder });
    const provider = new OpenAiProvider({ baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' });
    const runner = new ComposerRunner({
      sessions: store.composerSessions,
      workspaces: store.composerWorkspaces,
      providers: { selectChat: () => provider },
      folder: path.join(folder, 'composer'),
      clones: new GitWorkspaceClones({ folder: path.join(folder, 'composer') }),
    });
    const id = randomUUID();
    await store.composerSessions.create(
      queuedSession({
        id,
        userId: 'user-1',
        prompt: 'Find the lines of a',
        files: ['src/**'],
        mode: 'edit',
        workspace: null,
        attachments: [
          { path: 'src/add.ts', content: 'export const add = (a, b) => a + b;\n' },
          // 64 a's and a `!` take a backtracking engine minutes; 3,999 take it for ever.
          { path: 'src/a.txt', content: `${'a'.repeat(64)}!\n${'a'.repeat(3999)}!\naaaa\n` },
          // A name on which `*a*a…*b` backtracks.
          { path: `src/${'a'.repeat(60)}`, content: 'x\n' },
        ],
        budgets: { maxSteps: 5, maxTokens: 100_000, timeoutSeconds: 20 },
        createdAt: new Date().toISOString(),
      }),
    );
    fake.chat.queue(
      {
        kind: 'tools',
        calls: [
          { id: 'call_1', name: 'search', arguments: JSON.stringify({ query: '^(a+)+$', regex: true }) },
          { id: 'call_2', name: 'search', arguments: JSON.stringify({ query: '^((a+)\\2?)+$', regex: true }) },
          { id: 'call_3', name: 'list_files', arguments: JSON.stringify({ pattern: `src/${'*a'.repeat(40)}*b` }) },
        ],
      },
      { kind: 'text', text: 'Found the line.' },
    );

    await runner.run(id);

    const session = (await store.composerSessions.get(id))!;
    assert.deepEqual([session.status, session.error, session.summary], ['completed', null, 'Found the line.']);
    const chats = fake.requests.filter((request) => request.path === '/v1/chat/completions');
    const told = chats[1]!.body.messages.filter((message: { role: string }) => message.role === 'tool').map((message: { content: string }) => message.content);
    assert.deepEqual(told, [
      'src/a.txt:3: aaaa',
      'The regular expression cannot be used: invalid escape sequence `\\2`. Backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time.',
      `No file matches src/${'*a'.repeat(40)}*b.`,
    ]);
  });
});
