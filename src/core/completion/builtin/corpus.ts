// Training on a folder: walks it and feeds every source-looking file to the model. Async and
// yielding to the event loop every few files, so a server that trains at start still answers.
// The walk is the workspace's (workspace/walk.ts): symbolic links followed only inside the
// folder, never round a loop, and never into Loom's own folders (settings.json holds the API
// token, and what the model learns it may suggest).

import path from 'node:path';
import { readRegularBytes } from '../../files/read-regular.ts';
import type { WorkspacePaths } from '../../workspace/paths.ts';
import { WorkspaceWalk, type WorkspaceFile } from '../../workspace/walk.ts';
import type { BuiltinModel } from './model.ts';

export interface TrainOptions {
  /** Stop after this many bytes of code (default 50 MB). */
  maxBytes?: number;
  /** Files larger than this are skipped (default 1 MB): generated code, data, bundles. */
  maxFileBytes?: number;
  signal?: AbortSignal;
}

const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/** Files read between two yields to the event loop. */
const FILES_PER_YIELD = 8;

/** Folders that hold dependencies, build output or tool state, not the project's code. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'build', 'out', 'coverage', 'target', 'vendor', '__pycache__', 'bower_components']);
/** Files that are text but not code anyone writes. */
const SKIPPED_FILES = new Set(['package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'Cargo.lock', 'poetry.lock', 'composer.lock']);
const SKIPPED_SUFFIXES = ['.min.js', '.min.css', '.map', '.lock', '.log', '.svg'];
const BINARY_EXTENSIONS = new Set(
  (
    'png jpg jpeg gif bmp ico webp avif tif tiff psd pdf zip gz tgz bz2 xz 7z rar tar jar war ' +
    'exe dll so dylib o a lib bin class pyc wasm node woff woff2 ttf otf eot mp3 mp4 wav ogg ' +
    'webm mov avi mkv flac sqlite db gguf onnx pt safetensors npy npz parquet'
  ).split(' '),
);

/**
 * Trains `model` on the code of a folder behind its gate; resolves with what it read.
 *
 * @example
 * await trainOnFolder(model, new WorkspacePaths('/srv/corpus', { loomFolders: loomFolders(config) }));
 */
export async function trainOnFolder(model: BuiltinModel, folder: WorkspacePaths, options: TrainOptions = {}): Promise<{ files: number; bytes: number }> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const totals = { files: 0, bytes: 0 };
  let sinceYield = 0;
  for await (const file of walk(folder, options.signal)) {
    options.signal?.throwIfAborted();
    const data = await readSource(file.real, maxFileBytes);
    if (data === undefined) continue;
    if (totals.bytes + data.length > maxBytes) break;
    model.updateFile(file.path, data);
    model.indexPending();
    totals.files++;
    totals.bytes += data.length;
    if (++sinceYield >= FILES_PER_YIELD) {
      sinceYield = 0;
      await yieldToEventLoop();
      options.signal?.throwIfAborted();
    }
  }
  return totals;
}

/** The files of `folder` that may hold code, depth first, in name order. */
export async function* walk(folder: WorkspacePaths, signal?: AbortSignal): AsyncGenerator<WorkspaceFile> {
  for await (const file of new WorkspaceWalk(folder, '', { skipsFolder: skipsDirectory, signal })) {
    if (isCodeName(path.posix.basename(file.path))) yield file;
  }
}

/** Folders never learned: dot-folders (.git, .cache…), dependencies, build output. */
export function skipsDirectory(name: string): boolean {
  return name.startsWith('.') || SKIPPED_FOLDERS.has(name);
}

/**
 * Whether a file (a path relative to the workspace, '/'-separated, and its size) is code the
 * model should learn: the walker's rules, for callers that hear of files one at a time.
 */
export function acceptsFile(relativePath: string, size: number, maxFileBytes = DEFAULT_MAX_FILE_BYTES): boolean {
  if (size > maxFileBytes) return false;
  const parts = relativePath.split('/');
  const name = parts.pop() ?? '';
  return parts.every((part) => part === '' || !skipsDirectory(part)) && isCodeName(name);
}

/** Whether a file name may hold code (not a lock file, a map, a minified bundle or a binary). */
export function isCodeName(name: string): boolean {
  if (name.startsWith('.') || SKIPPED_FILES.has(name)) return false;
  const lower = name.toLowerCase();
  if (SKIPPED_SUFFIXES.some((suffix) => lower.endsWith(suffix))) return false;
  const dot = lower.lastIndexOf('.');
  return dot < 0 || !BINARY_EXTENSIONS.has(lower.slice(dot + 1));
}

/** The file's text, or undefined when it is too big, binary, minified or unreadable. */
async function readSource(file: string, maxFileBytes: number): Promise<string | undefined> {
  try {
    // Never a FIFO swapped in after the walk saw a file: reading one would never finish.
    const buffer = await readRegularBytes(file, maxFileBytes);
    if (!buffer || buffer.length === 0 || looksBinary(buffer)) return undefined;
    const text = buffer.toString('utf8');
    return looksMinified(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

/** A NUL byte in the first 8 KB: what git's own binary test looks for. */
export function looksBinary(buffer: Uint8Array): boolean {
  const end = Math.min(buffer.length, 8192);
  for (let i = 0; i < end; i++) if (buffer[i] === 0) return true;
  return false;
}

/** Long average lines: a bundle or minified file, which would teach the model nothing useful. */
function looksMinified(text: string): boolean {
  if (text.length < 4096) return false;
  let lines = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  return text.length / lines > 300;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
