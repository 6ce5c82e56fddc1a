// The link key: a random secret in the data dir (`window-link.key`, owner-only) that a request
// for a one-time sign-in link must carry besides the API token. A link signs in a window that
// may run code (docs/security.md, "Who may run code"), which the token alone never may: the token
// is held by scripts, extensions and MCP clients, whereas reading the data dir takes a process of
// the user on this machine — `loom open` — which could drive the user's browser anyway.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const LINK_KEY_FILE = 'window-link.key';

const SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The data dir's link key, made on first use (32 random bytes, base64url, mode 0600). Throws the
 * file system's error when the data dir cannot be written.
 *
 * @example const key = linkKey(config.dataDir); // 'Hq3…' (43 characters)
 */
export function linkKey(dataDir: string): string {
  const existing = readLinkKey(dataDir);
  if (existing) return existing;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64url');
  const file = path.join(dataDir, LINK_KEY_FILE);
  // Exclusive: two servers starting together on one data dir keep the first one's key.
  try {
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const written = readLinkKey(dataDir);
  if (!written) throw new Error(`${file} is not a link key; remove it and start Loom again.`);
  return written;
}

/**
 * The data dir's link key as the CLI reads it; undefined when there is none (no app ever ran on
 * this data dir) or the file is not one.
 *
 * @example const key = readLinkKey(config.dataDir);
 */
export function readLinkKey(dataDir: string): string | undefined {
  try {
    const text = fs.readFileSync(path.join(dataDir, LINK_KEY_FILE), 'utf8').trim();
    return SHAPE.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}
