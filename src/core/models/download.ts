// Downloads a (large) file over HTTP(S) into place: to `<dest>.partial` first, resuming a
// partial left by an interrupted run with a Range request, hashing as the bytes arrive, and
// renaming into place only once size and sha256 check out. A stalled connection is cut and
// retried (resuming); a mismatch deletes the partial.
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { describeFetchFailure, fetchFailureCode } from '../fetch-failure.ts';
import { PARTIAL_SUFFIX } from './library.ts';

export interface DownloadProgress {
  /** Bytes in the partial file so far (including those of a resumed earlier run). */
  done: number;
  /** Bytes of the whole file, when the catalog or the server says. */
  total?: number;
  /** Bytes that were already there when this transfer started (0 for a fresh one). */
  resumedFrom: number;
}

export interface DownloadOptions {
  url: string;
  /** The final path; the download goes to `dest + '.partial'` and is renamed there. */
  dest: string;
  /** Hex SHA-256 the file must have; unchecked when absent. */
  sha256?: string;
  /** Bytes the file must have; unchecked when absent. */
  size?: number;
  onProgress?: (progress: DownloadProgress) => void;
  /** Aborting ends the transfer at once; the partial stays for a later resume. */
  signal?: AbortSignal;
  /** A connection that delivers nothing (headers included) for this long is cut. Default 30 s. */
  stallTimeoutMs?: number;
  /** Times a broken or stalled transfer is resumed before giving up. Default 3. */
  retries?: number;
  /** Pause before each retry. Default 1 s. */
  retryDelayMs?: number;
  /** Extra request headers (User-Agent, …). */
  headers?: Record<string, string>;
}

export interface DownloadResult {
  path: string;
  size: number;
  /** Hex SHA-256 of the file as downloaded. */
  sha256: string;
  /** Bytes that were reused from an earlier partial download. */
  resumedFrom: number;
}

export type DownloadFailure = 'http' | 'network' | 'stalled' | 'size' | 'checksum' | 'busy';

export class DownloadError extends Error {
  override name = 'DownloadError';
  constructor(
    readonly reason: DownloadFailure,
    message: string,
    /** Worth another attempt (the partial is kept and resumed). */
    readonly retryable = false,
  ) {
    super(message);
  }
}

export function partialPathOf(dest: string): string {
  return dest + PARTIAL_SUFFIX;
}

/** Downloads `url` to `dest` as described at the top of this file. */
export async function downloadFile(options: DownloadOptions): Promise<DownloadResult> {
  const { signal } = options;
  signal?.throwIfAborted();
  const partial = partialPathOf(options.dest);
  await fsp.mkdir(path.dirname(options.dest), { recursive: true });
  const releaseLock = await acquireLock(`${partial}.lock`, options.url);
  try {
    const retries = options.retries ?? 3;
    const cache: HashCache = {};
    let firstResumedFrom: number | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await attemptDownload(options, partial, cache, (resumedFrom) => {
          firstResumedFrom ??= resumedFrom;
        });
        return { ...result, resumedFrom: firstResumedFrom ?? 0 };
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (!(error instanceof DownloadError) || !error.retryable || attempt >= retries) throw error;
        await delay(options.retryDelayMs ?? 1000, signal);
      }
    }
  } finally {
    releaseLock();
  }
}

/** The running hash of the partial file's first `bytes` bytes, kept across retries. */
interface HashCache {
  hash?: Hash;
  bytes?: number;
}

