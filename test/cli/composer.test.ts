// `loom composer` end to end: the real bin/loom.js, run in a scratch checkout, against a hosted
// server started through startHosted with a scripted OpenAI-compatible model and an API key in
// LOOM_TOKEN. Plan mode prints the plan; edit mode with --attach --watch prints the diffs; the
// JSON outputs parse; apply writes the files (mode kept), refuses when a file changed since
// (nothing written), refuses a hostile edit (into .git, out of the folder, through a symbolic
// link), restores what it wrote when a write fails half-way; cancel; 401 is exit 4 with a hint.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { MODES } from '../../src/cli/commands/composer.ts';
import { COMPOSER_MODES } from '../../src/contracts/composer.ts';
import type { ComposerEdit, ComposerSessionRecord } from '../../src/core/composer/types.ts';
import { bareRepository, git } from '../support/bare-repository.ts';
import { cleanEnv, ROOT, tempDir, unusedPort, type LoomResult } from '../support/cli.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';
import { signedInUser } from '../support/oauth.ts';
import { startFakeOpenAi, type FakeOpenAi, type ScriptedTurn } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const BIN = path.join(ROOT, 'bin', 'loom.js');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const ADD_BEFORE = 'export function add(a, b) {\n  return a - b;\n}\n';
const ADD_AFTER = 'export function add(a, b) {\n  return a + b;\n}\n';

