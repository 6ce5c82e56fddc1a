// The window's look in a real browser (Debian's chromium, driven by playwright-core) against the
// real local server: the dark theme reaches everything (the gutter, the current line, the
// identifiers, the panels) and follows the system until the user picks one, which is kept; find
// and replace (Ctrl+F, Ctrl+H) is a styled panel with the usual toggles; the side bars and the
// bottom panel resize by their edges and collapse, and on a 760 px window the editor keeps a
// usable width. Screenshots of both themes at laptop size and at 760 px are taken on every run;
// they go to docs/images/ when LOOM_SCREENSHOTS=docs (else to a temporary folder).
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable, screenshotFolder, launchChromium, openSignedIn, pageProblems } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const IMAGES = screenshotFolder();
const available = chromiumAvailable('the look of the window');

const APP = `// The shopping cart: items, their prices, and the total with tax.
import { formatPrice } from './format';

export interface Item {
  name: string;
  price: number;
  quantity: number;
}

const TAX_RATE = 0.2;

export class Cart {
  private readonly items: Item[] = [];

  add(item: Item): void {
    if (item.quantity <= 0) throw new Error(\`no \${item.name} to add\`);
    this.items.push(item);
  }

  /** The total, tax included. */
  total(): number {
    const net = this.items.reduce((sum, item) => sum + item.price * item.quantity, 0);
    return Math.round(net * (1 + TAX_RATE) * 100) / 100;
  }

  describe(): string {
    return this.items.map((item) => \`\${item.quantity} × \${item.name}: \${formatPrice(item.price)}\`).join('\\n');
  }
}
`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_SYSTEM: '/dev/null' } }).trim();
}

