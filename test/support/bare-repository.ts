// Git repositories on disk for composer's tests: a bare repository an operator registers as a
// workspace (`loom admin workspaces add NAME --repo PATH`), made through a scratch clone.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

/** Runs git in `cwd` with a test identity and `main` as the first branch; its stdout, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

/**
 * A bare repository holding one commit of `files` on main, removed when the test ends.
 *
 * @example const { bare, main } = bareRepository(t, { 'src/add.ts': 'export const add = (a, b) => a - b;\n' });
 */
export function bareRepository(t: TestContext, files: Record<string, string>): { bare: string; main: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-composer-git-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const bare = path.join(root, 'app.git');
  const work = path.join(root, 'work');
  fs.mkdirSync(work);
  git(root, 'init', '-q', '--bare', bare);
  git(work, 'init', '-q');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
    fs.writeFileSync(path.join(work, name), text);
  }
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'first');
  git(work, 'push', '-q', bare, 'HEAD:refs/heads/main');
  return { bare, main: git(work, 'rev-parse', 'HEAD') };
}
