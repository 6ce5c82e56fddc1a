// Debian's Chromium for the browser tests, driven by playwright-core: whether it is here (a
// test without it is skipped with a notice, and fails under CI=true, where .ci/run installs it)
// and how a test launches it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/**
 * Where a browser test writes its screenshots: docs/images when LOOM_SCREENSHOTS=docs (the
 * pictures of the README and docs/, taken again from the tests), else a temporary folder, so
 * that a test run leaves the tracked images alone.
 *
 * @example await page.screenshot({ path: path.join(screenshotFolder(), 'composer.png') });
 */
export function screenshotFolder(): string {
  if (process.env.LOOM_SCREENSHOTS === 'docs') return path.resolve(import.meta.dirname, '../../docs/images');
  return (temporaryShots ??= fs.mkdtempSync(path.join(os.tmpdir(), 'loom-shots-')));
}
let temporaryShots: string | undefined;

/**
 * Whether Chromium is installed; prints the notice (or throws under CI=true) when it is not.
 *
 * @example
 * const available = chromiumAvailable('the dashboard');
 * describe('dashboard in a browser', { skip: !available && 'chromium is not installed' }, () => { … });
 */
export function chromiumAvailable(what: string): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  const notice = `${CHROMIUM} is missing: the browser test of ${what} is skipped (apt-get install chromium).`;
  if (process.env.CI === 'true') throw new Error(`${notice.replace(' is skipped', ' cannot run')} CI must install it (.ci/run).`);
  console.log(`NOTICE: ${notice}`);
  return false;
}

/** Headless Chromium, with nothing of its own reaching the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * What a page reports that a test must not leave unexplained: uncaught errors, and console
 * errors but for those matching `expected` (tested against the message and its URL: a refusal
 * the test causes on purpose, which the browser logs). Filled as the page runs; a test asserts
 * it is empty.
 *
 * @example
 *   // The workspace is no git repository: the git panel's status is refused (409), as it should be.
 *   const problems = pageProblems(page, [/status of 409 .*\/api\/git\/status$/]);
 *   assert.deepEqual(problems, []);
 */
export function pageProblems(page: Page, expected: readonly RegExp[] = [], problems: string[] = []): string[] {
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (expected.some((pattern) => pattern.test(message.text() + message.location().url))) return;
    problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  return problems;
}

/** Requests held back by holdRequests. */
export interface HeldRequests {
  /** Whether one has come (and is being held). */
  held(): boolean;
  /** Lets the held ones go on (one the page aborted meanwhile fails quietly) and stops holding. */
  release(): Promise<void>;
}

/**
 * Holds back the page's requests whose URL `matches` until `release()`: a test makes an answer
 * come late, or a read stay under way, exactly when it needs.
 *
 * @example
 *   const list = await holdRequests(page, (url) => url.pathname === '/api/code/paths');
 *   // … the window works without the list …
 *   await list.release();
 */
export async function holdRequests(page: Page, matches: (url: URL) => boolean): Promise<HeldRequests> {
  let held = false;
  let letGo = () => {};
  const released = new Promise<void>((resolve) => (letGo = resolve));
  const handler = async (route: Route) => {
    held = true;
    await released;
    await route.continue().catch(() => undefined);
  };
  await page.route(matches, handler);
  return {
    held: () => held,
    release: async () => {
      letGo();
      await page.unroute(matches, handler).catch(() => undefined);
    },
  };
}

/** Signs `page` in by the server's one-time link and waits until the window is ready. */
export async function openSignedIn(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await page.locator('body[data-ready="true"]').waitFor();
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** An axe finding, cut to what a failure message needs. */
export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core over the page as it is (or the element `selector` names) and answers its
 * findings, each as one line, split into `serious` (serious and critical: a test fails on them)
 * and `minor`. The page's CSP admits its own script only: the page's context must be made with
 * `bypassCSP: true` for axe to come in.
 *
 * @example
 *   const { serious } = await axeFindings(page);
 *   assert.deepEqual(serious, [], 'the editor, dark');
 */
export async function axeFindings(page: Page, selector?: string): Promise<{ serious: string[]; minor: string[] }> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const findings: AxeFinding[] = await page.evaluate(async (within) => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeFinding[] }> } }).axe;
    const result = await axe.run(within ? document.querySelector(within) : document, { resultTypes: ['violations'] });
    return result.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.slice(0, 3).map(({ target }) => ({ target })) }));
  }, selector);
  const line = (finding: AxeFinding) => `${finding.impact} ${finding.id} (${finding.help}): ${finding.nodes.map((node) => node.target.join(' ')).join(', ')}`;
  const serious = findings.filter((finding) => finding.impact === 'serious' || finding.impact === 'critical');
  return { serious: serious.map(line), minor: findings.filter((finding) => !serious.includes(finding)).map(line) };
}
