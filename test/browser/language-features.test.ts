// The window's language features in a real browser (Debian's chromium, driven by playwright-core)
// against the real local server with the code index and the real bundled
// typescript-language-server on (the workspace untrusted, as any fresh clone: restricted mode):
// a type error typed in an unsaved document shows as a squiggle, a Problems entry and a count
// in the status bar, and goes when fixed; hover shows a type; F12 and Ctrl+click open the
// definition in another file; Shift+F12 lists references by file; Ctrl+T and Ctrl+Shift+O find
// symbols; F2 renames across files after a preview (the file not open changes on disk). axe
// checks the new views, light and dark. Then a server with the language servers off: the window
// says so quietly.
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeFindings, chromiumAvailable, launchChromium, openSignedIn, pageProblems, screenshotFolder } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const available = chromiumAvailable('language features in the window');

const FILES = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', noEmit: true } }),
  // Its doc comment holds markup: the hover shows it as the text it is.
  'src/math.ts': '/** Adds two numbers. <img src=x onerror="alert(1)"> */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'src/app.ts': "import { add } from './math';\n\nexport const sum: number = add(1, 2);\n",
  'src/other.ts': "import { add } from './math';\n\nexport const twice = add(2, 2);\n",
  // Never opened in the window: a rename writes it on disk.
  'src/more.ts': "import { add } from './math';\n\nexport const more = add(3, 3);\n",
};

/** Language servers answer on a loaded machine in seconds; this only guards against a hang. */
const LSP_WAIT_MS = 90_000;

