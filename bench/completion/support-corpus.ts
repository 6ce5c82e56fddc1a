// The code the completion benchmarks learn from and are scored on: real code that is not
// Loom's, from a package in node_modules, split by file into training (the project the model
// knows), a development split (for tuning) and a held-out test split (for reporting).
//
// Default: node-llama-cpp's dist/*.js — about 2 MB in ~290 files of TypeScript compiled to
// modern JavaScript (types stripped, comments kept). No package here ships that much
// TypeScript source (all of node_modules holds < 1 MB of non-.d.ts .ts files).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CorpusFile {
  /** Path relative to the corpus root, '/'-separated. */
  path: string;
  text: string;
}

export type Split = 'train' | 'dev' | 'test';

export interface Corpus {
  root: string;
  train: CorpusFile[];
  dev: CorpusFile[];
  test: CorpusFile[];
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_CORPUS = path.resolve(here, '../../node_modules/node-llama-cpp/dist');

/** FNV-1a of the path: the split of a file never depends on the machine or the run. */
function splitOf(relative: string): Split {
  let h = 0x811c9dc5;
  for (let i = 0; i < relative.length; i++) h = Math.imul(h ^ relative.charCodeAt(i), 0x01000193);
  const bucket = (h >>> 0) % 100;
  return bucket < 70 ? 'train' : bucket < 85 ? 'dev' : 'test';
}

function listFiles(folder: string, extensions: string[]): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) out.push(...listFiles(full, extensions));
    else if (entry.isFile() && extensions.some((ext) => entry.name.endsWith(ext)) && !/\.d\.[cm]?ts$/.test(entry.name)) out.push(full);
  }
  return out;
}

/**
 * Reads the corpus (BENCH_CORPUS: a folder, default node-llama-cpp/dist; BENCH_EXT: a comma
 * list of extensions, default .js,.ts,.mjs). The source-map comment tsc appends to every
 * file is build output, not code, and is removed.
 */
export function loadCorpus(root = process.env.BENCH_CORPUS || DEFAULT_CORPUS): Corpus {
  const extensions = (process.env.BENCH_EXT || '.js,.ts,.mjs').split(',');
  const corpus: Corpus = { root, train: [], dev: [], test: [] };
  for (const file of listFiles(root, extensions)) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    const text = fs
      .readFileSync(file, 'utf8')
      .replace(/\r\n/g, '\n')
      .replace(/^\/\/# sourceMappingURL=.*$\n?/gm, '');
    if (text.length > 1024 * 1024) continue;
    corpus[splitOf(relative)].push({ path: relative, text });
  }
  return corpus;
}

export function bytesOf(files: CorpusFile[]): number {
  return files.reduce((sum, file) => sum + Buffer.byteLength(file.text), 0);
}
