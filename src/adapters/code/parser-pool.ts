// Parsing off the main thread: a pool of worker threads (parse-worker.ts), each with its own
// tree-sitter WebAssembly instance. Parsing a large file takes a WebAssembly call of hundreds of
// milliseconds that cannot yield, so a server that parses on its main thread stops answering;
// and threads use the other cores. A thread that crashes, runs past its time, grows past its
// heap limit or traps is replaced, and the file it held counts as `parse-failed`; the pool never
// waits on a thread without a deadline.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LIMITS, type IndexedLanguage } from '../../core/code/model.ts';
import type { ExtractLimits } from './extract.ts';
import type { IndexedContent } from './index-content.ts';
import type { ParseAnswer, ParseRequest, ParseWorkerData } from './parse-worker.ts';

/**
 * What a thread runs: in the compiled build (dist/cli, scripts/build-cli.js), its own plain
 * JavaScript entry beside this chunk; from the sources, the bootstrap that brings tsx's hook.
 */
const WORKER_SCRIPT = ((): URL => {
  const compiled = path.join(import.meta.dirname, 'parse-worker.js');
  return fs.existsSync(compiled) ? pathToFileURL(compiled) : new URL('./parse-worker.cjs', import.meta.url);
})();

export interface ParserPoolOptions {
  /** Threads at most (default: the cores but one, at least one, at most four). */
  size?: number;
  limits?: ExtractLimits;
  maxLineChars?: number;
  /**
   * JavaScript heap of each thread, MB: a hostile file must not grow the process without bound,
   * and a small heap is collected often (the outline of the largest file takes a few MB).
   */
  heapMb?: number;
  /** A thread idle this long ends (the last one after five minutes). */
  idleMs?: number;
  /** A thread that has parsed this many bytes is replaced once idle: WebAssembly memory only grows. */
  recycleAfterBytes?: number;
}