describe('language features in the window', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  const problems: string[] = [];

  before(async () => {
    local = await startTestLocal({
      files: FILES,
      codeIndex: true,
      languageServers: { enabled: 'on', requestTimeoutMs: 60_000 },
      settings: { apiToken: 'loom_langfeat_test_token_0123456789abcd', rateLimits: { default: 100_000, aiComplete: 100_000 } },
    });
    browser = await launchChromium();
    // The page's CSP admits its own script only: axe comes in past it (bypassCSP), for this test alone.
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true })).newPage();
    // A guard against hangs, not a measurement: a loaded machine can be slow to render.
    page.setDefaultTimeout(LSP_WAIT_MS);
    // The workspace is no git repository: the git panel's status is refused (409), as it should be.
    pageProblems(page, [/status of 409 .*\/api\/git\/status$/], problems);
    await openSignedIn(page, local.signInLink());
    await page.locator('.tree-item.folder[data-path="src"]').click();
  });
  after(async () => {
    await browser?.close();
    await local?.close();
  });

  const open = async (file: string) => {
    await page.locator(`.tree-item.file[data-path="${file}"]`).click();
    await page.locator(`.tab.active[data-path="${file}"]`).waitFor();
  };
  const goToLine = async (line: number) => {
    await page.locator('.cm-content').focus();
    await page.keyboard.press('Control+g');
    await page.locator('.cm-dialog input').fill(String(line));
    await page.keyboard.press('Enter');
    await waitFor(
      async () => ((await page.locator('#status-position').textContent()) ?? '').startsWith(`Ln ${line},`),
      undefined,
      `the cursor on line ${line}`,
    );
  };
  /** The screen position of the `nth` occurrence of `word` in the editor's lines (its middle). */
  const wordAt = async (word: string, nth = 0) => {
    const point = await page.evaluate(
      ({ word, nth }) => {
        let seen = 0;
        for (const line of document.querySelectorAll('.cm-content .cm-line')) {
          const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent ?? '';
            for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
              if (seen++ < nth) continue;
              const range = document.createRange();
              range.setStart(node, at);
              range.setEnd(node, at + word.length);
              const rect = range.getBoundingClientRect();
              return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
            }
          }
        }
        return null;
      },
      { word, nth },
    );
    assert.ok(point, `"${word}" (#${nth + 1}) is on screen`);
    return point;
  };
  const position = async () => (await page.locator('#status-position').textContent()) ?? '';
  const check = async (view: string) => assert.deepEqual((await axeFindings(page)).serious, [], view);

  it('says in the status bar which language server runs and how far the index is', async () => {
    await open('src/app.ts');
    // Opening a TypeScript document starts its server.
    await waitFor(async () => /typescript: running/.test((await page.locator('#status-code').textContent()) ?? ''), LSP_WAIT_MS, 'typescript: running');
    await waitFor(async () => /index: \d+ files/.test((await page.locator('#status-code').textContent()) ?? ''), LSP_WAIT_MS, 'the index ready');
    await page.getByRole('button', { name: 'Problems: 0 errors, 0 warnings', exact: true }).waitFor();
  });

  it('squiggles a type error as it is typed, lists it in Problems, and clears both once it is fixed', async () => {
    await goToLine(3);
    await page.keyboard.press('End');
    await page.keyboard.type('\nexport const bad: string = 42;');
    // Unsaved: the server sees the document, not the disk.
    await page.locator('.tab.dirty[data-path="src/app.ts"]').waitFor();
    await waitFor(
      async () => (await page.locator('.cm-lintRange-error').allTextContents()).join() === 'bad',
      LSP_WAIT_MS,
      'the squiggle under the name typed wrong',
    );
    await page.getByRole('button', { name: 'Problems: 1 error, 0 warnings', exact: true }).waitFor({ timeout: LSP_WAIT_MS });
    await page.locator('#status-problems').click();
    await page.locator('#bottom-tab-problems[aria-selected="true"]').waitFor();
    // The reports made while the line was half typed (an expression expected) give way to the one for the line.
    const entry = page.locator('#bottom-view-problems .code-list-file[data-path="src/app.ts"] .problem.error', {
      hasText: "Type 'number' is not assignable to type 'string'.",
    });
    await entry.waitFor({ timeout: LSP_WAIT_MS });
    assert.match((await entry.textContent()) ?? '', /\[Ln 4, Col 14\]$/);
    assert.equal(await page.locator('#bottom-view-problems .problem').count(), 1);
    await page.screenshot({ path: path.join(screenshotFolder(), 'problems.png') });
    await check('the Problems tab with an error, light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await check('the Problems tab with an error, dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // A click on the entry puts the cursor on the problem.
    await goToLine(1);
    await entry.click();
    await waitFor(async () => (await position()) === 'Ln 4, Col 14', undefined, 'the cursor at the problem');

    // Fixed (the line deleted): the squiggle, the entry and the count go.
    await page.keyboard.press('Control+Shift+K');
    await page.locator('.cm-lintRange-error').waitFor({ state: 'detached', timeout: LSP_WAIT_MS });
    await entry.waitFor({ state: 'detached', timeout: LSP_WAIT_MS });
    await page.locator('#bottom-view-problems .code-list-empty').waitFor();
    await page.getByRole('button', { name: 'Problems: 0 errors, 0 warnings', exact: true }).waitFor();
  });

  it('shows the type of what the mouse rests on', async () => {
    const point = await wordAt('add', 1);
    await page.mouse.move(point.x, point.y);
    const hover = page.locator('.code-hover');
    await hover.waitFor({ timeout: LSP_WAIT_MS });
    assert.match((await hover.textContent()) ?? '', /add\(a: number, b: number\): number/);
    assert.match((await hover.textContent()) ?? '', /Adds two numbers\./);
    // The signature is a code block, made of text (nothing the server sends becomes markup).
    assert.equal(await hover.locator('pre code').count(), 1);
    assert.equal(await hover.locator('img').count(), 0);
    assert.match((await hover.textContent()) ?? '', /<img src=x onerror="alert\(1\)">/);
    await page.mouse.move(5, 5);
  });

  it('goes to a definition in another file with F12 and with Ctrl+click', async () => {
    const point = await wordAt('add', 1);
    await page.mouse.click(point.x, point.y);
    await page.keyboard.press('F12');
    await page.locator('.tab.active[data-path="src/math.ts"]').waitFor({ timeout: LSP_WAIT_MS });
    await waitFor(async () => (await position()) === 'Ln 2, Col 17', undefined, 'the cursor at the definition');

    await open('src/app.ts');
    const again = await wordAt('add', 1);
    await page.keyboard.down('Control');
    await page.mouse.click(again.x, again.y);
    await page.keyboard.up('Control');
    await page.locator('.tab.active[data-path="src/math.ts"]').waitFor({ timeout: LSP_WAIT_MS });
    await waitFor(async () => (await position()) === 'Ln 2, Col 17', undefined, 'the cursor at the definition');
    // One cursor: Ctrl+click went to the definition, it added no second cursor.
    assert.equal(await page.locator('.cm-cursor').count(), 1);
  });

  it('lists references grouped by file with Shift+F12, and a click opens one', async () => {
    await page.keyboard.press('Shift+F12');
    const panel = page.locator('#bottom-view-references');
    await panel.locator('.code-list-summary', { hasText: 'References to add: 7 in 4 files' }).waitFor({ timeout: LSP_WAIT_MS });
    assert.deepEqual(await panel.locator('.code-list-file').evaluateAll((files) => files.map((file) => file.getAttribute('data-path')).sort()), [
      'src/app.ts',
      'src/math.ts',
      'src/more.ts',
      'src/other.ts',
    ]);
    // An open file's lines show as previews.
    assert.match((await panel.locator('.code-list-file[data-path="src/app.ts"] .reference[data-line="3"]').textContent()) ?? '', /add\(1, 2\)/);
    await check('the References tab');
    await panel.locator('.code-list-file[data-path="src/other.ts"] .reference[data-line="3"]').click();
    await page.locator('.tab.active[data-path="src/other.ts"]').waitFor();
    await waitFor(async () => (await position()) === 'Ln 3, Col 22', undefined, 'the cursor at the reference');
  });

  it('finds symbols in the workspace with Ctrl+T and in the file with Ctrl+Shift+O', async () => {
    await page.keyboard.press('Control+t');
    await page.locator('.symbol-search .palette-input:focus').waitFor();
    await page.keyboard.type('add');
    await page.locator('.symbol-search .symbol-item.chosen[data-name="add"][data-path="src/math.ts"]').waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tab.active[data-path="src/math.ts"]').waitFor();
    await waitFor(async () => (await position()) === 'Ln 2, Col 17', undefined, 'the cursor at the symbol');

    await open('src/app.ts');
    await page.keyboard.press('Control+Shift+O');
    await page.locator('.symbol-search .symbol-item[data-name="sum"]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.symbol-search').waitFor({ state: 'hidden' });
  });

  it('renames across files after a preview with F2: open documents change unsaved, the others on disk', async () => {
    await open('src/math.ts');
    const point = await wordAt('add');
    await page.mouse.click(point.x, point.y);
    await page.keyboard.press('F2');
    const input = page.locator('.rename-box .rename-input');
    await input.waitFor();
    assert.equal(await input.inputValue(), 'add');
    await input.fill('plus');
    await page.keyboard.press('Enter');
    const dialog = page.locator('.rename-preview .rename-dialog');
    await dialog.waitFor({ timeout: LSP_WAIT_MS });
    assert.match((await dialog.locator('.rename-title').textContent()) ?? '', /^Rename add to plus: 7 edits in 4 files$/);
    assert.deepEqual(await dialog.locator('.rename-file').evaluateAll((files) => files.map((file) => file.getAttribute('data-path')).sort()), [
      'src/app.ts',
      'src/math.ts',
      'src/more.ts',
      'src/other.ts',
    ]);
    assert.match((await dialog.locator('.rename-file[data-path="src/more.ts"] .rename-diff .added').first().textContent()) ?? '', /plus/);
    // Nothing changed yet.
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/more.ts'), 'utf8'), FILES['src/more.ts']);
    await check('the rename preview');
    await page.locator('#rename-apply').click();
    await page.locator('.rename-preview').waitFor({ state: 'hidden' });
    await waitFor(
      () => fs.readFileSync(path.join(local.workspace, 'src/more.ts'), 'utf8') === "import { plus } from './math';\n\nexport const more = plus(3, 3);\n",
      undefined,
      'src/more.ts renamed on disk',
    );
    // src/other.ts is open (a reference was clicked): its document changed, unsaved, the disk not yet.
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/other.ts'), 'utf8'), FILES['src/other.ts']);
    await page.locator('.tab.dirty[data-path="src/other.ts"]').waitFor();
    await page.locator('.cm-line', { hasText: 'export function plus(a: number, b: number): number {' }).waitFor();
    await page.locator('.tab.dirty[data-path="src/math.ts"]').waitFor();
    await page.keyboard.press('Control+s');
    await waitFor(() => /export function plus\(/.test(fs.readFileSync(path.join(local.workspace, 'src/math.ts'), 'utf8')), undefined, 'src/math.ts saved');
    await open('src/app.ts');
    await page.locator('.cm-line', { hasText: "import { plus } from './math';" }).waitFor();
    assert.deepEqual(problems, []);
  });
});

