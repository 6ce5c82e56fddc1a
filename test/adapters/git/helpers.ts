// Real repositories in temporary folders, with a git environment that reads none of the
// developer's configuration (no global or system config, HOME pointed into the sandbox).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { LoomError } from '../../../src/core/errors.ts';
import { GitCliWorkspace } from '../../../src/adapters/git/git.ts';
import type { GitWorkspaceOptions } from '../../../src/core/git/index.ts';

export interface Sandbox {
  /** Real path of the sandbox folder. */
  dir: string;
  /** The environment for GitCliWorkspace: no identity, no global config. */
  env: NodeJS.ProcessEnv;
  /** Runs git (with a test identity) and returns its stdout without the final newline. */
  git(cwd: string, ...args: string[]): string;
  /** A new repository with one commit (`README.md`) on `main`. */
  repo(name?: string, options?: { commit?: boolean }): string;
  /** A bare repository on `main`, registered as `origin` of `repo` and pushed to. */
  remote(repo: string, name?: string): string;
  /** A clone of `bare`, for making the remote move on. */
  clone(bare: string, name: string): string;
  workspace(root: string, options?: Partial<GitWorkspaceOptions>): GitCliWorkspace;
  write(file: string, text: string): void;
}

export function sandbox(t: TestContext): Sandbox {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-git-')));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_CONFIG_NOSYSTEM: '1' };
  for (const name of Object.keys(env)) if (name.startsWith('GIT_') && name !== 'GIT_CONFIG_NOSYSTEM') delete env[name];
  const helperEnv = {
    ...env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };

  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: helperEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trimEnd();
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  const box: Sandbox = {
    dir,
    env,
    git,
    write,
    repo(name = 'repo', options = {}) {
      const root = path.join(dir, name);
      fs.mkdirSync(root, { recursive: true });
      git(root, 'init', '-q', '-b', 'main');
      if (options.commit !== false) {
        write(path.join(root, 'README.md'), '# test\n');
        git(root, 'add', 'README.md');
        git(root, 'commit', '-q', '-m', 'initial');
      }
      return root;
    },
    remote(repo, name = 'origin') {
      const bare = path.join(dir, `${path.basename(repo)}-${name}.git`);
      git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
      git(repo, 'remote', 'add', name, bare);
      git(repo, 'push', '-q', '-u', name, 'main');
      return bare;
    },
    clone(bare, name) {
      const target = path.join(dir, name);
      git(dir, 'clone', '-q', bare, target);
      return target;
    },
    workspace(root, options = {}) {
      // Time limits that only guard against hangs (starting git on a loaded machine is slow);
      // tests of the limits set their own.
      return new GitCliWorkspace({ root, env, timeoutMs: 60_000, longTimeoutMs: 60_000, ...options });
    },
  };
  return box;
}

/** Asserts that `promise` rejects with a LoomError of `code` and returns it. */
export async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<LoomError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LoomError, `expected a LoomError, got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`);
    if (message) assert.match(error.message, message);
    return error;
  }
  assert.fail(`expected a LoomError ${code}, but it resolved`);
}
