// The window's shells: node-pty's pseudo-terminals (src/adapters/terminal) behind core's
// ShellLauncher, for the local server's terminals.
import { PtyShellLauncher } from '../adapters/terminal/pty-shell.ts';
import type { ShellLauncher } from '../core/terminal/shell.ts';

/**
 * What starts the window's shells.
 *
 * @example
 *   const terminals = new Terminals({ cwd, secrets, trusted, currentGrant, shells: createShellLauncher() });
 */
export function createShellLauncher(): ShellLauncher {
  return new PtyShellLauncher();
}