/** The default number of threads: every core but one for the server, at least one, at most four. */
export function defaultPoolSize(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

interface Job {
  id: number;
  language: IndexedLanguage;
  bytes?: Uint8Array;
  file?: { absolute: string; maxBytes: number };
  /** Bytes the job counts for (a thread is recycled after so many). */
  size: number;
  resolve: (answer: { content: IndexedContent; key?: Uint8Array }) => void;
  reject: (error: Error) => void;
}

/** The last thread of an idle pool ends after this long. */
const LAST_THREAD_IDLE_MS = 5 * 60_000;
/** Jobs sent to a thread ahead of its answers: it never waits for the next file. */
const JOBS_PER_THREAD = 3;

interface Thread {
  worker: Worker;
  /** Jobs sent, in the order the thread works them: the first is the one under way. */
  jobs: Job[];
  /** The deadline of the job under way. */
  timer?: NodeJS.Timeout;
  idleTimer?: NodeJS.Timeout;
  parsedBytes: number;
  ended: boolean;
}

/** A parse that could not be done: the thread failed or ran past its deadline. */
export class ParseFailure extends Error {
  override name = 'ParseFailure';
  constructor(
    message: string,
    readonly reason: 'parse-failed' | 'parse-timeout',
  ) {
    super(message);
  }
}

/**
 * A pool of parsing threads, started as work arrives.
 *
 * @example
 *   const pool = new ParserPool({ size: 2 });
 *   const content = await pool.parse(Buffer.from('def f(): pass\n'), 'python');
 *   await pool.close();
 */
export class ParserPool {
  readonly size: number;
  private readonly threads = new Set<Thread>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly data: ParseWorkerData;
  private readonly heapMb: number;
  private readonly idleMs: number;
  private readonly recycleAfterBytes: number;
  /** A job's deadline: its parse limit, the thread's start-up, and room for a loaded machine. */
  private readonly jobTimeoutMs: number;

  constructor(options: ParserPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? defaultPoolSize());
    const limits = options.limits ?? LIMITS;
    this.data = { limits, maxLineChars: options.maxLineChars ?? LIMITS.maxLineChars };
    this.heapMb = options.heapMb ?? 48;
    this.idleMs = options.idleMs ?? 10_000;
    this.recycleAfterBytes = options.recycleAfterBytes ?? 256 * 1024 * 1024;
    this.jobTimeoutMs = limits.parseTimeoutMs * 4 + 30_000;
  }

  /** Jobs waiting for a thread. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Indexes one file's bytes (copied to the thread). Rejects with ParseFailure when the thread
   * dies on this file or runs past the job's deadline.
   */
  parse(bytes: Uint8Array, language: IndexedLanguage): Promise<IndexedContent> {
    return this.submit({ language, bytes, size: bytes.byteLength }).then((answer) => answer.content);
  }

  /**
   * Indexes the file at `absolute`, which the thread reads itself (at most `maxBytes`), and the
   * content key of what it read (empty when it could not read it as text: the content then says why).
   */
  async parseFile(absolute: string, language: IndexedLanguage, maxBytes: number): Promise<{ content: IndexedContent; key: Buffer }> {
    const answer = await this.submit({ language, file: { absolute, maxBytes }, size: 0 });
    const key = answer.key ?? new Uint8Array(0);
    return { content: answer.content, key: Buffer.from(key.buffer, key.byteOffset, key.byteLength) };
  }

  private submit(job: Omit<Job, 'id' | 'resolve' | 'reject'>): Promise<{ content: IndexedContent; key?: Uint8Array }> {
    if (this.closed) return Promise.reject(new Error('The parser pool is closed.'));
    return new Promise((resolve, reject) => {
      this.queue.push({ ...job, id: this.nextId++, resolve, reject });
      this.dispatch();
    });
  }

  /** Starts a thread now, when none runs (a build starts one while it walks: a thread takes a moment to start). */
  warm(): void {
    if (this.closed || this.threads.size > 0) return;
    this.idle(this.start());
  }

  /** Ends every thread; jobs still waiting are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('The parser pool closed.'));
    await Promise.all([...this.threads].map((thread) => this.end(thread, new Error('The parser pool closed.'))));
  }

  /**
   * Sends waiting jobs to the least busy thread. Another thread starts only when every thread
   * has its fill and jobs still wait: a trickle of files (an update, a re-index) keeps one
   * thread, a build grows to the pool's size.
   */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let thread: Thread | undefined;
      for (const candidate of this.threads) if (!candidate.ended && (!thread || candidate.jobs.length < thread.jobs.length)) thread = candidate;
      if (!thread || (thread.jobs.length >= JOBS_PER_THREAD && this.threads.size < this.size)) thread = this.start();
      if (thread.jobs.length >= JOBS_PER_THREAD) return;
      this.send(thread, this.queue.shift()!);
    }
  }

  private start(): Thread {
    const worker = new Worker(WORKER_SCRIPT, {
      workerData: this.data,
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: 8 },
      // Not the process's stdin; its output is the parent's (a thread prints nothing itself).
      stdin: false,
    });
    const thread: Thread = { worker, jobs: [], parsedBytes: 0, ended: false };
    worker.on('message', (answer: ParseAnswer) => this.answered(thread, answer));
    worker.on('error', (error) => void this.end(thread, error));
    worker.on('exit', () => void this.end(thread, new Error('The parsing thread stopped.')));
    // A pool with nothing to do never keeps the process alive (send() holds it while jobs run).
    worker.unref();
    this.threads.add(thread);
    return thread;
  }

  private send(thread: Thread, job: Job): void {
    clearTimeout(thread.idleTimer);
    thread.worker.ref();
    thread.jobs.push(job);
    thread.parsedBytes += job.size;
    if (thread.jobs.length === 1) this.startDeadline(thread);
    // Bytes copied, not moved: if the thread dies, the jobs queued behind the one that killed it go to another.
    const request: ParseRequest = { id: job.id, language: job.language, ...(job.bytes ? { bytes: job.bytes } : {}), ...(job.file ? { file: job.file } : {}) };
    thread.worker.postMessage(request);
  }

  private startDeadline(thread: Thread): void {
    clearTimeout(thread.timer);
    thread.timer = setTimeout(() => void this.end(thread, new ParseFailure(`no answer within ${this.jobTimeoutMs} ms`, 'parse-timeout')), this.jobTimeoutMs);
    thread.timer.unref();
  }

  private answered(thread: Thread, answer: ParseAnswer): void {
    const job = thread.jobs[0];
    if (!job || job.id !== answer.id) return;
    thread.jobs.shift();
    clearTimeout(thread.timer);
    if (thread.jobs.length > 0) this.startDeadline(thread);
    else thread.worker.unref();
    if (answer.ok) {
      thread.parsedBytes += answer.read ?? 0;
      job.resolve({ content: answer.content, ...(answer.key ? { key: answer.key } : {}) });
    } else job.reject(new ParseFailure(answer.error, 'parse-failed'));
    // The thread ends itself after a parser failure (its memory may be in any state).
    if (answer.retiring) {
      void this.end(thread);
      return;
    }
    if (thread.jobs.length === 0) {
      if (thread.parsedBytes >= this.recycleAfterBytes) void this.end(thread);
      else this.idle(thread);
    }
    this.dispatch();
  }

  /**
   * An idle thread ends after idleMs; the last one after LAST_THREAD_IDLE_MS (a save while the
   * user edits finds a thread ready; an idle server gives its memory back).
   */
  private idle(thread: Thread): void {
    clearTimeout(thread.idleTimer);
    const last = this.threads.size <= 1;
    thread.idleTimer = setTimeout(
      () => {
        if (thread.jobs.length === 0) void this.end(thread);
      },
      last ? Math.max(this.idleMs, LAST_THREAD_IDLE_MS) : this.idleMs,
    );
    thread.idleTimer.unref();
  }

  /**
   * Ends a thread. With an error, the job under way fails with it (it is the one that stopped
   * the thread); the jobs sent behind it go back to the queue, as do all of them without one.
   */
  private async end(thread: Thread, error?: Error): Promise<void> {
    if (thread.ended) return;
    thread.ended = true;
    this.threads.delete(thread);
    clearTimeout(thread.timer);
    clearTimeout(thread.idleTimer);
    const jobs = thread.jobs.splice(0);
    // Without an error the thread was retired, not failed: its jobs are all innocent.
    const current = error ? jobs.shift() : undefined;
    if (current) current.reject(error instanceof ParseFailure ? error : new ParseFailure(error?.message ?? 'The parsing thread stopped.', 'parse-failed'));
    if (this.closed) for (const job of jobs) job.reject(new Error('The parser pool closed.'));
    else this.queue.unshift(...jobs);
    await thread.worker.terminate().catch(() => undefined);
    if (!this.closed) this.dispatch();
  }
}
