// A workspace of real code for the latency benchmark: JavaScript and TypeScript files from
// node_modules (not Loom's code), copied one by one into a temporary folder until it holds the
// wanted size. Files stay separate, as in a project; the order is fixed, so every run trains
// on the same code.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readable, sourceFiles } from '../support.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = path.resolve(here, '../../node_modules');

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
