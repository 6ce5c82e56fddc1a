// Opens a URL in the user's browser, best effort: the URL is always printed as well, so a
// missing opener (a server, a container, no DISPLAY) only means the user copies it.
import { spawn } from 'node:child_process';

/** Starts the platform's opener (open, Windows' URL handler, xdg-open) on `url` and returns at once; a failure is ignored. */
export function openBrowser(url: string, platform: NodeJS.Platform = process.platform): void {
  const [command, args]: [string, string[]] =
    platform === 'darwin'
      ? ['open', [url]]
      : platform === 'win32'
        ? // `start` is a cmd built-in that mangles `&`; this opener takes the URL as it is.
          ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // ignored: the printed URL is the fallback
  }
}
