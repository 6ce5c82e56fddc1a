// The window's script and styles: src/web bundled by esbuild into dist/web (window.js,
// window.css). `npm run build:web` builds them (and `prepare` runs it, so `npm install` / `npm
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
  /** Where window.js and window.css are written. */
  output: string;
}

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
 * Bundles src/web/main.ts (CodeMirror and all) into window.js and window.css, minified, with
 * source maps inline only in development builds. esbuild comes with tsx, which runs Loom.
 *
 * @example
 *   await buildWindowBundle(); // dist/web/window.js, dist/web/window.css
 */
export async function buildWindowBundle(paths: WindowBundlePaths = DEFAULT_BUNDLE_PATHS): Promise<void> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: { window: path.join(paths.source, 'main.ts') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    minify: true,
    legalComments: 'none',
    outdir: paths.output,
    write: false,
    logLevel: 'silent',
  });
  fs.mkdirSync(paths.output, { recursive: true });
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
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