async function attemptDownload(
  options: DownloadOptions,
  partial: string,
  cache: HashCache,
  started: (resumedFrom: number) => void,
): Promise<Omit<DownloadResult, 'resumedFrom'>> {
  const { url, size: expectedSize, signal } = options;
  const host = hostOf(url);
  let have = fs.statSync(partial, { throwIfNoEntry: false })?.size ?? 0;
  if (expectedSize !== undefined && have > expectedSize) {
    await fsp.rm(partial, { force: true });
    have = 0;
  }
  let hash: Hash;
  if (have > 0 && cache.hash && cache.bytes === have) hash = cache.hash;
  else hash = await hashFile(partial, have, signal);
  cache.hash = hash;
  cache.bytes = have;

  if (expectedSize !== undefined && have === expectedSize) {
    // Complete from an earlier run that stopped before the rename.
    started(have);
    return finish(options, partial, hash, have);
  }

  const stall = options.stallTimeoutMs ?? 30_000;
  const inner = new AbortController();
  const stalled = () => inner.abort(new DownloadError('stalled', `No data from ${host} for ${Math.round(stall / 1000)} s; the transfer was cut.`, true));
  let timer = setTimeout(stalled, stall);
  const kick = () => {
    clearTimeout(timer);
    timer = setTimeout(stalled, stall);
  };
  const combined = signal ? AbortSignal.any([signal, inner.signal]) : inner.signal;
  const failure = (error: unknown, done: number, total: number | undefined): unknown => {
    if (signal?.aborted) return signal.reason;
    if (inner.signal.aborted) return inner.signal.reason;
    if (error instanceof DownloadError) return error;
    if (!answered) {
      // Refused, an unknown host or a URL fetch will not use (no system error code): retrying at once will not help.
      const code = fetchFailureCode(error);
      const permanent = code === undefined || code === 'ECONNREFUSED' || code === 'ENOTFOUND';
      return new DownloadError('network', `Cannot reach ${host}: ${describeFetchFailure(error)}.`, !permanent);
    }
    const of = total !== undefined ? ` of ${total}` : '';
    return new DownloadError('network', `The connection to ${host} broke after ${done}${of} bytes: ${describeFetchFailure(error)}.`, true);
  };
  let answered = false;

  let handle: fsp.FileHandle | undefined;
  let done = have;
  let total: number | undefined = expectedSize;
  try {
    let response = await request(url, have, options.headers, combined).catch((error) => {
      throw failure(error, done, total);
    });
    answered = true;
    kick();

    if (response.status === 416 && have > 0) {
      // Nothing after `have`: complete when the server's length is what we hold; else start over.
      const length = /^bytes \*\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1];
      await response.body?.cancel().catch(() => {});
      if (length !== undefined && Number(length) === have) {
        started(have);
        clearTimeout(timer);
        return finish(options, partial, hash, have);
      }
      ({ response, have, hash } = await restart(url, partial, options.headers, combined));
    } else if (response.status === 206) {
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
      if (!range || Number(range[1]) !== have) {
        await response.body?.cancel().catch(() => {});
        ({ response, have, hash } = await restart(url, partial, options.headers, combined));
      } else if (range[3] !== '*') {
        total = Number(range[3]);
      }
    } else if (response.status === 200 && have > 0) {
      // The server ignored Range: what it sends is the whole file.
      have = 0;
      hash = createHash('sha256');
    }
    if (response.status !== 200 && response.status !== 206) {
      await response.body?.cancel().catch(() => {});
      const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
      throw new DownloadError('http', `${host} answered HTTP ${response.status} for ${url}.`, retryable);
    }
    if (response.status === 200) {
      const length = response.headers.get('content-length');
      total = length !== null && /^\d+$/.test(length) ? Number(length) : expectedSize;
    }
    if (expectedSize !== undefined && total !== undefined && total !== expectedSize) {
      await response.body?.cancel().catch(() => {});
      await fsp.rm(partial, { force: true });
      cache.hash = undefined;
      throw new DownloadError('size', `${host} serves ${total} bytes for ${url}, but the catalog says ${expectedSize}; nothing was kept.`);
    }
    if (!response.body) throw new DownloadError('network', `${host} sent no body for ${url}.`, true);

    started(have);
    cache.hash = hash;
    cache.bytes = have;
    done = have;
    handle = await fsp.open(partial, have > 0 ? 'r+' : 'w');
    options.onProgress?.({ done, total, resumedFrom: have });
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      kick();
      if (expectedSize !== undefined && done + chunk.byteLength > expectedSize) {
        throw new DownloadError('size', `${host} sent more than the ${expectedSize} bytes the catalog gives for ${url}.`);
      }
      await handle.write(chunk, 0, chunk.byteLength, done);
      hash.update(chunk);
      done += chunk.byteLength;
      cache.bytes = done;
      options.onProgress?.({ done, total, resumedFrom: have });
    }
    clearTimeout(timer);
    if (total !== undefined && done < total) {
      throw new DownloadError('network', `The connection to ${host} closed after ${done} of ${total} bytes.`, true);
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    return await finish(options, partial, hash, done);
  } catch (error) {
    const reported = failure(error, done, total);
    if (reported instanceof DownloadError && reported.reason === 'size') {
      await handle?.close().catch(() => {});
      handle = undefined;
      await fsp.rm(partial, { force: true });
      cache.hash = undefined;
    }
    throw reported;
  } finally {
    clearTimeout(timer);
    if (handle) {
      // Keep what arrived for a resume: flush it so the next run's size is the truth.
      await handle.sync().catch(() => {});
      await handle.close().catch(() => {});
    }
  }
}

