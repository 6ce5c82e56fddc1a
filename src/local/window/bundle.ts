// The window's script and styles: src/web bundled by esbuild into dist/web (window.js,
// window.css, and the chunks window.js imports when a rarely used part is first opened: the
// terminal, the diff views, in dist/web/chunks with content-hashed names). `npm run build:web` builds them (and `prepare` runs it, so `npm install` / `npm
// ci` leave a built checkout); a server that finds them missing or older than a file of
// src/web builds them again before serving the page, so a checkout works without a build
// step. Written atomically (a temporary file, then a rename): servers that start together
// never serve a half-written bundle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface WindowBundlePaths {
  /** The sources: main.ts (the entry) and window.css. */
  source: string;
  /** Where window.js and window.css are written (the chunks in its `chunks` folder). */
  output: string;
}

/** The folder of the chunks, under the output, and the only form their names take (esbuild's `[name]-[hash].js`). */
export const CHUNK_FOLDER = 'chunks';
export const CHUNK_NAME = /^[A-Za-z0-9_-]{1,100}\.js$/;

/** How long a chunk no build writes any more is kept: a window opened before the rebuild may still ask for it. */
const OLD_CHUNK_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_BUNDLE_PATHS: WindowBundlePaths = { source: path.join(ROOT, 'src/web'), output: path.join(ROOT, 'dist/web') };

export const BUNDLE_FILES = ['window.js', 'window.css'] as const;

/** The newest modification time of any file under `folder` (0 when it does not exist). */
function newestChange(folder: string): number {
  let newest = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Whether the bundle is missing, or older than its newest source. */
export function bundleIsStale(paths: WindowBundlePaths = DEFAULT_BUNDLE_PATHS): boolean {
  const built = BUNDLE_FILES.map((name) => fs.statSync(path.join(paths.output, name), { throwIfNoEntry: false })?.mtimeMs ?? 0);
  const oldest = Math.min(...built);
  return oldest === 0 || newestChange(paths.source) > oldest;
}

/**
 * Bundles src/web/main.ts (CodeMirror and all) into window.js and window.css, minified. What
 * the window imports dynamically (`import()`: the terminal, the diff views) goes into chunks
 * (esbuild's code splitting), loaded when first used; their styles stay in window.css (esbuild
 * puts the CSS of dynamically imported modules in the entry's too, so a chunk's own CSS file
 * is not written). esbuild comes with tsx, which runs Loom.
 *
 * Answers the chunks this build wrote, as paths under the output (`chunks/terminal-….js`):
 * the folder also keeps an earlier build's for a while (OLD_CHUNK_MS).
 *
 * @example
 *   await buildWindowBundle(); // dist/web/window.js, dist/web/window.css, dist/web/chunks/*.js
 */
export async function buildWindowBundle(paths: WindowBundlePaths = DEFAULT_BUNDLE_PATHS): Promise<string[]> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: { window: path.join(paths.source, 'main.ts') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    minify: true,
    legalComments: 'none',
    splitting: true,
    chunkNames: `${CHUNK_FOLDER}/[name]-[hash]`,
    outdir: paths.output,
    write: false,
    logLevel: 'silent',
  });
  const chunks = path.join(paths.output, CHUNK_FOLDER);
  fs.mkdirSync(chunks, { recursive: true });
  const isChunk = (file: string) => path.dirname(file) === chunks;
  const written = result.outputFiles.filter((file) => !isChunk(file.path) || file.path.endsWith('.js'));
  // The chunks first: an entry written never names a chunk that is not there yet.
  for (const file of [...written.filter((file) => isChunk(file.path)), ...written.filter((file) => !isChunk(file.path))]) {
    const temporary = `${file.path}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
  const current = new Set(written.map((file) => path.basename(file.path)));
  for (const name of fs.readdirSync(chunks)) {
    const full = path.join(chunks, name);
    if (!current.has(name) && Date.now() - fs.statSync(full).mtimeMs > OLD_CHUNK_MS) fs.rmSync(full, { force: true });
  }
  return written.filter((file) => isChunk(file.path)).map((file) => `${CHUNK_FOLDER}/${path.basename(file.path)}`);
}

/**
 * The path of the chunk named `name`, or undefined when no chunk can have that name: only
 * names of esbuild's form in the chunks folder, so that no other file can be asked for.
 *
 * @example
 *   chunkPath(DEFAULT_BUNDLE_PATHS, 'terminal-panel-ABCD1234.js'); // → …/dist/web/chunks/terminal-panel-ABCD1234.js
 *   chunkPath(DEFAULT_BUNDLE_PATHS, '../window.js'); // → undefined
 */
export function chunkPath(paths: WindowBundlePaths, name: string): string | undefined {
  return CHUNK_NAME.test(name) ? path.join(paths.output, CHUNK_FOLDER, name) : undefined;
}

/** One line saying why a build failed: esbuild's first error, with where it is. */
export function buildProblem(error: unknown): string {
  const first = (error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors?.[0];
  if (first) return first.location ? `${first.location.file}:${first.location.line}: ${first.text}` : first.text;
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/** Builds the bundle when it is missing or stale; resolves with whether it is there to serve. */
export async function ensureWindowBundle(paths: WindowBundlePaths = DEFAULT_BUNDLE_PATHS): Promise<{ ready: boolean; problem?: string }> {
  if (!bundleIsStale(paths)) return { ready: true };
  try {
    await buildWindowBundle(paths);
    return { ready: true };
  } catch (error) {
    const problem = buildProblem(error);
    // An older bundle still serves (an installation without the sources' dependencies).
    const present = BUNDLE_FILES.every((name) => fs.existsSync(path.join(paths.output, name)));
    return { ready: present, problem };
  }
}