/** The WCAG contrast ratio of two CSS colours `rgb(r, g, b)`. */
function contrast(a: string, b: string): number {
  const luminance = (color: string) => {
    const [r, g, bl] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((part) => {
      const value = Number(part) / 255;
      return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

describe('the look of the window', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let local: TestLocal;
  const problems: string[] = [];

  before(async () => {
    local = await startTestLocal({
      files: { 'src/cart.ts': APP, 'src/format.ts': 'export const formatPrice = (price: number) => `$${price.toFixed(2)}`;\n', 'README.md': '# shop\n' },
      settings: { apiToken: 'loom_look_test_token_0123456789abcdef', rateLimits: { default: 100_000, aiComplete: 100_000 } },
    });
    git(local.workspace, 'init', '--initial-branch=main');
    git(local.workspace, 'config', 'user.name', 'Look Test');
    git(local.workspace, 'config', 'user.email', 'look@example.com');
    git(local.workspace, 'add', '-A');
    git(local.workspace, 'commit', '-m', 'start');
    fs.appendFileSync(path.join(local.workspace, 'README.md'), '\nA shop.\n');
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    page = await context.newPage();
    // A guard against hangs, not a measurement: a loaded machine can be slow to render.
    page.setDefaultTimeout(60_000);
    pageProblems(page, [], problems);
    await openSignedIn(page, local.signInLink());
    await page.locator('.tree-item.folder[data-path="src"]').click();
    await page.locator('.tree-item.file[data-path="src/cart.ts"]').click();
    await page.locator('.tab.active[data-path="src/cart.ts"]').waitFor();
  });
  after(async () => {
    await browser?.close();
    await local?.close();
  });

  /** Computed colours of the first element matching each selector. */
  const colours = (selectors: Record<string, string>) =>
    page.evaluate((wanted) => {
      const out: Record<string, { color: string; background: string }> = {};
      for (const [name, selector] of Object.entries(wanted)) {
        const element = document.querySelector(selector);
        if (!element) throw new Error(`nothing matches ${selector}`);
        const style = getComputedStyle(element);
        out[name] = { color: style.color, background: style.backgroundColor };
      }
      return out;
    }, selectors);

  it('follows the system into dark, everywhere: gutter, current line, identifiers, panels', async () => {
    assert.equal(await page.evaluate(() => document.documentElement.dataset['theme']), 'dark');
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowDown');
    const found = await colours({
      editor: '.cm-editor',
      gutter: '.cm-gutters',
      activeLine: '.cm-activeLine',
      tree: '.file-tree',
      side: '.side',
      status: '.status-bar',
      activity: '.activity-bar',
    });
    const dark = (color: string) => contrast(color, 'rgb(0, 0, 0)') < 2;
    for (const [name, { background }] of Object.entries(found)) assert.ok(dark(background), `${name} is dark: ${background}`);
    assert.equal(found.gutter!.background, found.editor!.background, 'the gutter is the editor');
    // Every highlighted token of the file reads on the editor's background (WCAG AA, 4.5:1).
    const tokens = await page.evaluate(() =>
      [...document.querySelectorAll('.cm-line span')].map((span) => ({ text: span.textContent, color: getComputedStyle(span).color })),
    );
    assert.ok(tokens.length > 20, 'the file is highlighted');
    for (const token of tokens) assert.ok(contrast(token.color, found.editor!.background) >= 4.5, `${JSON.stringify(token.text)} in ${token.color} reads`);
    await page.screenshot({ path: path.join(IMAGES, 'window-dark.png') });
  });

  it('finds and replaces in a styled panel: the toggles (case, word, regex), the count, replace', async () => {
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+f');
    const panel = page.locator('.find-panel');
    await panel.waitFor();
    await page.locator('.find-input[aria-label="Find"]:focus').waitFor();
    await page.keyboard.type('item');
    await waitFor(async () => /^\d+ found$/.test((await page.locator('.find-count').textContent()) ?? ''), undefined, 'the count');
    const loose = Number.parseInt((await page.locator('.find-count').textContent())!, 10);
    // Match case: `Item` no longer counts.
    await page.keyboard.press('Alt+c');
    assert.equal(await page.locator('.find-caseSensitive').getAttribute('aria-pressed'), 'true');
    await waitFor(async () => Number.parseInt((await page.locator('.find-count').textContent())!, 10) < loose, undefined, 'fewer with match case');
    // Whole word: `items` no longer counts.
    const cased = Number.parseInt((await page.locator('.find-count').textContent())!, 10);
    await page.locator('.find-wholeWord').click();
    await waitFor(async () => Number.parseInt((await page.locator('.find-count').textContent())!, 10) < cased, undefined, 'fewer with whole word');
    await page.locator('.find-wholeWord').click();
    await page.locator('.find-caseSensitive').click();
    // The panel sits in the editor, its controls compact: nothing stretches or spills.
    const editorBox = (await page.locator('.editor').boundingBox())!;
    const panelBox = (await panel.boundingBox())!;
    assert.ok(panelBox.x >= editorBox.x && panelBox.x + panelBox.width <= editorBox.x + editorBox.width + 1, 'the panel stays in the editor');
    assert.ok(panelBox.height < 80, `the panel is compact (${panelBox.height} px)`);
    for (const toggle of await page.locator('.find-toggle').all()) assert.ok((await toggle.boundingBox())!.width < 32, 'a toggle is a small button');
    const field = await colours({ field: '.find-field', panel: '.cm-panels' });
    assert.ok(contrast(field.field!.background, 'rgb(0, 0, 0)') < 2, 'the field is dark too');
    // Regular expression, and replace (Ctrl+H) all.
    await page.keyboard.press('Control+h');
    await page.locator('.find-input[aria-label="Replace"]').waitFor();
    await page.locator('.find-input[aria-label="Find"]').fill('TAX_(RATE)');
    await page.locator('.find-regexp').click();
    await page.locator('.find-count', { hasText: '2 found' }).waitFor();
    await page.locator('.find-input[aria-label="Replace"]').fill('VAT_$1');
    await page.screenshot({ path: path.join(IMAGES, 'find.png'), clip: { x: 0, y: 0, width: 1280, height: 260 } });
    await page.locator('.find-replace-all').click();
    await waitFor(
      async () => (await local.request('GET', '/api/editor/text?path=src/cart.ts')).json.text.includes('VAT_RATE = 0.2'),
      undefined,
      'the replace on the server',
    );
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+Home');
  });

  it('switches theme from the activity bar and keeps the choice', async () => {
    // System (dark) → light.
    await page.locator('#theme-toggle').click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset['theme']), 'light');
    const found = await colours({ editor: '.cm-editor', gutter: '.cm-gutters', side: '.side' });
    for (const [name, { background }] of Object.entries(found)) assert.ok(contrast(background, 'rgb(255, 255, 255)') < 1.2, `${name} is light: ${background}`);
    await page.screenshot({ path: path.join(IMAGES, 'window-light.png') });
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.dataset['theme']), 'light', 'kept across a reload, whatever the system says');
  });

  it('resizes the side bar by its edge, and the bottom panel opens (Ctrl+J) and closes', async () => {
    const tree = page.locator('.file-tree');
    const before = (await tree.boundingBox())!.width;
    const edge = (await page.locator('.splitter-left').boundingBox())!;
    await page.mouse.move(edge.x + edge.width / 2, edge.y + 200);
    await page.mouse.down();
    await page.mouse.move(edge.x + 60, edge.y + 200, { steps: 4 });
    await page.mouse.up();
    const widened = (await tree.boundingBox())!.width;
    assert.ok(Math.abs(widened - before - 58) <= 4, `the tree grew by the drag (${before} → ${widened})`);
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+j');
    const bottom = page.locator('.bottom-panel');
    await bottom.waitFor();
    assert.ok((await bottom.boundingBox())!.height >= 90);
    await page.keyboard.press('Control+j');
    await bottom.waitFor({ state: 'hidden' });
    // The files collapse (Ctrl+B) and come back.
    await page.keyboard.press('Control+b');
    await tree.waitFor({ state: 'hidden' });
    await page.locator('#activity-files').click();
    await tree.waitFor();
  });

  it('keeps the editor usable on a 760 px window, in both themes', async () => {
    await page.setViewportSize({ width: 760, height: 700 });
    const editorWidth = async () => (await page.locator('.cm-editor').boundingBox())!.width;
    await waitFor(async () => (await editorWidth()) >= 360, undefined, 'the editor at least 360 px wide');
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    await page.screenshot({ path: path.join(IMAGES, 'window-760-light.png') });
    // Both side bars do not fit beside the editor: the one opened last shows, the other gives way.
    await page.locator('#panel-git').click();
    await page.locator('.side').waitFor({ state: 'visible' });
    await page.locator('.file-tree').waitFor({ state: 'hidden' });
    assert.ok((await editorWidth()) >= 360);
    await page.locator('#activity-files').click();
    await page.locator('.file-tree').waitFor({ state: 'visible' });
    await page.locator('.side').waitFor({ state: 'hidden' });
    assert.ok((await editorWidth()) >= 360);
    await page.locator('#panel-git').click();
    await page.locator('.side').waitFor({ state: 'visible' });
    // A drag cannot take the editor below its least width.
    const edge = (await page.locator('.splitter-right').boundingBox())!;
    await page.mouse.move(edge.x + edge.width / 2, edge.y + 200);
    await page.mouse.down();
    await page.mouse.move(edge.x - 500, edge.y + 200, { steps: 4 });
    await page.mouse.up();
    assert.ok((await editorWidth()) >= 360, 'the drag stopped at the editor');
    await page.locator('#theme-toggle').click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset['theme']), 'dark');
    await page.screenshot({ path: path.join(IMAGES, 'window-760-dark.png') });
    assert.deepEqual(problems, []);
  });
});
