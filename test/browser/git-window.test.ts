// The git panel end to end in a real browser (Debian's chromium, driven by playwright-core)
// against the real local server, on a workspace cloned from a bare remote on disk: change a
// file, see it in the panel, open its diff against HEAD (side by side, then unified), stage it,
// commit, create and switch to a new branch, push it to the remote; a push the remote rejects
// is told in words. Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium, openSignedIn, pageProblems } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';

const available = chromiumAvailable('the git panel');
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_SYSTEM: '/dev/null' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@x', ...args], { cwd, encoding: 'utf8', env: GIT_ENV }).trim();
}

describe('the git panel in a browser', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  let root: string;
  let remote: string;
  let other: string;
  const problems: string[] = [];

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-git-window-'));
    remote = path.join(root, 'remote.git');
    other = path.join(root, 'other');
    const workspace = path.join(root, 'ws');
    git(root, 'init', '-q', '--bare', '--initial-branch=main', remote);
    git(root, 'clone', '-q', remote, other);
    fs.mkdirSync(path.join(other, 'src'));
    fs.writeFileSync(path.join(other, 'src/calc.ts'), 'export const add = (a: number, b: number) => a - b;\n');
    git(other, 'add', '.');
    git(other, 'commit', '-qm', 'start');
    git(other, 'push', '-q', 'origin', 'HEAD:main');
    git(root, 'clone', '-q', remote, workspace);
    git(workspace, 'config', 'user.name', 'Window Test');
    git(workspace, 'config', 'user.email', 'window@example.com');
    local = await startTestLocal({ workspace });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    page = await context.newPage();
    // A guard against hangs, not a measurement: a loaded machine can be slow to render.
    page.setDefaultTimeout(60_000);
    // The refusal the test causes on purpose (the browser logs it).
    pageProblems(page, [/status of 409 .*\/api\/git\/push$/], problems);
    await openSignedIn(page, local.signInLink());
  });
  after(async () => {
    await browser?.close();
    await local?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('shows a changed file and its diff against HEAD, side by side and unified', async () => {
    local.write('src/calc.ts', 'export const add = (a: number, b: number) => a + b;\n');
    await page.locator('#git-refresh').click();
    const row = page.locator('#git-changes li[data-path="src/calc.ts"]');
    await row.waitFor();
    await row.locator('.git-file').click();
    const diff = page.locator('.git-diff');
    await diff.locator('.cm-mergeView').waitFor();
    // HEAD on the left (read-only), the working tree on the right.
    assert.match(await diff.locator('.cm-merge-a .cm-content').innerText(), /a - b/);
    assert.match(await diff.locator('.cm-merge-b .cm-content').innerText(), /a \+ b/);
    assert.equal(await diff.locator('.cm-merge-a .cm-content').getAttribute('contenteditable'), 'false');
    await page.locator('#git-diff-unified').click();
    await diff.locator('.cm-deletedChunk').waitFor();
    assert.match(await diff.locator('.cm-deletedChunk').innerText(), /a - b/);
    await page.locator('#git-diff-close').click();
    await diff.waitFor({ state: 'detached' });
  });

  it('stages the file, commits what is staged, and unstaging puts it back', async () => {
    local.write('notes.txt', 'not for this commit\n');
    await page.locator('#git-refresh').click();
    await page.getByRole('button', { name: 'Stage src/calc.ts' }).click();
    await page.locator('#git-staged li[data-path="src/calc.ts"]').waitFor();
    assert.equal(await page.locator('#git-commit').innerText(), 'Commit staged (1)');
    await page.locator('#commit-message').fill('Fix add');
    await page.locator('#git-commit').click();
    await page.locator('.git-result', { hasText: 'Committed' }).waitFor();
    assert.equal(git(local.workspace, 'log', '-1', '--format=%s'), 'Fix add');
    assert.equal(git(local.workspace, 'status', '--porcelain'), '?? notes.txt');

    await page.getByRole('button', { name: 'Stage notes.txt' }).click();
    await page.locator('#git-staged li[data-path="notes.txt"]').waitFor();
    await page.getByRole('button', { name: 'Unstage notes.txt' }).click();
    await page.locator('#git-changes li[data-path="notes.txt"]').waitFor();
    fs.rmSync(path.join(local.workspace, 'notes.txt'));
  });

  it('creates a branch, switches to it, and pushes it to the bare remote', async () => {
    await page.locator('#git-new-branch').fill('feature/web');
    await page.locator('#git-create-branch').click();
    await page.locator('#git-branch', { hasText: 'feature/web' }).waitFor();
    assert.equal(git(local.workspace, 'branch', '--show-current'), 'feature/web');
    await page.locator('#git-push').click();
    await page.locator('.git-result', { hasText: 'origin/feature/web' }).waitFor();
    assert.equal(git(remote, 'rev-parse', 'refs/heads/feature/web'), git(local.workspace, 'rev-parse', 'HEAD'));
    // The branch list knows it, and switching back is one choice away.
    await page.locator('#git-branch-select').selectOption('main');
    await page.locator('#git-branch', { hasText: 'main' }).waitFor();
    assert.equal(git(local.workspace, 'branch', '--show-current'), 'main');
  });

  it('tells a rejected push in words, with what to do', async () => {
    fs.writeFileSync(path.join(other, 'theirs.txt'), 'theirs\n');
    git(other, 'add', '.');
    git(other, 'commit', '-qm', 'theirs');
    git(other, 'push', '-q', 'origin', 'HEAD:main');
    local.write('src/calc.ts', 'export const add = (a: number, b: number) => b + a;\n');
    await page.locator('#commit-message').fill('Mine');
    await page.locator('#git-commit').click();
    await page.locator('.git-result', { hasText: 'Committed' }).waitFor();
    await page.locator('#git-push').click();
    const refusal = page.locator('.git-result.failed');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /Pull first/);
    assert.deepEqual(problems, []);
  });
});