/** `loom ARGS…` run in `cwd` to completion. */
function loomIn(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<LoomResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function editTurn(file: string, search: string, replace: string): ScriptedTurn {
  return { kind: 'tools', calls: [{ id: 'call_1', name: 'edit_file', arguments: JSON.stringify({ path: file, search, replace }) }] };
}
const says = (text: string): ScriptedTurn => ({ kind: 'text', text });

/** A checkout holding `files`. */
function checkout(t: TestContext, files: Record<string, string>): string {
  const dir = tempDir(t, 'loom-composer-cli-');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

function read(dir: string, file: string): string {
  return fs.readFileSync(path.join(dir, file), 'utf8');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('loom composer', () => {
  it('offers the modes the contract has', () => {
    assert.deepEqual([...MODES], [...COMPOSER_MODES]);
  });

  let fake: FakeOpenAi;
  let hosted: TestHosted;
  let userId: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    fake = await startFakeOpenAi();
    hosted = await startTestHosted({
      completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } },
      composer: { concurrency: 1 },
    });
    const { user } = await signedInUser(hosted, 'cli@example.com');
    userId = user.id;
    const { key } = await hosted.identity.apiKeys.create(user.id, { name: 'cli', expiresInDays: 1 });
    env = cleanEnv(path.join(hosted.dataDir, 'home'), { LOOM_SERVER: hosted.url, LOOM_TOKEN: key });
  });
  after(async () => {
    await hosted.close();
    await fake.close();
  });

  /** A session written straight into the store, as a hostile or broken server could answer it. */
  async function craftedSession(edits: ComposerEdit[]): Promise<string> {
    const id = randomUUID();
    const now = new Date().toISOString();
    const record: ComposerSessionRecord = {
      id,
      userId,
      prompt: 'crafted',
      files: ['**'],
      mode: 'edit',
      workspace: null,
      attachments: [{ path: 'a.txt', content: 'a\n' }],
      base: null,
      conversation: [],
      startEdits: null,
      status: 'completed',
      budgets: { maxSteps: 10, maxTokens: 1000, timeoutSeconds: 60 },
      model: 'fake-coder',
      plan: null,
      edits,
      branch: null,
      commit: null,
      pushed: false,
      error: null,
      summary: null,
      steps: 1,
      tokens: 1,
      createdAt: now,
      startedAt: now,
      endedAt: now,
      runner: null,
      attempt: 1,
      leaseUntil: null,
      cancelRequested: false,
    };
    await hosted.store.composerSessions.create(record);
    return id;
  }

  it('plan mode: --attach --watch prints the plan; nothing changes here', async (t) => {
    const dir = checkout(t, { 'src/add.ts': ADD_BEFORE });
    fake.chat.queue(says('{"summary": "Rename add to sum.", "steps": ["Rename the function", "Update callers"], "files": ["src/add.ts"]}'));
    const result = await loomIn(dir, ['composer', 'Rename add to sum', '--files', 'src/**', '--mode', 'plan', '--attach', '--watch'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Plan: Rename add to sum\.$/m);
    assert.match(result.stdout, /^ {2}1\. Rename the function$/m);
    assert.match(result.stdout, /^ {2}2\. Update callers$/m);
    assert.match(result.stdout, /^● completed$/m);
    assert.equal(read(dir, 'src/add.ts'), ADD_BEFORE);
    // The model saw the attached file.
    assert.match(JSON.stringify(fake.requests.at(-1)), /return a - b/);
  });

  it('edit mode: --attach --watch shows the diff as it comes; apply --dry-run writes nothing; apply writes it, mode kept', async (t) => {
    const dir = checkout(t, { 'src/add.ts': ADD_BEFORE, 'node_modules/x/index.js': 'x\n', 'README.md': '# r\n' });
    fs.chmodSync(path.join(dir, 'src/add.ts'), 0o754);
    fs.mkdirSync(path.join(dir, '.git'));
    fs.writeFileSync(path.join(dir, '.git/config'), 'secret\n');
    fake.chat.queue(editTurn('src/add.ts', 'return a - b;', 'return a + b;'), says('Fixed the sign.'));
    const watched = await loomIn(dir, ['composer', 'Fix add', '--files', 'src/**', '--attach', '--watch'], env);
    assert.equal(watched.code, 0, watched.stderr);
    assert.match(watched.stdout, /^modified src\/add\.ts$/m);
    assert.match(watched.stdout, /^--- a\/src\/add\.ts$/m);
    assert.match(watched.stdout, /^- {2}return a - b;$/m);
    assert.match(watched.stdout, /^\+ {2}return a \+ b;$/m);
    assert.match(watched.stdout, /^Fixed the sign\.$/m);
    const id = /loom composer apply (\S+)/.exec(watched.stdout)?.[1];
    assert.match(id ?? '', UUID);
    assert.equal(read(dir, 'src/add.ts'), ADD_BEFORE, 'nothing changes before apply');

    const dry = await loomIn(dir, ['composer', 'apply', id!, '--dry-run', '--json'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(JSON.parse(dry.stdout), { sessionId: id, applied: false, dryRun: true, edits: [{ file: 'src/add.ts', action: 'modified' }] });
    assert.equal(read(dir, 'src/add.ts'), ADD_BEFORE);

    const applied = await loomIn(dir, ['composer', 'apply', id!], env);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /^Applied 1 edit to .*:\n {2}modified src\/add\.ts$/m);
    assert.equal(read(dir, 'src/add.ts'), ADD_AFTER);
    assert.equal(fs.statSync(path.join(dir, 'src/add.ts')).mode & 0o777, 0o754);
    assert.equal(read(dir, '.git/config'), 'secret\n');

    // Applied once, the file is no longer as the session found it: a second apply is refused.
    const again = await loomIn(dir, ['composer', 'apply', id!], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /src\/add\.ts \(changed since the session read it\)/);
  });

  it("say: continues an ended session; --watch follows only the run it starts; watch then follows the latest run; apply writes both runs' edits", async (t) => {
    const dir = checkout(t, { 'src/add.ts': ADD_BEFORE });
    fake.chat.queue(editTurn('src/add.ts', 'return a - b;', 'return a + b;'), says('Fixed the sign.'));
    const first = await loomIn(dir, ['composer', 'Fix add', '--files', 'src/**', '--attach', '--watch'], env);
    assert.equal(first.code, 0, first.stderr);
    const id = /loom composer apply (\S+)/.exec(first.stdout)![1]!;

    fake.chat.queue(
      { kind: 'tools', calls: [{ id: 'call_2', name: 'create_file', arguments: JSON.stringify({ path: 'src/sub.ts', content: 'export const sub = 1;\n' }) }] },
      says('Added sub.'),
    );
    const said = await loomIn(dir, ['composer', 'say', id, 'Add sub.ts too.', '--watch'], env);
    assert.equal(said.code, 0, said.stderr);
    assert.match(said.stdout, /^created src\/sub\.ts$/m);
    assert.match(said.stdout, /^Added sub\.$/m);
    assert.doesNotMatch(said.stdout, /Fixed the sign\./, 'the first run is not shown again');
    assert.match(said.stdout, /2 edits; write them here with: loom composer apply/);

    const watched = await loomIn(dir, ['composer', 'watch', id, '--json'], env);
    assert.equal(watched.code, 0, watched.stderr);
    const lines = watched.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(lines[0].data, { message: 'Add sub.ts too.' });
    assert.equal(lines.at(-1).messages.length, 1);

    const applied = await loomIn(dir, ['composer', 'apply', id], env);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(read(dir, 'src/add.ts'), ADD_AFTER);
    assert.equal(read(dir, 'src/sub.ts'), 'export const sub = 1;\n');

    // Refused: an empty message before anything is sent, a running session by the server.
    const empty = await loomIn(dir, ['composer', 'say', id, '  '], env);
    assert.equal(empty.code, 2, empty.stderr);
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    t.after(() => fake.chat.release());
    const heldNow = fake.chat.held();
    assert.equal((await loomIn(dir, ['composer', 'say', id, 'Think more.'], env)).code, 0);
    await heldNow;
    const busy = await loomIn(dir, ['composer', 'say', id, 'And more.'], env);
    assert.equal(busy.code, 1, busy.stderr);
    assert.match(busy.stderr, /a message continues a session once it has ended/);
    await loomIn(dir, ['composer', 'cancel', id], env);
  });

  it('--workspace: a session on a registered git repository shows the diff and the pushed branch; apply writes it into a clone', async (t) => {
    const { bare } = bareRepository(t, { 'src/add.ts': ADD_BEFORE, 'README.md': '# app\n' });
    await hosted.store.composerWorkspaces.put({ name: 'app', repo: bare, branch: 'main', push: true, createdAt: new Date().toISOString() });
    t.after(() => hosted.store.composerWorkspaces.remove('app'));
    const dir = tempDir(t, 'loom-composer-clone-');
    git(dir, 'clone', '-q', bare, '.');
    fake.chat.queue(editTurn('src/add.ts', 'return a - b;', 'return a + b;'), says('Fixed the sign.'));
    const watched = await loomIn(dir, ['composer', 'Fix add', '--files', 'src/**', '--workspace', 'app', '--watch'], env);
    assert.equal(watched.code, 0, watched.stderr);
    assert.match(watched.stdout, /^- {2}return a - b;$/m);
    assert.match(watched.stdout, /^\+ {2}return a \+ b;$/m);
    const id = /loom composer apply (\S+)/.exec(watched.stdout)?.[1] ?? '';
    assert.match(id, UUID);
    assert.match(watched.stdout, new RegExp(`^pushed loom/composer/${id} at [0-9a-f]{12}$`, 'm'));
    assert.match(watched.stdout, new RegExp(`^On branch loom/composer/${id} \\(pushed\\)\\.$`, 'm'));
    assert.equal(read(dir, 'src/add.ts'), ADD_BEFORE, 'nothing changes here before apply');

    const applied = await loomIn(dir, ['composer', 'apply', id], env);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(read(dir, 'src/add.ts'), ADD_AFTER);
    // What was applied is what the pushed branch holds.
    git(dir, 'fetch', '-q', 'origin');
    assert.equal(git(dir, 'diff', `origin/loom/composer/${id}`, '--', 'src/add.ts'), '');
  });

  it('watch: a session taken over by another runner says it started over', async () => {
    const id = await craftedSession([{ file: 'a.txt', action: 'modified', diff: '-a\n+b\n', baseHash: sha256('a\n'), content: 'b\n' }]);
    const at = new Date().toISOString();
    for (const data of [{ status: 'queued' }, { status: 'running', attempt: 1 }, { status: 'running', attempt: 2 }, { status: 'completed' }])
      await hosted.store.composerSessions.appendEvent(id, { type: 'status', data, at });
    const watched = await loomIn(ROOT, ['composer', 'watch', id], env);
    assert.equal(watched.code, 0, watched.stderr);
    assert.match(
      watched.stdout,
      /^● running\n● running \(attempt 2: its runner stopped, so it started over; what came before no longer counts\)\n● completed$/m,
    );
  });

  it('--json: the answer, the NDJSON events and the session parse; status and diff', async (t) => {
    const dir = checkout(t, { 'a.txt': 'one\n' });
    fake.chat.queue(editTurn('a.txt', 'one', 'two'), says('Done.'));
    const created = await loomIn(dir, ['composer', 'Say two', '--files', 'a.txt', '--attach', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const answer = JSON.parse(created.stdout);
    assert.match(answer.sessionId, UUID);
    assert.ok(['queued', 'running'].includes(answer.status));
    assert.equal(answer.workspace, null);

    const watched = await loomIn(dir, ['composer', 'watch', answer.sessionId, '--json'], env);
    assert.equal(watched.code, 0, watched.stderr);
    const lines = watched.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const session = lines.pop();
    assert.equal(session.sessionId, answer.sessionId);
    assert.equal(session.status, 'completed');
    assert.deepEqual(
      lines.map((event) => event.seq),
      lines.map((_, index) => index + 1),
    );
    assert.ok(lines.some((event) => event.type === 'edit' && event.data.file === 'a.txt'));
    assert.deepEqual(lines.at(-1).data, { status: 'completed' });

    const status = await loomIn(dir, ['composer', 'status', answer.sessionId, '--json'], env);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).edits[0].content, 'two\n');
    const human = await loomIn(dir, ['composer', 'status', answer.sessionId], env);
    assert.match(human.stdout, new RegExp(`^${answer.sessionId} completed \\(edit\\)`, 'm'));
    assert.match(human.stdout, /^ {4}modified a\.txt$/m);

    const diff = await loomIn(dir, ['composer', 'diff', answer.sessionId], env);
    assert.equal(diff.code, 0, diff.stderr);
    assert.equal(diff.stdout, '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n');
  });

  it('apply refuses when a file changed since the session read it, and writes nothing', async (t) => {
    const dir = checkout(t, { 'a.txt': 'one\n', 'b.txt': 'bee\n' });
    fake.chat.queue(editTurn('a.txt', 'one', 'two'), editTurn('b.txt', 'bee', 'wasp'), says('Both.'));
    const created = await loomIn(dir, ['composer', 'Change both', '--files', '*.txt', '--attach', '--watch'], env);
    assert.equal(created.code, 0, created.stderr);
    const id = /loom composer apply (\S+)/.exec(created.stdout)![1]!;
    fs.writeFileSync(path.join(dir, 'b.txt'), 'bee, edited here meanwhile\n');
    const refused = await loomIn(dir, ['composer', 'apply', id, '--json'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Refused: a file has changed since the session read it, so nothing was written: b\.txt \(changed since the session read it\)/);
    assert.deepEqual(JSON.parse(refused.stdout), {
      sessionId: id,
      applied: false,
      hostile: false,
      conflicts: [{ file: 'b.txt', reason: 'changed since the session read it' }],
    });
    assert.equal(read(dir, 'a.txt'), 'one\n', 'the file that had not changed is not written either');
    assert.equal(read(dir, 'b.txt'), 'bee, edited here meanwhile\n');
  });

  it('apply refuses an edit into .git, out of the folder or through a symbolic link out, as hostile; nothing written', async (t) => {
    const outside = tempDir(t, 'loom-composer-outside-');
    const dir = checkout(t, { 'a.txt': 'a\n', '.git/config': '[core]\n' });
    fs.symlinkSync(outside, path.join(dir, 'out'));
    const fine: ComposerEdit = { file: 'a.txt', action: 'modified', diff: '', baseHash: sha256('a\n'), content: 'b\n' };
    for (const [edit, why] of [
      [
        { file: '.git/config', action: 'modified', diff: '', baseHash: sha256('[core]\n'), content: '[core]\n\tfsmonitor = evil\n' },
        /\.git\/config \(in \.git/,
      ],
      [{ file: '.git/hooks/pre-commit', action: 'created', diff: '', baseHash: null, content: 'evil' }, /\.git\/hooks\/pre-commit/],
      [{ file: '../escape.txt', action: 'created', diff: '', baseHash: null, content: 'evil' }, /\.\.\/escape\.txt \(leaves the folder/],
      [{ file: 'out/evil.txt', action: 'created', diff: '', baseHash: null, content: 'evil' }, /out\/evil\.txt \(/],
      [{ file: 'b.txt', action: 'renamed', from: '.loom/settings.json', diff: '', baseHash: sha256('x'), content: 'x' }, /\.loom\/settings\.json \(in \.loom/],
    ] as [ComposerEdit, RegExp][]) {
      const id = await craftedSession([fine, edit]);
      const result = await loomIn(dir, ['composer', 'apply', id, '--json'], env);
      assert.equal(result.code, 1, `${edit.file}: ${result.stdout}`);
      assert.match(result.stderr, /Refused: the session names paths no edit may touch/);
      assert.match(result.stderr, why);
      assert.equal(JSON.parse(result.stdout).hostile, true);
    }
    assert.equal(read(dir, 'a.txt'), 'a\n');
    assert.equal(read(dir, '.git/config'), '[core]\n');
    assert.deepEqual(fs.readdirSync(outside), []);
    assert.equal(fs.existsSync(path.join(dir, '..', 'escape.txt')), false);
  });

  it('apply restores what it wrote when a write fails half-way (a file where a later edit needs a folder)', async (t) => {
    const dir = checkout(t, { 'a.txt': 'a\n', 'gone.txt': 'bye\n' });
    fs.chmodSync(path.join(dir, 'gone.txt'), 0o600);
    const id = await craftedSession([
      { file: 'a.txt', action: 'modified', diff: '', baseHash: sha256('a\n'), content: 'changed\n' },
      { file: 'gone.txt', action: 'deleted', diff: '', baseHash: sha256('bye\n'), content: null },
      { file: 'new/deep.txt', action: 'created', diff: '', baseHash: null, content: 'new\n' },
      { file: 'd', action: 'created', diff: '', baseHash: null, content: 'a file\n' },
      { file: 'd/x.txt', action: 'created', diff: '', baseHash: null, content: 'needs d to be a folder\n' },
    ]);
    const result = await loomIn(dir, ['composer', 'apply', id], env);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /Applying failed half-way: .*Every file written was restored\./);
    assert.equal(read(dir, 'a.txt'), 'a\n');
    assert.equal(read(dir, 'gone.txt'), 'bye\n');
    assert.equal(fs.statSync(path.join(dir, 'gone.txt')).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['a.txt', 'gone.txt']);
  });

  it('cancel: a running session stops; watch then exits 1', async (t) => {
    const dir = checkout(t, { 'a.txt': 'a\n' });
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    t.after(() => fake.chat.release());
    const heldNow = fake.chat.held();
    const created = await loomIn(dir, ['composer', 'Think slowly', '--files', 'a.txt', '--attach', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const { sessionId } = JSON.parse(created.stdout);
    await heldNow;
    const cancelled = await loomIn(dir, ['composer', 'cancel', sessionId, '--json'], env);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.equal(JSON.parse(cancelled.stdout).cancelRequested, true);
    await waitFor(
      async () => JSON.parse((await loomIn(dir, ['composer', 'status', sessionId, '--json'], env)).stdout).status === 'cancelled',
      undefined,
      'the cancel',
    );
    fake.chat.release();
    const watched = await loomIn(dir, ['composer', 'watch', sessionId], env);
    assert.equal(watched.code, 1);
    assert.match(watched.stdout, /^● cancelled$/m);
    const applied = await loomIn(dir, ['composer', 'apply', sessionId], env);
    assert.equal(applied.code, 1);
    assert.match(applied.stderr, /ended cancelled.*--partial/);
  });

  it('sign-in needed: a token the server refuses (401), or none at all, is exit 4 with a hint', async (t) => {
    const dir = checkout(t, { 'a.txt': 'a\n' });
    const refused = await loomIn(dir, ['composer', 'status', randomUUID(), '--token', 'loom_not-a-real-key-000000000000000000000000'], env);
    assert.equal(refused.code, 4, refused.stderr);
    assert.match(refused.stderr, /does not accept the token given.*loom login --server/);
    const { LOOM_TOKEN: _, ...withoutToken } = env;
    const none = await loomIn(dir, ['composer', 'Do it', '--files', 'a.txt', '--attach'], withoutToken);
    assert.equal(none.code, 4, none.stderr);
    assert.match(none.stderr, /not signed in to .*loom login --server .*LOOM_TOKEN/);
  });

  it('unreachable: nothing answering at --server is exit 3, signed in or not, never "sign-in needed"', async (t) => {
    const dir = checkout(t, { 'a.txt': 'a\n' });
    const server = `http://127.0.0.1:${await unusedPort()}`;
    const { LOOM_TOKEN: _, ...withoutToken } = env;
    const id = randomUUID();
    for (const [args, environment] of [
      [['composer', 'status', id, '--server', server], withoutToken],
      [['composer', 'status', id, '--server', server, '--token', 'loom_not-a-real-key-000000000000000000000000'], withoutToken],
      [['composer', 'Do it', '--files', 'a.txt', '--attach', '--server', server], withoutToken],
    ] as const) {
      const result = await loomIn(dir, [...args], environment);
      assert.equal(result.code, 3, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`Cannot reach the hosted API at ${server}`));
      assert.doesNotMatch(result.stderr, /not signed in/);
    }
  });

  it('refuses before sending: no file matches --files; --attach with --workspace', async (t) => {
    const dir = checkout(t, { 'a.txt': 'a\n' });
    const requests = fake.requests.length;
    const none = await loomIn(dir, ['composer', 'Do it', '--files', 'src/**', '--attach'], env);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no file under .* matches --files src\/\*\*/);
    const both = await loomIn(dir, ['composer', 'Do it', '--files', 'a.txt', '--attach', '--workspace', 'app'], env);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--workspace and --attach exclude each other/);
    assert.equal(fake.requests.length, requests);
  });
});
