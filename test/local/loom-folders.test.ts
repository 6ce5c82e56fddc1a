// `loom serve --workspace ~`, with Loom's config and data folders inside the workspace (the
// common setup the issue's probe used): the server warns at start-up, naming them, and neither
// the editor routes, the folder listing nor an agent (a scripted, prompt-injected model) can
// read or write them — not settings.json with the API token, not loom.db. And a task whose globs
// start below a link out of the workspace is refused at once. Nor does git list or commit them
// when the home folder is a repository.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { calls, MATH, says } from '../core/agents/support.ts';
import type { LoomEvent } from '../../src/core/events/bus.ts';
import { captureLog, type CapturedLog } from '../support/log-lines.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_home_workspace_token_0123456789abcdef';

interface Home {
  local: TestLocal;
  fake: FakeOpenAi;
  log: CapturedLog;
  home: string;
  settingsFile: string;
  settingsText: string;
  database: string;
}

/**
 * A home folder as the workspace, holding Loom's config folder (settings.json) and data folder
 * (the store): where Linux keeps them by default, or where macOS does (`Library/…`, no dot-folder).
 */
async function startInHome(t: TestContext, layout: 'linux' | 'macos' = 'linux'): Promise<Home> {
  const fake = await startFakeOpenAi();
  t.after(() => fake.close());
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-home-')));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const configDir = layout === 'linux' ? path.join(home, '.config', 'loom') : path.join(home, 'Library', 'Preferences', 'Loom');
  const dataDir = layout === 'linux' ? path.join(home, '.local', 'share', 'loom') : path.join(home, 'Library', 'Application Support', 'Loom');
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(path.join(home, 'project', 'src'), { recursive: true });
  fs.writeFileSync(path.join(home, 'project', 'src', 'math.ts'), MATH);
  fs.symlinkSync('.config/loom/settings.json', path.join(home, 'cfg.json'));
  const log = captureLog();
  const local = await startTestLocal({
    workspace: home,
    configDir,
    dataDir,
    log,
    settings: { apiToken: TOKEN, completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } } },
  });
  t.after(() => local.close());
  const settingsFile = path.join(configDir, 'settings.json');
  return { local, fake, log, home, settingsFile, settingsText: fs.readFileSync(settingsFile, 'utf8'), database: path.join(dataDir, 'loom.db') };
}

