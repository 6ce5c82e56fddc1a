// A parsing thread of the pool (parser-pool.ts): takes a file's bytes and language, answers
// what the index keeps of it (index-content.ts). Its tree-sitter parser and grammars stay
// loaded between files. Messages are checked only as far as the pool, its one sender, needs.
import { parentPort, workerData } from 'node:worker_threads';
import { looksBinary } from '../../core/code/content.ts';
import type { IndexedLanguage, SkipReason } from '../../core/code/model.ts';
import { readRegularBytesSync } from '../../core/files/read-regular.ts';
import { contentKey } from './content-key.ts';
import { Extractor, type ExtractLimits } from './extract.ts';
import { emptyContent, indexContent, type IndexedContent } from './index-content.ts';

/** What the pool sends: a file's bytes (unsaved text), or the file to read. */
export interface ParseRequest {
  id: number;
  language: IndexedLanguage;
  bytes?: Uint8Array;
  file?: { absolute: string; maxBytes: number };
}

/** What the thread answers: the content, and for a file read here its content key (empty when it could not be read as text). */
export type ParseAnswer = ({ id: number; ok: true; content: IndexedContent; key?: Uint8Array; read?: number } | { id: number; ok: false; error: string }) & {
  /** The thread ends after this answer; the jobs sent behind it go to another. */
  retiring?: boolean;
};

/** The limits the pool starts the thread with. */
export interface ParseWorkerData {
  limits: ExtractLimits;
  maxLineChars: number;
}

const { limits, maxLineChars } = workerData as ParseWorkerData;
const extractor = new Extractor(limits);
const decoder = new TextDecoder();
const port = parentPort!;

/**
 * Memory outside the JavaScript heap (tree-sitter's WebAssembly memory, about 37 MB at start)
 * past which the thread retires after its answer: the tree of a dense 1 MB file grows it to
 * about 80 MB, one of 2 MB (with codeIndex.maxFileBytes raised) to 150 MB, for good.
 */
const RETIRE_ABOVE_EXTERNAL_BYTES = 96 * 1024 * 1024;

let retiring = false;
/** Requests are answered one after the other, in the order they came: the pool counts on it. */
let queue: Promise<void> = Promise.resolve();

port.on('message', (request: ParseRequest) => {
  queue = queue.then(async () => {
    if (retiring) return;
    const reply = await answer(request);
    // The parser failed in a way that was no time limit (a WebAssembly trap, say): its memory
    // may be in any state, so this thread ends and the pool starts a fresh one. So does a thread
    // whose WebAssembly memory grew on a large file: it never shrinks.
    if (!reply.ok || reply.content.reason === 'parse-failed' || process.memoryUsage().external > RETIRE_ABOVE_EXTERNAL_BYTES) retiring = reply.retiring = true;
    const transfer = reply.ok && reply.content.references.byteLength > 0 ? [reply.content.references.buffer as ArrayBuffer] : [];
    if (reply.ok && reply.key && reply.key.byteLength > 0) transfer.push(reply.key.buffer as ArrayBuffer);
    port.postMessage(reply, transfer);
    if (retiring) port.close();
  });
});

async function answer(request: ParseRequest): Promise<ParseAnswer> {
  try {
    if (request.bytes)
      return { id: request.id, ok: true, content: await indexContent(extractor, decoder.decode(request.bytes), request.language, maxLineChars) };
    const { absolute, maxBytes } = request.file!;
    let bytes: Buffer | undefined;
    try {
      bytes = readRegularBytesSync(absolute, maxBytes);
    } catch {
      return { id: request.id, ok: true, content: unread(request.language, 'unreadable'), key: EMPTY };
    }
    if (!bytes) return { id: request.id, ok: true, content: unread(request.language, 'too-large'), key: EMPTY };
    if (looksBinary(bytes)) return { id: request.id, ok: true, content: unread(request.language, 'binary'), key: EMPTY };
    const key = contentKey(request.language, bytes);
    const content = await indexContent(extractor, decoder.decode(bytes), request.language, maxLineChars);
    return { id: request.id, ok: true, content, key, read: bytes.length };
  } catch (error) {
    return { id: request.id, ok: false, error: (error as Error).message ?? String(error) };
  }
}

const EMPTY = new Uint8Array(0);

/** The answer for a file that could not be read as text here. */
function unread(language: IndexedLanguage, reason: SkipReason): IndexedContent {
  return { ...emptyContent(language, 0), state: 'skipped', reason };
}
