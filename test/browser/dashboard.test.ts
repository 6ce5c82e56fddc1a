// The dashboard in a real browser (Debian's chromium, driven by playwright-core): sign in
// through the code host, create a key with the form, use it from outside, revoke it, sign out.
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium } from '../support/browser.ts';
import { startFakeCodeHost, type FakeCodeHost } from '../support/codehost.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';

const SCREENSHOT = '/tmp/loom-dashboard.png';
const available = chromiumAvailable('the dashboard');

describe('dashboard in a browser', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let hosted: TestHosted;
  let codehost: FakeCodeHost;
  const problems: string[] = [];

  before(async () => {
    codehost = await startFakeCodeHost();
    hosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl } });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    page = await context.newPage();
    // A guard against hangs, not a measurement: a loaded CI machine can be slow to render.
    page.setDefaultTimeout(60_000);
    // Script errors and CSP violations (reported on the console) fail the test.
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
    });
  });
  after(async () => {
    await browser?.close();
    await hosted?.close();
    await codehost?.close();
  });

  const download = (key: string) => fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${key}` } });

  it('signs in, creates a key, uses it, revokes it and signs out', async () => {
    await page.goto(`${hosted.url}/dashboard`);
    await page.getByRole('link', { name: 'Sign in with your code host' }).click();
    // Our start → the code host → our callback → /dashboard, all by redirects.
    await page.waitForURL(`${hosted.url}/dashboard`);
    assert.equal(await page.locator('#user-login').textContent(), 'ada');
    assert.equal(await page.locator('dd[data-field="email"]').textContent(), 'ada@example.com');
    assert.equal(await page.locator('#no-keys').isVisible(), true);

    const [cookie] = await page.context().cookies(hosted.url);
    assert.equal(cookie?.name, 'loom_session');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    assert.equal(cookie.path, '/');
    assert.equal(await page.evaluate(() => document.cookie), '', 'no script can read the session cookie');

    await page.locator('#key-name').fill('ci');
    assert.equal(await page.locator('#key-days').inputValue(), '90');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor({ state: 'visible' });
    const key = await page.locator('#new-key-value').inputValue();
    assert.match(key, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT');
    assert.match((await page.locator('#new-key .warning').textContent())!, /shown only once/);
    const row = page.locator('#keys tbody tr', { has: page.locator('td.name', { hasText: /^ci$/ }) });
    await row.and(page.locator('[data-status="active"]')).waitFor();
    assert.equal(await row.locator('.status').textContent(), 'active');
    assert.equal(await page.locator('#no-keys').isVisible(), false);

    assert.equal((await download(key)).status, 200, 'the key works on a bearerAuth operation');

    // Reloading never shows the key again.
    await page.reload();
    assert.equal(await page.locator('#new-key').isVisible(), false);
    assert.ok(!(await page.content()).includes(key));
    assert.equal(await row.locator('.status').textContent(), 'active');

    // Make the key visible again for the screenshot: create a second one.
    await page.locator('#key-name').fill('laptop');
    await page.locator('#key-days').fill('30');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor({ state: 'visible' });

    page.once('dialog', (dialog) => dialog.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.and(page.locator('[data-status="revoked"]')).waitFor();
    assert.equal(await row.locator('.status').textContent(), 'revoked');
    assert.equal(await row.getByRole('button', { name: 'Revoke' }).count(), 0);
    assert.match((await page.locator('#message').textContent())!, /revoked/);

    const refused = await download(key);
    assert.equal(refused.status, 401, 'a revoked key stops working at once');
    assert.equal((await refused.json()).error, 'invalid_token');

    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with your code host' }).waitFor();
    assert.deepEqual(await page.context().cookies(hosted.url), [], 'the cookie is gone');

    assert.deepEqual(problems, []);
  });
});
