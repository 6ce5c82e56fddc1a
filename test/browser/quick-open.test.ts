// Quick open (Ctrl+P) on a server with the code index, in a real browser (Debian's chromium,
// driven by playwright-core). Until the page has the index's list of paths, each key asks the
// index, and drops (aborts) the question of the key before it, whose answer, come late, is
// never drawn over the newer one; once it has the list, keys are answered in the page, with no
// request, as the index answers them; files that come are found after the list is asked again.
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, holdRequests, launchChromium, openSignedIn, pageProblems } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const available = chromiumAvailable('quick open in the window');

describe('quick open in the window', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  const problems: string[] = [];

  before(async () => {
    local = await startTestLocal({
      files: { 'src/widget.ts': 'export {};\n', 'src/window.ts': 'export {};\n', 'src/order.ts': 'export {};\n' },
      codeIndex: true,
      settings: { apiToken: 'loom_quick_open_test_token_0123456789abcdef', rateLimits: { default: 100_000 } },
    });
    await local.code.refresh();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(60_000);
    // The workspace is no git repository: the git panel's status is refused (409), as it should be.
    pageProblems(page, [/status of 409 .*\/api\/git\/status$/], problems);
    await openSignedIn(page, local.signInLink());
  });
  after(async () => {
    await browser?.close();
    await local?.close();
  });

  it('until the list of paths has come, asks the index per key and drops the question of the key before: aborted, its late answer never drawn', async () => {
    // The list of paths is held back for this test: every key goes to the index.
    const list = await holdRequests(page, (url) => url.pathname === '/api/code/paths');
    // The index's answer to "w" is held back until "wi" has been answered and drawn.
    const answerToW = await holdRequests(page, (url) => url.pathname === '/api/code/files' && url.searchParams.get('query') === 'w');
    const aborted: string[] = [];
    page.on('requestfailed', (request) => {
      if (request.url().includes('/api/code/files')) aborted.push(`${new URL(request.url()).searchParams.get('query')} ${request.failure()?.errorText}`);
    });
    await page.keyboard.press('Control+p');
    await page.locator('.quick-open .palette-input:focus').waitFor();
    await page.locator('.quick-open .palette-list[data-query=""]').waitFor();
    await page.keyboard.press('w');
    await waitFor(async () => answerToW.held(), undefined, 'the question for "w" asked');
    await page.keyboard.press('i');
    await page.locator('.quick-open .palette-list[data-query="wi"]').waitFor();
    assert.deepEqual(await page.locator('.quick-open .palette-item').evaluateAll((items) => items.map((item) => item.getAttribute('data-path'))), [
      'src/widget.ts',
      'src/window.ts',
    ]);
    // The matched characters marked, a run of them in one mark.
    assert.equal(await page.locator('.quick-open .palette-item[data-path="src/widget.ts"] .palette-title').innerHTML(), '<mark>wi</mark>dget.ts');
    await waitFor(async () => aborted.length > 0, undefined, 'the question for "w" aborted');
    assert.deepEqual(aborted, ['w net::ERR_ABORTED']);
    // The late answer changes nothing on screen.
    await answerToW.release();
    await page.keyboard.press('d');
    await page.locator('.quick-open .palette-list[data-query="wid"]').waitFor();
    assert.equal(await page.locator('.quick-open .palette-list').getAttribute('data-query'), 'wid');
    await page.keyboard.press('Enter');
    await page.locator('.tab.active[data-path="src/widget.ts"]').waitFor();
    // The list comes once let through; nothing changes the workspace before the next test.
    const listed = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/code/paths' && response.ok());
    await list.release();
    await listed;
    assert.deepEqual(problems, []);
  });

  it('once the page has the list, answers each key itself, with no request, as the index does', async () => {
    await page.keyboard.press('Control+p');
    await page.locator('.quick-open .palette-input:focus').waitFor();
    await waitFor(async () => (await page.locator('.quick-open .palette-list').getAttribute('data-query')) === '', undefined, 'the empty query drawn');
    const asked: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (request.url().includes('/api/code/')) asked.push(new URL(request.url()).pathname);
    };
    page.on('request', onRequest);
    for (const key of 'ord') {
      await page.keyboard.press(key);
      await page.locator(`.quick-open .palette-list[data-query="${'ord'.slice(0, 'ord'.indexOf(key) + 1)}"]`).waitFor();
    }
    page.off('request', onRequest);
    assert.deepEqual(asked, [], 'no request while typing');
    const shown = await page.locator('.quick-open .palette-item').evaluateAll((items) => items.map((item) => item.getAttribute('data-path')));
    const index = (await local.request('GET', '/api/code/files?query=ord')).json as { files: { path: string }[] };
    assert.deepEqual(
      shown,
      index.files.map((file) => file.path),
    );
    assert.deepEqual(shown, ['src/order.ts']);
    await page.keyboard.press('Escape');
  });

  it('finds a file created since: the list is asked again once files come', async () => {
    fs.writeFileSync(path.join(local.workspace, 'src/ordinal.ts'), 'export {};\n');
    // The index follows the disk; the page hears of the change and asks for the list again when next opened.
    await waitFor(
      async () => ((await local.request('GET', '/api/code/paths')).json as { paths: string[] }).paths.includes('src/ordinal.ts'),
      undefined,
      'the index lists it',
    );
    await waitFor(
      async () => {
        await page.keyboard.press('Control+p');
        await page.locator('.quick-open .palette-input:focus').waitFor();
        await page.keyboard.type('ordinal');
        await page.locator('.quick-open .palette-list[data-query="ordinal"]').waitFor();
        const found = (await page.locator('.quick-open .palette-item[data-path="src/ordinal.ts"]').count()) === 1;
        await page.keyboard.press('Escape');
        return found;
      },
      undefined,
      'quick open finds the new file',
    );
    assert.deepEqual(problems, []);
  });
});
