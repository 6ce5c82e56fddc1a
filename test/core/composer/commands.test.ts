// A composer session (a hosted session on the server's model) never runs a command: its toolbox
// has no run_command, so there is nothing to ask the user and nothing to approve, whatever the
// model asks for; it is told there is no such tool. Only the desktop app's agent tasks run commands.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ComposerRunner } from '../../../src/core/composer/runner.ts';
import { GitWorkspaceClones } from '../../../src/adapters/git/clones.ts';
import { queuedSession } from '../../../src/core/composer/types.ts';
import { OpenAiProvider } from '../../../src/adapters/models/openai.ts';
import { tempDir } from '../../support/cli.ts';
import { startFakeOpenAi } from '../../support/openai-fake.ts';
import { openTestStore } from '../../support/store.ts';

describe('a composer session and commands', () => {
  it('offers no run_command, and a call of it runs nothing', async (t) => {
    const fake = await startFakeOpenAi();
    t.after(() => fake.close());
    const folder = tempDir(t, 'loom-composer-commands-');
    const marker = path.join(os.tmpdir(), `loom-composer-ran-${randomUUID()}`);
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
        prompt: 'Run the tests',
        files: ['src/**'],
        mode: 'edit',
        workspace: null,
        attachments: [{ path: 'src/add.ts', content: 'export const add = (a, b) => a + b;\n' }],
        budgets: { maxSteps: 5, maxTokens: 100_000, timeoutSeconds: 20 },
        createdAt: new Date().toISOString(),
      }),
    );
    const command = `node -e "require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')"`;
    fake.chat.queue(
      { kind: 'tools', calls: [{ id: 'call_1', name: 'run_command', arguments: JSON.stringify({ command }) }] },
      { kind: 'text', text: 'I could not run it.' },
    );

    await runner.run(id);

    const chats = fake.requests.filter((request) => request.path === '/v1/chat/completions');
    assert.ok(!chats[0]!.body.tools.some((tool: { function: { name: string } }) => tool.function.name === 'run_command'), 'not offered');
    const told = chats[1]!.body.messages.filter((message: { role: string }) => message.role === 'tool').map((message: { content: string }) => message.content);
    assert.match(told[0], /^There is no tool "run_command"\./);
    assert.equal(fs.existsSync(marker), false, 'nothing ran');
    assert.equal((await store.composerSessions.get(id))!.status, 'completed');
  });
});
