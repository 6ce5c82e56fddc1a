// A composer session's copy is indexed with the code index before its model starts, the index
// follows the session's edits, and it is closed with the session; the next session of the same
// workspace (here: on the same attachments) finds the parsed content in the cache, by its hash,
// and parses nothing again.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sessionCodeIndexes } from '../../../src/compose/code-intel.ts';
import type { BuildSummary } from '../../../src/core/code/model.ts';
import { ComposerRunner } from '../../../src/core/composer/runner.ts';
import { queuedSession } from '../../../src/core/composer/types.ts';
import { GitWorkspaceClones } from '../../../src/adapters/git/clones.ts';
import { OpenAiProvider } from '../../../src/adapters/models/openai.ts';
import { tempDir } from '../../support/cli.ts';
import { startFakeOpenAi } from '../../support/openai-fake.ts';
import { openTestStore } from '../../support/store.ts';

const SETTINGS = { maxFileBytes: 1024 * 1024, maxFiles: 1000, dependencies: false, background: true, workers: 0 } as const;

describe("a composer session's code index", () => {
  it('indexes the copy, follows its edits, closes with it, and is reused by the next session of the workspace', async (t) => {
    const fake = await startFakeOpenAi();
    t.after(() => fake.close());
    const folder = tempDir(t, 'loom-composer-index-');
    const store = await openTestStore(t, { dataDir: folder });
    const provider = new OpenAiProvider({ baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' });
    const composer = path.join(folder, 'composer');
    const open = sessionCodeIndexes(composer, SETTINGS);
    const builds: BuildSummary[] = [];
    const seenAtEnd: string[][] = [];
    const runner = new ComposerRunner({
      sessions: store.composerSessions,
      workspaces: store.composerWorkspaces,
      providers: { selectChat: () => provider },
      folder: composer,
      clones: new GitWorkspaceClones({ folder: composer }),
      codeIndex: (key, copy) => {
        const stack = open(key, copy);
        const refresh = stack.index.refresh.bind(stack.index);
        stack.index.refresh = async (options) => {
          const summary = await refresh(options);
          builds.push(summary);
          return summary;
        };
        return {
          index: stack.index,
          close: async () => {
            // What the index holds when the session ends: the session's own edit included.
            seenAtEnd.push((await stack.index.findSymbols('sum')).map((hit) => `${hit.path}:${hit.name}`));
            await stack.close();
          },
        };
      },
    });
    const attachments = [
      { path: 'src/add.ts', content: 'export function add(a: number, b: number) {\n  return a - b;\n}\n' },
      { path: 'src/util.ts', content: 'export function twice(x: number) {\n  return x * 2;\n}\n' },
      { path: 'src/main.ts', content: "import { add } from './add';\nexport const total = add(1, 2);\n" },
    ];
    const session = async () => {
      const id = randomUUID();
      await store.composerSessions.create(
        queuedSession({
          id,
          userId: 'user-1',
          prompt: 'Add sum',
          files: ['src/**'],
          mode: 'edit',
          workspace: null,
          attachments,
          budgets: { maxSteps: 5, maxTokens: 100_000, timeoutSeconds: 60 },
          createdAt: new Date().toISOString(),
        }),
      );
      fake.chat.queue(
        {
          kind: 'tools',
          calls: [
            {
              id: 'call_1',
              name: 'edit_file',
              arguments: JSON.stringify({
                path: 'src/util.ts',
                search: 'export function twice(x: number) {',
                replace: 'export function sum(a: number, b: number) {\n  return a + b;\n}\nexport function twice(x: number) {',
              }),
            },
          ],
        },
        { kind: 'text', text: 'Added sum.' },
      );
      await runner.run(id);
      const record = (await store.composerSessions.get(id))!;
      const told = fake.requests.at(-1)!.body.messages.filter((message: { role: string }) => message.role === 'tool');
      assert.equal(record.edits?.length, 1, JSON.stringify(told));
      assert.deepEqual([record.status, record.error], ['completed', null]);
    };

    await session();
    assert.equal(builds.length >= 1, true);
    assert.equal(builds[0]!.parsed, 3, JSON.stringify(builds[0]));
    assert.deepEqual(seenAtEnd[0], ['src/util.ts:sum']);
    const databases = fs.readdirSync(path.join(composer, 'code-index'));
    assert.equal(databases.length, 1, 'one index database for the sessions of one workspace');
    // The copy is gone with the session.
    assert.deepEqual(fs.readdirSync(path.join(composer, 'scratch')), []);

    await session();
    const second = builds.at(-1)!;
    assert.deepEqual([second.parsed, second.reused], [0, 3], JSON.stringify(second));
    assert.deepEqual(seenAtEnd[1], ['src/util.ts:sum']);
    assert.deepEqual(fs.readdirSync(path.join(composer, 'code-index')), databases);
  });
});
