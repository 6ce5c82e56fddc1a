// The default workspace `loom up` offers composer: its folder, named after it, used when a
// request names no workspace and sends no attachments, refused with what to do when the folder
// cannot be a session's origin, and never written to the store.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { checkLocalRepository } from '../../../src/adapters/git/clones.ts';
import { folderWorkspace as withCheck, withDefaultWorkspace } from '../../../src/core/composer/default-workspace.ts';

const folderWorkspace = (folder: string) => withCheck(folder, { checkRepository: (candidate) => checkLocalRepository(candidate) });
import { ComposerService } from '../../../src/core/composer/service.ts';
import { LoomError } from '../../../src/core/errors.ts';
import { tempDir } from '../../support/cli.ts';
import { openTestStore } from '../../support/store.ts';

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', ...args], { cwd, stdio: 'pipe' });
}

describe("loom up's default composer workspace", () => {
  it('is named after its folder, or `workspace` when the name cannot be one', () => {
    assert.equal(folderWorkspace('/home/ada/code/app').workspace.name, 'app');
    assert.equal(folderWorkspace('/home/ada/code/my app (2)').workspace.name, 'my-app--2-');
    assert.equal(folderWorkspace('/home/ada/.dotfiles').workspace.name, 'dotfiles');
    assert.equal(folderWorkspace('/home/ada/été').workspace.name, 't-');
    assert.equal(folderWorkspace('/home/ada/日本').workspace.name, 'workspace');
    assert.deepEqual(
      { ...folderWorkspace('/home/ada/code/app').workspace, createdAt: '' },
      { name: 'app', repo: '/home/ada/code/app', branch: null, push: false, createdAt: '' },
    );
  });

  it('says why a folder cannot be a session origin: not a repository, no commit, a folder inside one', async (t) => {
    const folder = tempDir(t, 'loom-default-ws-');
    const refusal = async (dir: string) => {
      const error = await folderWorkspace(dir)
        .check()
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      if (error === undefined) return undefined;
      assert.ok(error instanceof LoomError);
      assert.equal(error.code, 'validation_error');
      assert.match(error.hint ?? '', /git init; git add; git commit/);
      return error.message;
    };
    const plain = path.join(folder, 'plain');
    fs.mkdirSync(plain);
    assert.match((await refusal(plain)) ?? '', /\(plain\) is not a git repository/);
    const empty = path.join(folder, 'empty');
    fs.mkdirSync(empty);
    git(empty, 'init', '-q');
    assert.match((await refusal(empty)) ?? '', /\(empty\) has no commit yet/);
    const repo = path.join(folder, 'repo');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'src', 'a.ts'), 'export const a = 1;\n');
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'a');
    assert.equal(await refusal(repo), undefined);
    assert.match((await refusal(path.join(repo, 'src'))) ?? '', /is a folder inside a git repository/);
  });

  it('serves a request without workspace or attachments, hides a registered one of its name, and is never stored', async (t) => {
    const folder = tempDir(t, 'loom-default-ws-');
    const store = await openTestStore(t, { dataDir: folder });
    const repo = path.join(folder, 'app');
    fs.mkdirSync(repo);
    fs.writeFileSync(path.join(repo, 'a.ts'), 'export const a = 1;\n');
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'a');
    await store.composerWorkspaces.put({
      name: 'app',
      repo: 'https://git.example.com/other/app.git',
      branch: 'main',
      push: true,
      createdAt: new Date().toISOString(),
    });
    await store.composerWorkspaces.put({
      name: 'lib',
      repo: 'https://git.example.com/team/lib.git',
      branch: null,
      push: false,
      createdAt: new Date().toISOString(),
    });
    const home = folderWorkspace(repo);
    const workspaces = withDefaultWorkspace(store.composerWorkspaces, home.workspace);
    assert.equal((await workspaces.get('app'))?.repo, repo);
    assert.deepEqual(
      (await workspaces.list()).map((workspace) => workspace.name),
      ['app', 'lib'],
    );
    const enqueued: string[] = [];
    const service = new ComposerService({
      sessions: store.composerSessions,
      workspaces: store.composerWorkspaces,
      defaultWorkspace: home,
      queue: { enqueue: async (job) => void enqueued.push(job.id) },
      limits: () => ({ maxQueuedPerUser: 10, maxRunningPerUser: 2 }),
      budgets: () => ({ maxSteps: 5, maxTokens: 10_000, timeoutSeconds: 60 }),
    });
    const created = await service.create('user-1', { prompt: 'Fix it', files: ['**/*.ts'] });
    assert.equal(created.workspace, 'app');
    assert.deepEqual(enqueued, [created.sessionId]);
    assert.equal((await service.create('user-1', { prompt: 'Fix it', files: ['**'], workspace: 'lib' })).workspace, 'lib');
    // The store holds what the operator registered, and only that.
    assert.equal((await store.composerWorkspaces.get('app'))?.repo, 'https://git.example.com/other/app.git');

    // The folder stops being a repository: the request is refused with what to do, and nothing is stored.
    fs.rmSync(path.join(repo, '.git'), { recursive: true });
    await assert.rejects(service.create('user-1', { prompt: 'Fix it', files: ['**'] }), (error: LoomError) => {
      assert.equal(error.code, 'validation_error');
      assert.match(error.message, /this server's workspace \(app\) is not a git repository/);
      return true;
    });
    assert.equal(enqueued.length, 2);
  });

  it('without one, a server with no workspace registered says how to register one', async (t) => {
    const store = await openTestStore(t, { dataDir: tempDir(t, 'loom-default-ws-') });
    const service = new ComposerService({
      sessions: store.composerSessions,
      workspaces: store.composerWorkspaces,
      queue: { enqueue: async () => {} },
      limits: () => ({ maxQueuedPerUser: 10, maxRunningPerUser: 2 }),
      budgets: () => ({ maxSteps: 5, maxTokens: 10_000, timeoutSeconds: 60 }),
    });
    await assert.rejects(service.create('user-1', { prompt: 'Fix it', files: ['**'] }), (error: LoomError) => {
      assert.equal(error.code, 'validation_error');
      assert.match(error.hint ?? '', /loom admin workspaces add NAME --repo URL_OR_PATH\. Under loom up \(npm start\) the workspace folder is the default\./);
      return true;
    });
  });
});
