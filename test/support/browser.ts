// Debian's Chromium for the browser tests, driven by playwright-core: whether it is here (a
// test without it is skipped with a notice, and fails under CI=true, where .ci/run installs it)
// and how a test launches it.
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

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
