// Opens the window's one-time sign-in link in the user's browser: as an app-mode window
// (`--app=URL`: no tabs, no address bar) when a Chromium-family browser is installed, else with
// the system's opener (xdg-open, open, start). The link is never printed: it signs in whoever
// opens it first, within 60 seconds. $BROWSER (the variable Python's webbrowser, xdg-utils and
// git read) names a program to use instead; it gets the link as its one argument.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Browsers with an app mode, by the names their launchers have on PATH (Linux) or their usual place (macOS, Windows). */
const APP_MODE_BROWSERS: Record<string, readonly string[]> = {
  linux: ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'brave-browser'],
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
  ],
  win32: [
    `${process.env['PROGRAMFILES'] ?? 'C:\\Program Files'}\\Google\\Chrome\\Application\\chrome.exe`,
    `${process.env['PROGRAMFILES(X86)'] ?? 'C:\\Program Files (x86)'}\\Microsoft\\Edge\\Application\\msedge.exe`,
  ],
};

/** A program on PATH (or an absolute path that exists), as an absolute path. */
function findProgram(name: string, env: NodeJS.ProcessEnv): string | undefined {
  if (path.isAbsolute(name)) return fs.existsSync(name) ? name : undefined;
  for (const folder of (env.PATH ?? '').split(path.delimiter)) {
    if (!folder) continue;
    const candidate = path.join(folder, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** The program and arguments that open `url`: an app-mode window where a browser has one. */
export function windowOpener(
  url: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): { program: string; args: string[] } {
  if (env.BROWSER) return { program: env.BROWSER, args: [url] };
  for (const browser of APP_MODE_BROWSERS[platform] ?? []) {
    const program = findProgram(browser, env);
    if (program) return { program, args: [`--app=${url}`] };
  }
  if (platform === 'darwin') return { program: 'open', args: [url] };
  // `start` is a cmd built-in; its first quoted argument is a window title.
  if (platform === 'win32') return { program: 'cmd', args: ['/c', 'start', '""', url] };
  return { program: 'xdg-open', args: [url] };
}

/**
 * Opens `url` in the user's browser, detached (the browser outlives nothing of ours and
 * prints nothing into our terminal). Resolves with a problem in words when it cannot start.
 *
 * @example
 *   const problem = await openWindow(local.signInLink());
 */
export function openWindow(url: string): Promise<string | undefined> {
  const { program, args } = windowOpener(url);
  return new Promise((resolve) => {
    const child = spawn(program, args, { detached: true, stdio: 'ignore', windowsHide: true });
    child.once('error', (error) => resolve(`could not start ${program}: ${error.message}`));
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}
