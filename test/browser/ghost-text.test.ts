// Ghost text in a real browser (Debian's chromium, driven by playwright-core) against the real
// local server, its completion from the scripted OpenAI-compatible server: the line,
// `import fs from 'node:` with the quote the editor closed, accepted with Tab, reads
// `import fs from 'node:fs';` (the window sends the text after the cursor; the server does not
// repeat the quote and sends the `;` as the continuation, shown and put after the quote); and
// Ctrl+→ takes the suggestion a word at a time, through the continuation too.
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium, openSignedIn, pageProblems } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const available = chromiumAvailable('ghost text');

const FILE = 'src/index.ts';
const TEXT = "import path from 'node:path';\n\nexport const here = path.resolve('.');\n";

describe('ghost text in a browser', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  let fake: FakeOpenAi;
  const problems: string[] = [];

  before(async () => {
    fake = await startFakeOpenAi({ fimText: "fs';\n" });
    local = await startTestLocal({
      files: { [FILE]: TEXT },
      settings: {
        apiToken: 'loom_ghost_test_token_0123456789abcdef',
        rateLimits: { default: 100_000, aiComplete: 100_000 },
        completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'fake-coder' } },
      },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    // A guard against hangs, not a measurement: a loaded machine can be slow to render.
    page.setDefaultTimeout(60_000);
    // The workspace is no git repository: the git panel's status is refused (409), as it should be.
    pageProblems(page, [/status of 409 .*\/api\/git\/status$/], problems);
    await openSignedIn(page, local.signInLink());
    await page.locator('.tree-item.folder[data-path="src"]').click();
    await page.locator(`.tree-item.file[data-path="${FILE}"]`).click();
    await page.locator(`.tab.active[data-path="${FILE}"]`).waitFor();
  });
  after(async () => {
    await browser?.close();
    await local?.close();
    await fake?.close();
  });

  /** The editor's lines as text, without the ghost text on screen. */
  const lines = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('.cm-content .cm-line')].map((line) => {
        const copy = line.cloneNode(true) as Element;
        for (const ghost of copy.querySelectorAll('.cm-ghost-text')) ghost.remove();
        return copy.textContent ?? '';
      }),
    );
  /** The ghost text on screen, piece by piece in the order of the line. */
  const ghosts = () => page.locator('.cm-ghost-text').allTextContents();
  const waitForGhosts = (expected: string[]) =>
    waitFor(async () => JSON.stringify(await ghosts()) === JSON.stringify(expected), undefined, `ghost text ${JSON.stringify(expected)}`).catch(
      async (error: Error) => {
        throw new Error(`${error.message}; on screen: ${JSON.stringify(await ghosts())}, the lines: ${JSON.stringify(await lines())}`);
      },
    );
  const waitForLine = (index: number, expected: string) =>
    waitFor(async () => (await lines())[index] === expected, undefined, `line ${index + 1} ${JSON.stringify(expected)}`).catch(async (error: Error) => {
      throw new Error(`${error.message}; the lines: ${JSON.stringify(await lines())}`);
    });
  /** Types `text` over line 2 (empty at first). */
  const typeOnLineTwo = async (text: string) => {
    await page.keyboard.press('Escape');
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.press('Shift+Home');
    await page.keyboard.type(text, { delay: 20 });
  };

  it("after `import fs from 'node:` and the quote the editor closed, Tab gives `import fs from 'node:fs';`", async () => {
    await typeOnLineTwo("import fs from 'node:");
    await waitForLine(1, "import fs from 'node:'");
    // `fs` before the quote, its `;` after it: nothing on screen repeats the quote.
    await waitForGhosts(['fs', ';']);
    const asked = fake.requests.filter((request) => request.path === '/v1/completions').at(-1)!;
    assert.equal(asked.body.prompt.endsWith("import fs from 'node:"), true, 'the text before the cursor');
    assert.equal(asked.body.suffix.startsWith("'\nexport const here"), true, 'the window sent the text after the cursor');
    await page.keyboard.press('Tab');
    await waitForLine(1, "import fs from 'node:fs';");
    assert.deepEqual(await ghosts(), []);
    assert.equal(await page.locator('#status-position').textContent(), 'Ln 2, Col 26', 'the cursor after the `;`');
    assert.deepEqual(problems, []);
  });

  it('Ctrl+→ takes the next word, the rest stays on screen; Tab takes the rest', async () => {
    fake.set({ fimText: 'items.reduce((sum, item) => sum + item, 0);\n' });
    await typeOnLineTwo('const total = ');
    await waitForGhosts(['items.reduce((sum, item) => sum + item, 0);']);
    await page.keyboard.press('Control+ArrowRight');
    await waitForLine(1, 'const total = items');
    assert.deepEqual(await ghosts(), ['.reduce((sum, item) => sum + item, 0);']);
    // Typing its next characters keeps the rest, as with a whole suggestion.
    await page.keyboard.type('.re');
    await waitForLine(1, 'const total = items.re');
    assert.deepEqual(await ghosts(), ['duce((sum, item) => sum + item, 0);']);
    await page.keyboard.press('Control+ArrowRight');
    await waitForLine(1, 'const total = items.reduce');
    assert.deepEqual(await ghosts(), ['((sum, item) => sum + item, 0);']);
    assert.equal(await page.locator('#status-position').textContent(), 'Ln 2, Col 27');
    await page.keyboard.press('Control+ArrowRight');
    await waitForLine(1, 'const total = items.reduce((');
    assert.deepEqual(await ghosts(), ['sum, item) => sum + item, 0);']);
    await page.keyboard.press('Tab');
    await waitForLine(1, 'const total = items.reduce((sum, item) => sum + item, 0);');
    assert.deepEqual(problems, []);
  });

  it('Ctrl+→ goes on past the closed quote: the continuation comes last, after it', async () => {
    fake.set({ fimText: "fs';\n" });
    await typeOnLineTwo("import fs from 'node:");
    await waitForGhosts(['fs', ';']);
    await page.keyboard.press('Control+ArrowRight');
    await waitForLine(1, "import fs from 'node:fs'");
    assert.deepEqual(await ghosts(), [';'], 'the continuation stays, after the quote');
    await page.keyboard.press('Control+ArrowRight');
    await waitForLine(1, "import fs from 'node:fs';");
    assert.deepEqual(await ghosts(), []);
    assert.equal(await page.locator('#status-position').textContent(), 'Ln 2, Col 26');
    // Without a suggestion the key is the editor's own again: a word to the left.
    await page.keyboard.press('Control+ArrowLeft');
    assert.notEqual(await page.locator('#status-position').textContent(), 'Ln 2, Col 26');
    assert.deepEqual(problems, []);
  });
  it('typing the suggestion, then over the closed quote, keeps the continuation on screen', async () => {
    await typeOnLineTwo("import fs from 'node:");
    await waitForGhosts(['fs', ';']);
    await page.keyboard.type('fs');
    await waitForLine(1, "import fs from 'node:fs'");
    assert.deepEqual(await ghosts(), [';']);
    // The editor steps over the quote it closed, and the continuation is next.
    await page.keyboard.type("'");
    await waitFor(async () => (await page.locator('#status-position').textContent()) === 'Ln 2, Col 25', undefined, 'the cursor past the quote');
    assert.deepEqual(await lines().then((l) => l[1]), "import fs from 'node:fs'");
    assert.deepEqual(await ghosts(), [';']);
    await page.keyboard.press('Tab');
    await waitForLine(1, "import fs from 'node:fs';");
    assert.deepEqual(problems, []);
  });
});
