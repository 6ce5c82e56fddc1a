// Downloads a (large) file over HTTP(S) into place: to `<dest>.partial` first, resuming a
// partial left by an interrupted run with a Range request, hashing as the bytes arrive, and
// renaming into place only once size and sha256 check out. A stalled connection is cut and
// retried (resuming); a mismatch deletes the partial.
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { describeFetchFailure, fetchFailureCode } from '../../core/fetch-failure.ts';
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

/** Where a transfer starts: the bytes already in the partial file, and their hash so far. */
interface ResumePoint {
  have: number;
  hash: Hash;
}

/** A transfer under way: the answer whose body brings the bytes after `have`. */
interface Transfer extends ResumePoint {
  response: Response;
}

type AttemptResult = Omit<DownloadResult, 'resumedFrom'>;

/** One try at the transfer; `started` hears how many bytes it resumed from. */
function attemptDownload(options: DownloadOptions, partial: string, cache: HashCache, started: (resumedFrom: number) => void): Promise<AttemptResult> {
  return new DownloadAttempt(options, partial, cache, started).run();
}

/**
 * One try at the transfer: resume from what the partial file holds, ask the server for the
 * rest, write and hash it as it arrives, then check and rename the whole (`finish`). A failure
 * is thrown as a DownloadError whose `retryable` says whether downloadFile tries again.
 */
class DownloadAttempt {
  private readonly host: string;
  private readonly stall: StallWatch;
  /** The server answered: a failure from then on broke a connection that worked. */
  private answered = false;
  /** Bytes in the partial file, and the whole file's length when known (for messages and progress). */
  private done = 0;
  private total?: number;
  private handle?: fsp.FileHandle;

  constructor(
    private readonly options: DownloadOptions,
    private readonly partial: string,
    private readonly cache: HashCache,
    private readonly started: (resumedFrom: number) => void,
  ) {
    this.host = hostOf(options.url);
    this.stall = new StallWatch(options.stallTimeoutMs ?? 30_000, this.host, options.signal);
    this.total = options.size;
  }

  async run(): Promise<AttemptResult> {
    const start = await this.resumePoint();
    this.done = start.have;
    if (this.options.size !== undefined && start.have === this.options.size) {
      // Complete from an earlier run that stopped before the rename.
      this.started(start.have);
      return finish(this.options, this.partial, start.hash, start.have);
    }
    this.stall.start();
    try {
      const transfer = await this.open(start);
      if (transfer === 'complete') {
        this.started(start.have);
        this.stall.stop();
        return await finish(this.options, this.partial, start.hash, start.have);
      }
      return await this.receive(transfer);
    } catch (error) {
      throw await this.failure(error);
    } finally {
      this.stall.stop();
      if (this.handle) {
        // Keep what arrived for a resume: flush it so the next run's size is the truth.
        await this.handle.sync().catch(() => {});
        await this.handle.close().catch(() => {});
      }
    }
  }

  /** What the partial file already holds (none when it is longer than the file can be), and its hash. */
  private async resumePoint(): Promise<ResumePoint> {
    const { size: expectedSize, signal } = this.options;
    let have = fs.statSync(this.partial, { throwIfNoEntry: false })?.size ?? 0;
    if (expectedSize !== undefined && have > expectedSize) {
      await fsp.rm(this.partial, { force: true });
      have = 0;
    }
    const hash = have > 0 && this.cache.hash && this.cache.bytes === have ? this.cache.hash : await hashFile(this.partial, have, signal);
    this.cache.hash = hash;
    this.cache.bytes = have;
    return { have, hash };
  }

  /**
   * Asks for the bytes after `have` and reads how the server answered: a 206 for exactly those
   * bytes resumes; a 200 (Range ignored) or a 206 for other bytes starts over; a 416 means
   * nothing follows, so the partial is complete when the server's length is what it holds, and
   * starts over otherwise. Any other status is an 'http' failure (retryable for 5xx, 408, 429),
   * and a length other than the catalog's a 'size' one.
   */
  private async open(start: ResumePoint): Promise<Transfer | 'complete'> {
    const { url, headers, size: expectedSize } = this.options;
    let transfer: Transfer = { ...start, response: await request(url, start.have, headers, this.stall.signal) };
    this.answered = true;
    this.stall.kick();
    const { status } = transfer.response;
    if (status === 416 && start.have > 0) {
      const length = /^bytes \*\/(\d+)$/.exec(transfer.response.headers.get('content-range') ?? '')?.[1];
      await discardBody(transfer.response);
      if (length !== undefined && Number(length) === start.have) return 'complete';
      transfer = await restart(url, this.partial, headers, this.stall.signal);
    } else if (status === 206) {
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(transfer.response.headers.get('content-range') ?? '');
      if (!range || Number(range[1]) !== start.have) {
        await discardBody(transfer.response);
        transfer = await restart(url, this.partial, headers, this.stall.signal);
      } else if (range[3] !== '*') {
        this.total = Number(range[3]);
      }
    } else if (status === 200 && start.have > 0) {
      // The server ignored Range: what it sends is the whole file.
      transfer = { ...transfer, have: 0, hash: createHash('sha256') };
    }
    const { response } = transfer;
    if (response.status !== 200 && response.status !== 206) {
      await discardBody(response);
      const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
      throw new DownloadError('http', `${this.host} answered HTTP ${response.status} for ${url}.`, retryable);
    }
    if (response.status === 200) {
      const length = response.headers.get('content-length');
      this.total = length !== null && /^\d+$/.test(length) ? Number(length) : expectedSize;
    }
    if (expectedSize !== undefined && this.total !== undefined && this.total !== expectedSize) {
      await discardBody(response);
      throw new DownloadError('size', `${this.host} serves ${this.total} bytes for ${url}, but the catalog says ${expectedSize}; nothing was kept.`);
    }
    return transfer;
  }

