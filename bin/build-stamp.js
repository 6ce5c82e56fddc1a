// Whether the compiled CLI in dist/cli/ was built from the sources as they are now. The build
// (scripts/build-cli.js) records a listing of every file under src/ and of the build script:
// path, size and modification time. bin/loom.js lists them again (about 250 stat calls, 2 ms)
// and runs the compiled JavaScript only when both listings are equal; an edit, a new file, a
// deleted one or a checkout of another branch changes the listing, and the CLI falls back to
// the TypeScript sources through tsx, so nobody runs stale code.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST_DIR = path.join(ROOT, 'dist', 'cli');
export const STAMP_FILE = 'build-stamp.txt';
/** `loom --help` as the build prints it to a pipe (scripts/build-cli.js writeHelp). */
export const HELP_FILE = 'help.txt';

/**
 * The listing the stamp holds: one `path<TAB>size<TAB>mtime` line per source file, sorted.
 *
 * @example sourceListing() // 'scripts/build-cli.js\t3021\t1764000000000.123\nsrc/cli/main.ts\t…'
 */
export function sourceListing(root = ROOT) {
  const lines = [];
  const add = (relative) => {
    const stat = fs.statSync(path.join(root, relative));
    lines.push(`${relative}\t${stat.size}\t${stat.mtimeMs}`);
  };
  const walk = (relativeDir) => {
    for (const entry of fs.readdirSync(path.join(root, relativeDir), { withFileTypes: true })) {
      const relative = `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else add(relative);
    }
  };
  walk('src');
  add('scripts/build-cli.js');
  return lines.sort().join('\n');
}

/**
 * The compiled entry's path when it is there and current, else undefined. LOOM_FROM_SOURCE=1
 * forces the sources.
 *
 * @example const entry = freshCompiledEntry(); if (entry) await import(pathToFileURL(entry).href);
 */
export function freshCompiledEntry(root = ROOT, env = process.env) {
  if (env.LOOM_FROM_SOURCE === '1') return undefined;
  const dist = path.join(root, 'dist', 'cli');
  let stamp;
  try {
    stamp = fs.readFileSync(path.join(dist, STAMP_FILE), 'utf8');
  } catch {
    return undefined;
  }
  return stamp === sourceListing(root) ? path.join(dist, 'main.js') : undefined;
}

/**
 * The text of `loom --help` the current build rendered (src/cli/main.ts lays it out for a fixed
 * width, so it is the same on every terminal and pipe), or undefined without a current build.
 *
 * @example const help = prerenderedHelp(freshCompiledEntry()); if (help) process.stdout.write(help);
 */
export function prerenderedHelp(compiledEntry) {
  if (!compiledEntry) return undefined;
  try {
    return fs.readFileSync(path.join(path.dirname(compiledEntry), HELP_FILE), 'utf8');
  } catch {
    return undefined;
  }
}
