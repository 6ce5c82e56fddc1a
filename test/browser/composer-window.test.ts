// The Composer view end to end in a real browser against `loom up`'s wiring (the local server
// and the hosted API beside it, startHostedBeside) with a scripted model on loopback: start a
// session from the view, watch it finish live, read its diff, apply it, and the file on disk
// (and its open tab) changed. Without /usr/bin/chromium the test is skipped with a notice,
// except under CI=true.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { RunningLocal } from '../../src/local/server.ts';
import { chromiumAvailable, launchChromium, openSignedIn, pageProblems, screenshotFolder } from '../support/browser.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { startTestUp, type TestUp } from '../support/up.ts';
import { waitFor } from '../support/wait.ts';

const available = chromiumAvailable('the Composer view');
const ADD = 'export function add(a: number, b: number) {\n  return a - b;\n}\n';
const FIXED = 'export function add(a: number, b: number) {\n  return a + b;\n}\n';

describe('the Composer view in a browser', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let fake: FakeOpenAi;
  let local: RunningLocal;
  let up: TestUp;
  let workspace: string;
  const problems: string[] = [];

  before(async () => {
    fake = await startFakeOpenAi();
    up = await startTestUp({ files: { 'src/add.ts': ADD }, apiToken: 'loom_composer_window_token_0123456789abcdef', openAiBaseUrl: fake.baseUrl });
    ({ workspace, local } = up);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    // A guard against hangs, not a measurement: a loaded machine can be slow to render.
    page.setDefaultTimeout(60_000);
    pageProblems(page, [], problems);
    await openSignedIn(page, local.signInLink());
  });
  after(async () => {
    await browser?.close();
    await up?.close();
    await fake?.close();
  });

  it('starts a session from the view, shows it finish with its diff, and applies it to the workspace', async () => {
    fake.chat.queue(
      {
        kind: 'tools',
        calls: [{ id: 'call_1', name: 'edit_file', arguments: JSON.stringify({ path: 'src/add.ts', search: '  return a - b;', replace: '  return a + b;' }) }],
      },
      { kind: 'text', text: 'Fixed the sign.' },
    );
    await page.locator('#panel-composer').click();
    await page.locator('#composer-prompt').fill('Fix the sign in add');
    await page.locator('#composer-files').fill('src/**');
    await page.locator('#composer-start').click();
    // Followed live: the state turns completed on composer:status, the diff and the steps show.
    await page.locator('#composer-state', { hasText: 'completed' }).waitFor();
    const edit = page.locator('.composer-edit[data-file="src/add.ts"]');
    // Each line is a block (innerText puts a blank line between).
    assert.match(await edit.locator('.diff').innerText(), /-  return a - b;\n+\+  return a \+ b;/);
    await page.locator('.composer-steps .step').first().waitFor();
    await page.locator('.composer-session.completed').first().waitFor();
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'add.ts'), 'utf8'), ADD);

    await page.locator('#composer-apply').click();
    await waitFor(() => fs.readFileSync(path.join(workspace, 'src', 'add.ts'), 'utf8') === FIXED, undefined, 'the edit on disk');
    await page
      .locator('.toast', { hasText: 'Applied to 1 file' })
      .or(page.locator('.notice', { hasText: 'Applied to 1 file' }))
      .first()
      .waitFor();
    assert.deepEqual(problems, []);
  });

  it('continues the ended session with a follow-up: the message shows among its steps, and its diff grows', async () => {
    fake.chat.queue(
      { kind: 'tools', calls: [{ id: 'call_2', name: 'create_file', arguments: JSON.stringify({ path: 'src/sub.ts', content: 'export const sub = 1;\n' }) }] },
      { kind: 'text', text: 'Added sub.' },
    );
    await page.locator('#composer-follow-up').fill('Add sub.ts too.');
    await page.locator('#composer-follow-up').press('Control+Enter');
    await page.locator('.composer-steps .step', { hasText: 'Add sub.ts too.' }).waitFor();
    await page.locator('.composer-words', { hasText: 'Added sub.' }).waitFor();
    await page.locator('#composer-state', { hasText: 'completed' }).waitFor();
    await page.locator('.composer-edit[data-file="src/sub.ts"]').waitFor();
    assert.equal(await page.locator('.composer-edit[data-file="src/add.ts"]').count(), 1, "the first run's edit is still there");
    await page.screenshot({ path: path.join(screenshotFolder(), 'composer.png') });
    assert.deepEqual(problems, []);
  });
});