describe('language features with the language servers off', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  const problems: string[] = [];

  before(async () => {
    local = await startTestLocal({
      files: FILES,
      settings: { apiToken: 'loom_langfeat_off_token_0123456789abcdef', rateLimits: { default: 100_000, aiComplete: 100_000 } },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(60_000);
    pageProblems(page, [/status of 409 .*\/api\/git\/status$/], problems);
    await openSignedIn(page, local.signInLink());
  });
  after(async () => {
    await browser?.close();
    await local?.close();
  });

  it('says so quietly: no hover asked, rename explained, an empty Problems tab, no console errors', async () => {
    assert.equal(await page.locator('#status-code').textContent(), 'language servers: off · index: off');
    await page.locator('.tree-item.folder[data-path="src"]').click();
    await page.locator('.tree-item.file[data-path="src/app.ts"]').click();
    await page.locator('.tab.active[data-path="src/app.ts"]').waitFor();
    await page.locator('.cm-content').focus();
    await page.keyboard.press('F2');
    await page.locator('.toast', { hasText: 'Rename needs a language server' }).waitFor();
    await page.keyboard.press('Control+Shift+M');
    await page.locator('#bottom-view-problems .code-list-empty', { hasText: 'No language server runs in this workspace' }).waitFor();
    await page.keyboard.press('Control+t');
    await page.keyboard.type('add');
    await page.locator('.symbol-search .palette-empty', { hasText: 'The code index is off here' }).waitFor();
    await page.keyboard.press('Escape');
    assert.deepEqual(problems, []);
  });
});