/** Checks size and sha256, then renames the partial into place (fsynced first, folder after). */
async function finish(options: DownloadOptions, partial: string, hash: Hash, size: number): Promise<Omit<DownloadResult, 'resumedFrom'>> {
  if (options.size !== undefined && size !== options.size) {
    await fsp.rm(partial, { force: true });
    throw new DownloadError('size', `The download of ${options.url} is ${size} bytes, but the catalog says ${options.size}; the partial file was deleted.`);
  }
  const digest = hash.digest('hex');
  if (options.sha256 !== undefined && digest !== options.sha256.toLowerCase()) {
    await fsp.rm(partial, { force: true });
    throw new DownloadError(
      'checksum',
      `The download of ${options.url} does not match its sha256 (expected ${options.sha256}, got ${digest}); the partial file was deleted. ` +
        'The file on the server may have changed: check the catalog entry.',
    );
  }
  const handle = await fsp.open(partial, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsp.rename(partial, options.dest);
  await syncFolder(path.dirname(options.dest));
  return { path: options.dest, size, sha256: digest };
}

/** A fresh request without Range, the partial emptied. */
async function restart(url: string, partial: string, headers: Record<string, string> | undefined, signal: AbortSignal) {
  await fsp.rm(partial, { force: true });
  const response = await request(url, 0, headers, signal);
  return { response, have: 0, hash: createHash('sha256') };
}

function request(url: string, from: number, headers: Record<string, string> | undefined, signal: AbortSignal): Promise<Response> {
  return fetch(url, {
    redirect: 'follow',
    signal,
    headers: {
      // Byte offsets must be those of the file, not of a compressed stream.
      'accept-encoding': 'identity',
      ...headers,
      ...(from > 0 ? { range: `bytes=${from}-` } : {}),
    },
  });
}

async function hashFile(file: string, bytes: number, signal?: AbortSignal): Promise<Hash> {
  const hash = createHash('sha256');
  if (bytes === 0) return hash;
  for await (const chunk of fs.createReadStream(file, { start: 0, end: bytes - 1, signal })) hash.update(chunk as Buffer);
  return hash;
}

/**
 * One download per file at a time: a lock file holding the owner's pid. A lock whose process is
 * gone (a crash, a kill -9) is taken over.
 */
async function acquireLock(lock: string, url: string): Promise<() => void> {
  for (let tries = 0; tries < 2; tries++) {
    try {
      await fsp.writeFile(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await fsp.readFile(lock, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
        throw new DownloadError('busy', `Another download of ${url} is running (process ${pid}); its lock is ${lock}.`);
      }
      await fsp.rm(lock, { force: true });
    }
  }
  throw new DownloadError('busy', `Cannot take the download lock ${lock}.`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function syncFolder(folder: string): Promise<void> {
  // Makes the rename durable; not every platform lets a folder be opened (Windows), so best effort.
  try {
    const handle = await fsp.open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // ignore
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