  /** Writes the body into the partial file after what it holds, hashing and reporting as it goes, then finishes. */
  private async receive({ response, have, hash }: Transfer): Promise<AttemptResult> {
    const { url, size: expectedSize, onProgress } = this.options;
    if (!response.body) throw new DownloadError('network', `${this.host} sent no body for ${url}.`, true);
    this.started(have);
    this.cache.hash = hash;
    this.cache.bytes = have;
    this.done = have;
    this.handle = await fsp.open(this.partial, have > 0 ? 'r+' : 'w');
    onProgress?.({ done: this.done, total: this.total, resumedFrom: have });
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      this.stall.kick();
      if (expectedSize !== undefined && this.done + chunk.byteLength > expectedSize) {
        throw new DownloadError('size', `${this.host} sent more than the ${expectedSize} bytes the catalog gives for ${url}.`);
      }
      await this.handle.write(chunk, 0, chunk.byteLength, this.done);
      hash.update(chunk);
      this.done += chunk.byteLength;
      this.cache.bytes = this.done;
      onProgress?.({ done: this.done, total: this.total, resumedFrom: have });
    }
    this.stall.stop();
    if (this.total !== undefined && this.done < this.total) {
      throw new DownloadError('network', `The connection to ${this.host} closed after ${this.done} of ${this.total} bytes.`, true);
    }
    await this.handle.sync();
    await this.handle.close();
    this.handle = undefined;
    return finish(this.options, this.partial, hash, this.done);
  }

  /**
   * What a failed attempt reports: the caller's abort or the stall as they are, a DownloadError
   * as it is, anything else as a 'network' failure (retryable, except a refused connection or an
   * unknown host before any answer). A 'size' failure deletes the partial: it is not the file.
   */
  private async failure(error: unknown): Promise<unknown> {
    const reported = this.classify(error);
    if (reported instanceof DownloadError && reported.reason === 'size') {
      await this.handle?.close().catch(() => {});
      this.handle = undefined;
      await fsp.rm(this.partial, { force: true });
      this.cache.hash = undefined;
    }
    return reported;
  }

  private classify(error: unknown): unknown {
    const { signal } = this.options;
    if (signal?.aborted) return signal.reason;
    if (this.stall.signal.aborted) return this.stall.signal.reason;
    if (error instanceof DownloadError) return error;
    if (!this.answered) {
      // Refused, an unknown host or a URL fetch will not use (no system error code): retrying at once will not help.
      const code = fetchFailureCode(error);
      const permanent = code === undefined || code === 'ECONNREFUSED' || code === 'ENOTFOUND';
      return new DownloadError('network', `Cannot reach ${this.host}: ${describeFetchFailure(error)}.`, !permanent);
    }
    const of = this.total !== undefined ? ` of ${this.total}` : '';
    return new DownloadError('network', `The connection to ${this.host} broke after ${this.done}${of} bytes: ${describeFetchFailure(error)}.`, true);
  }
}

/**
 * Cuts a transfer that delivers nothing (headers included) for `ms`: `signal` aborts with a
 * retryable 'stalled' DownloadError, or with the caller's reason when the caller aborts. Every
 * `kick()` (an answer, a chunk) starts the wait again.
 */
class StallWatch {
  readonly signal: AbortSignal;
  private readonly cut = new AbortController();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly ms: number,
    private readonly host: string,
    outer?: AbortSignal,
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.cut.signal]) : this.cut.signal;
  }

  start(): void {
    this.kick();
  }

  kick(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => this.cut.abort(new DownloadError('stalled', `No data from ${this.host} for ${Math.round(this.ms / 1000)} s; the transfer was cut.`, true)),
      this.ms,
    );
  }

  stop(): void {
    clearTimeout(this.timer);
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
async function restart(url: string, partial: string, headers: Record<string, string> | undefined, signal: AbortSignal): Promise<Transfer> {
  await fsp.rm(partial, { force: true });
  const response = await request(url, 0, headers, signal);
  return { response, have: 0, hash: createHash('sha256') };
}

/** Lets go of an answer whose body will not be read. */
async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
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
