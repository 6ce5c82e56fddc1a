// A composer session that uses what Loom knows of the code, end to end through startHosted (the
// production wiring of `loom hosted`, its in-process queue) with a scripted OpenAI-compatible
// model: its first turn carries the repository map of its scratch copy and the project's
// AGENTS.md; an edit that breaks a type is answered with the diagnostic the restricted
// typescript-language-server reports over the copy (in the file that imports the changed one),
// and the fix with the diagnostics it cleared.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { calls, chatRequest, says } from '../core/agents/support.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { bearer, signedInUser } from '../support/oauth.ts';
import { post, startTestHosted, type TestHosted } from '../support/hosted.ts';
import { waitFor } from '../support/wait.ts';

const SESSION = '/api/v1/composer/session';
const MATH = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n';
const ATTACHMENTS = [
  {
    path: 'tsconfig.json',
    content: JSON.stringify({ compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', noEmit: true } }),
  },
  { path: 'src/math.ts', content: MATH },
  { path: 'src/total.ts', content: "import { add } from './math';\n\nexport const total: number = add(1, 2);\n" },
  { path: 'AGENTS.md', content: '# Conventions\nKeep numbers numbers. Rule-marker-composer.\n' },
];

/** The tool messages of chat request `n`. */
function toolResults(fake: FakeOpenAi, n: number): string[] {
  return chatRequest(fake, n)
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
}

describe('composer sessions with code intelligence (map, rules, diagnostics after each edit)', () => {
  let fake: FakeOpenAi;
  let hosted: TestHosted;
  let key: string;

  before(async () => {
    fake = await startFakeOpenAi();
    hosted = await startTestHosted({
      completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } },
      composer: { concurrency: 1, languageServers: 'on' },
      // tsserver loads the copy's project while the machine may be busy.
      agents: { timeoutSeconds: 300 },
      languageServers: { requestTimeoutMs: 60_000 },
    });
    const user = await signedInUser(hosted, 'composer-intel@example.com');
    key = (await hosted.identity.apiKeys.create(user.user.id, { name: 'cli', expiresInDays: 1 })).key;
  });
  after(async () => {
    await hosted?.close();
    await fake?.close();
  });

  it('starts from the map and AGENTS.md, sees the type error its edit caused, and its fix clears it', async () => {
    fake.chat.queue(
      calls([
        'edit_file',
        { path: 'src/math.ts', search: 'export function add(a: number, b: number): number {', replace: 'export function add(a: number, b: number): string {' },
      ]),
      calls([
        'edit_file',
        { path: 'src/math.ts', search: 'export function add(a: number, b: number): string {', replace: 'export function add(a: number, b: number): number {' },
      ]),
      says('Tried a string result, then put the number back.'),
    );
    const res = await post(
      `${hosted.url}${SESSION}`,
      { prompt: 'Change what add returns', files: ['src/**/*.ts'], attachments: ATTACHMENTS },
      'application/json',
      bearer(key),
    );
    assert.equal(res.status, 201, await res.clone().text());
    const { sessionId } = (await res.json()) as { sessionId: string };
    let session: any;
    await waitFor(
      async () =>
        ['completed', 'failed', 'cancelled'].includes(
          (session = await (await fetch(`${hosted.url}${SESSION}/${sessionId}`, { headers: bearer(key) })).json()).status,
        ),
      undefined,
      'the end of the session',
    );
    assert.equal(session.status, 'completed', JSON.stringify(session));

    const first = chatRequest(fake, 0);
    assert.match(String(first[0]!.content), /Rule-marker-composer/, 'AGENTS.md in the system prompt');
    assert.match(String(first[1]!.content), /A map of the repository for this task/);
    assert.match(String(first[1]!.content), /src\/math\.ts\n\s+1│export function add/);

    assert.match(
      toolResults(fake, 1).at(-1)!,
      /\n\nDiagnostics: this change introduced 2 \(fix them next\):\n {2}src\/math\.ts:2:3: error 2322: Type 'number' is not assignable to type 'string'\.\n {2}src\/total\.ts:3:14: error 2322: Type 'string' is not assignable to type 'number'\.$/,
    );
    assert.match(
      toolResults(fake, 2).at(-1)!,
      /\n\nDiagnostics: this change fixed 2:\n {2}src\/math\.ts:2:3: error 2322[^\n]*\n {2}src\/total\.ts:3:14: error 2322/,
    );
    // The session's result: the fix undid the break, so nothing changed.
    assert.deepEqual(session.edits, []);
  });
});