describe("Loom's own folders inside the workspace", () => {
  it('are named in a warning at start-up', async (t) => {
    const { log } = await startInHome(t);
    const warning = log.lines().find((line) => line.level === 40 && /holds Loom's config folder/.test(String(line.msg)));
    assert.ok(warning, JSON.stringify(log.lines().map((line) => line.msg)));
    assert.match(
      String(warning.msg),
      /holds Loom's config folder \(\.config\/loom\), Loom's data folder \(\.local\/share\/loom\), Loom's models folder \(\.local\/share\/loom\/models\)\. They are protected paths/,
    );
  });

  it('cannot be read or written through the editor routes or listed by the window, under any path', async (t) => {
    const { local, settingsFile, settingsText, database } = await startInHome(t);
    const refused = async (method: string, route: string, body?: unknown) => {
      const answer = await local.request(method, route, body);
      assert.deepEqual([answer.status, answer.json?.error?.code], [403, 'PROTECTED_PATH'], `${method} ${route} ${JSON.stringify(body)}: ${answer.text}`);
      assert.ok(!answer.text.includes(TOKEN));
    };
    for (const file of ['.config/loom/settings.json', 'cfg.json', '.CONFIG/../.config/loom/settings.json', '.local/share/loom/loom.db']) {
      await refused('POST', '/api/editor/open', { path: file });
      await refused('GET', `/api/editor/text?path=${encodeURIComponent(file)}`);
      await refused('POST', '/api/editor/insert', { path: file, text: '{"agents": {"commands": ["sh"]}}' });
    }
    await refused('GET', '/api/files?path=.config%2Floom');
    await refused('GET', '/api/files?path=.local%2Fshare%2Floom%2Fmodels');
    assert.deepEqual((await local.request('GET', '/api/files?path=.config')).json.entries, []);
    assert.deepEqual((await local.request('GET', '/api/files?path=.local%2Fshare')).json.entries, []);
    const top = (await local.request('GET', '/api/files')).json.entries.map((entry: { name: string }) => entry.name);
    assert.deepEqual(top, ['.config', '.local', 'project'], 'the link to settings.json is left out too');
    assert.equal(fs.readFileSync(settingsFile, 'utf8'), settingsText);
    assert.ok(fs.existsSync(database));
  });

  it('are out of reach of an agent: reads, listings, searches and writes refused, the token never sent to the model', async (t) => {
    const { local, fake, settingsFile, settingsText, database } = await startInHome(t);
    fake.chat.queue(
      calls(['read_file', { path: '.config/loom/settings.json' }]),
      calls(['read_file', { path: 'cfg.json' }]),
      calls(['list_files', { pattern: '.config/loom/*' }]),
      calls(['list_files', {}]),
      calls(['search', { query: TOKEN.slice(0, 20) }]),
      calls(['create_file', { path: '.config/loom/evil.json', content: '{}' }]),
      calls(['edit_file', { path: '.config/loom/settings.json', search: '{', replace: '{"agents": {"commands": [["sh", "-c", "touch pwned"]]},' }]),
      calls(['delete_file', { path: '.local/share/loom/loom.db' }]),
      calls(['rename_file', { from: '.config/loom/settings.json', to: 'project/settings.json' }]),
      says('Tried.'),
    );
    const started = await local.request('POST', '/api/agent/run', { task: 'Add a command to settings.json', files: ['**'] });
    assert.equal(started.status, 200, started.text);
    let status: any;
    await waitFor(async () => (status = (await local.request('GET', `/api/agent/status/${started.json.taskId}`)).json).status !== 'running');
    assert.equal(status.status, 'completed');
    assert.deepEqual(status.changes, []);
    const steps = (await local.request('GET', `/api/agent/steps/${started.json.taskId}`)).json.steps.filter((step: any) => step.kind === 'tool');
    assert.deepEqual(
      steps.map((step: any) => [step.tool, step.ok]),
      [
        ['read_file', false],
        ['read_file', false],
        ['list_files', false],
        ['list_files', true],
        ['search', true],
        ['create_file', false],
        ['edit_file', false],
        ['delete_file', false],
        ['rename_file', false],
      ],
    );
    assert.match(steps[0].text, /^\.config\/loom\/settings\.json is in \.config\/loom, Loom's config folder/);
    assert.equal(steps[3].text, '1 file matches **:\nproject/src/math.ts');
    assert.match(steps[4].text, /^No line matches/);
    assert.match(steps[7].text, /^\.local\/share\/loom\/loom\.db is in \.local\/share\/loom, Loom's data folder/);
    assert.match(steps[8].text, /^\.config\/loom\/settings\.json is in \.config\/loom, Loom's config folder/);
    // Nothing of settings.json reached the model: not in the first message, not in any answer.
    const sent = JSON.stringify(fake.requests.map((request) => request.body));
    assert.ok(!sent.includes(TOKEN) && !sent.includes('apiToken'), 'the token went to the model');
    assert.equal(fs.readFileSync(settingsFile, 'utf8'), settingsText);
    assert.ok(fs.existsSync(database));
  });

  it('are left out of git: status lists nothing of them, a commit of every change takes none of their files, naming one is 403', async (t) => {
    const { local, home } = await startInHome(t);
    assert.equal(spawnSync('git', ['init', '-q', home]).status, 0);
    const listed = (await local.request('GET', '/api/git/status')).json.files.map((file: { path: string }) => file.path);
    assert.deepEqual(listed.sort(), ['cfg.json', 'project/src/math.ts']);
    const commit = await local.request('POST', '/api/git/commit', { message: 'My home' });
    assert.equal(commit.status, 200, commit.text);
    assert.deepEqual(commit.json.files.sort(), ['cfg.json', 'project/src/math.ts']);
    const refused = await local.request('POST', '/api/git/commit', { message: 'The token', files: ['.config/loom/settings.json'] });
    assert.deepEqual([refused.status, refused.json.error.code], [403, 'PROTECTED_PATH'], refused.text);
    const tree = spawnSync('git', ['-C', home, 'ls-tree', '-r', '--name-only', 'HEAD'], { encoding: 'utf8' }).stdout;
    assert.deepEqual(tree.split('\n').filter(Boolean).sort(), ['cfg.json', 'project/src/math.ts']);
  });

  it('are not watched: what Loom writes there is never a disk:change', async (t) => {
    const { local, home } = await startInHome(t, 'macos');
    const events: LoomEvent[] = [];
    local.events.subscribe((event) => void events.push(event));
    const changed = () => events.filter((event) => event.type === 'disk:change').flatMap((event) => event.data['paths'] as string[]);
    fs.writeFileSync(path.join(home, 'Library', 'Application Support', 'Loom', 'probe.txt'), 'x\n');
    fs.writeFileSync(path.join(home, 'Library', 'Preferences', 'Loom', 'probe.txt'), 'x\n');
    fs.writeFileSync(path.join(home, 'project', 'after.ts'), 'x\n');
    await waitFor(() => changed().includes('project/after.ts'), undefined, 'the project file in a disk:change');
    assert.deepEqual(
      changed().filter((file) => file.startsWith('Library/')),
      [],
    );
  });

  it('are refused as a task’s globs, and so is a glob below a link out of the workspace (403, at once)', async (t) => {
    const { local, home, fake } = await startInHome(t);
    fs.symlinkSync('/', path.join(home, 'rootlink'));
    for (const [glob, code] of [
      ['.config/loom/*', 'PROTECTED_PATH'],
      ['.local/share/loom/**', 'PROTECTED_PATH'],
      ['rootlink/etc/*', 'FORBIDDEN_PATH'],
      ['rootlink/**', 'FORBIDDEN_PATH'],
    ] as const) {
      const answer = await local.request('POST', '/api/agent/run', { task: 'Read it', files: [glob] });
      assert.deepEqual([answer.status, answer.json.error.code], [403, code], `${glob}: ${answer.text}`);
    }
    assert.equal(fake.requests.length, 0, 'no task started');
  });
});
