// A workspace of real code for the latency benchmark: JavaScript and TypeScript files from
// node_modules (not Loom's code), copied one by one into a temporary folder until it holds the
// wanted size. Files stay separate, as in a project; the order is fixed, so every run trains
// on the same code.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = path.resolve(here, '../../node_modules');
const SOURCE = /\.(?:[cm]?js|ts)$/;
const NOT_SOURCE = /\.d\.[cm]?ts$|\.min\.js$/;

function* sourceFiles(folder: string): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory() && !entry.name.startsWith('.')) yield* sourceFiles(full);
    else if (entry.isFile() && SOURCE.test(entry.name) && !NOT_SOURCE.test(entry.name)) yield full;
  }
}

/** Hand-written looking code: not empty, not huge, not minified (short lines). */
function readable(text: string): boolean {
  if (text.length < 512 || text.length > 256 * 1024) return false;
  const lines = text.split('\n').length;
  return text.length / lines < 100;
}

export interface Workspace {
  root: string;
  files: { path: string; text: string }[];
  bytes: number;
  remove(): void;
}

/** Copies real code into a temporary folder until it holds `megabytes` MB. */
export function buildWorkspace(megabytes: number): Workspace {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-builtin-bench-'));
  const target = megabytes * 1024 * 1024;
  const files: Workspace['files'] = [];
  let bytes = 0;
  for (const file of sourceFiles(NODE_MODULES)) {
    if (bytes >= target) break;
    const text = fs.readFileSync(file, 'utf8');
    if (!readable(text)) continue;
    // Folders of 100 files named after nothing the walker skips (node_modules, dist…).
    const relative = `src${Math.floor(files.length / 100)}/${files.length}-${path.basename(file)}`;
    fs.mkdirSync(path.join(root, path.dirname(relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
    files.push({ path: relative, text });
    bytes += Buffer.byteLength(text);
  }
  return { root, files, bytes, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}
