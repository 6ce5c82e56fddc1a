// One extension's process, seen from the server: started with a message channel and a memory
// limit, talked to in JSON messages, one per line, on its file descriptor 3 (host/host.mjs is the
// other end). Not Node's IPC channel: that one reads a message of any size, and a line that is
// not JSON, which the extension can write to the descriptor itself, throws inside the server.
// Whatever the extension does — a throw, a crash, an endless loop, a memory blow-up of its heap
// or of Buffers, a message without end, garbage on the channel, not reading its own — ends here
// as a rejected promise or a `failed` callback; nothing it sends is trusted, and nothing waiting
// on it waits unbounded.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { LineFramer, type Frame } from '../contracts/framing.ts';
import { localCode } from '../contracts/local-resources.ts';
import { LoomError } from '../core/errors.ts';
import type { LoomEvent } from '../core/events/bus.ts';
import { COMMAND_NAME, type ExtensionManifest } from './manifest.ts';

const HOST_SCRIPT = fileURLToPath(new URL('./host/host.mjs', import.meta.url));
/** Events sent to an extension and not yet handled by it; past this, new ones are dropped for it (a stuck extension must not grow the server). */
const MAX_EVENTS_IN_FLIGHT = 64;
/** Bytes of the extension's stderr kept to tell why it died. */
const STDERR_TAIL = 8 * 1024;
/** How long a process that ran past a command's time limit has to answer a ping before it counts as stuck. */
const PING_GRACE_MS = 2000;
/** The largest message an extension may send (a command's result, an edit's text); past it, it is stopped. */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Bytes sent to an extension and not read by it yet; past this, it is stuck (or refuses to read) and is stopped. */
const MAX_UNREAD_BYTES = 64 * 1024 * 1024;
/** API calls of an extension being answered at once; more are refused (a flood must not grow the server). */
const MAX_CALLS_IN_FLIGHT = 64;
/** After the process exits, how long what it wrote last (a crash's message) may take to arrive. */
const EXIT_DRAIN_MS = 2000;
/** How often the process's memory (its resident set) is compared with its limit. */
const MEMORY_CHECK_MS = 100;
/** The environment an extension gets: enough to run, none of the server's secrets. */
const PASSED_ENV = ['PATH', 'HOME', 'USERPROFILE', 'LANG', 'LC_ALL', 'TMPDIR', 'TMP', 'TEMP', 'SystemRoot', 'TZ'];

export interface ExtensionLimits {
  /** Time a command (and `activate`, with at least 15 s to start a process) may take. */
  commandTimeoutMs: number;
  /**
   * Memory the whole process may use (its resident set: the JavaScript heap, Buffers, native
   * memory), in MB; also its `--max-old-space-size`.
   */
  memoryLimitMb: number;
  /** Time `deactivate` may take before the process is killed. */
  deactivateTimeoutMs: number;
}

/** What the process asks of the server, and tells it. */
export interface ExtensionCallbacks {
  /** An API call of the extension (notify, activeDocument, getText, insert, replace, executeCommand). */
  call(method: string, params: Record<string, unknown>): Promise<unknown>;
  register(command: string): void;
  unregister(command: string): void;
  /** The extension wants (true) or no longer wants (false) events. */
  subscribe(on: boolean): void;
  /** A line the extension printed or a note about it, for the server's log. */
  log(message: string): void;
  /** The process ended or was stopped while it should have been running; `reason` is in words. */
  failed(reason: string): void;
}

type Waiter = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/**
 * Starts, talks to and stops one extension's process.
 *
 * @example
 *   const process = new ExtensionProcess(manifest, { commandTimeoutMs: 10_000, memoryLimitMb: 256, deactivateTimeoutMs: 2000 }, callbacks);
 *   await process.start();
 *   const words = await process.run('wordCount.count', []);
 *   await process.stop();
 */
export class ExtensionProcess {
  private child?: ChildProcess;
  private channel?: Socket;
  private readonly messages = new LineFramer({ maxMessageBytes: MAX_MESSAGE_BYTES, headBytes: 200 });
  private memoryTimer?: NodeJS.Timeout;
  private memoryCheck = false;
  private callsInFlight = 0;
  private running = false;
  private stopping = false;
  private ended = false;
  private exited?: Promise<void>;
  private nextId = 1;
  private readonly runs = new Map<number, Waiter & { timer: NodeJS.Timeout }>();
  private readonly pings = new Map<number, () => void>();
  private startWaiter?: Waiter;
  private deactivateWaiter?: () => void;
  private eventsInFlight = 0;
  private subscribed = false;
  private stderrTail = '';
  private fatalMessage?: string;
  /** Why the server stopped it, when it did (a stuck command): words that follow the extension's name. */
  private killReason?: string;
  /** Why it could not start, when it could not: words that follow the extension's name ("failed to activate: …"). */
  startFailure?: string;
  /** Events the extension did not get because it was behind. */
  droppedEvents = 0;

  constructor(
    private readonly manifest: ExtensionManifest,
    private readonly limits: ExtensionLimits,
    private readonly callbacks: ExtensionCallbacks,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Forks the process and activates the extension; rejects with EXTENSION_FAILED when it cannot (the process is then gone). */
  start(): Promise<void> {
    const env: Record<string, string> = {};
    for (const name of PASSED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name]!;
    // Not the server's own flags (tsx's loader, an inspector): a plain node with a heap limit.
    const child = spawn(process.execPath, [`--max-old-space-size=${this.limits.memoryLimitMb}`, HOST_SCRIPT], {
      cwd: this.manifest.dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.child = child;
    const channel = child.stdio[3] as Socket | null;
    this.channel = channel ?? undefined;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => void this.drained().then(() => resolve(this.onExit(code, signal))));
      // A process that could not be made (its folder gone, no memory) never exits: it ends here, like a crash.
      child.on('error', (error) => {
        this.callbacks.log(`its process failed: ${error.message}`);
        if (child.pid === undefined) {
          this.killReason ??= `could not start its process (${(error as NodeJS.ErrnoException).code ?? error.message})`;
          resolve(this.onExit(null, null));
        }
      });
    });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.output(chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
      this.output(chunk);
    });
    channel?.on('data', (chunk: Buffer) => this.onFrames(this.messages.push(chunk)));
    // Its end is the process's: told by 'exit'. A broken channel is no server error.
    channel?.on('error', (error) => this.callbacks.log(`its message channel failed: ${error.message}`));
    this.memoryTimer = setInterval(() => void this.checkMemory(), MEMORY_CHECK_MS).unref();
    const started = new Promise<void>((resolve, reject) => {
      this.startWaiter = { resolve: () => resolve(), reject };
    });
    this.send({ type: 'start', name: this.manifest.name, dir: this.manifest.dir, main: this.manifest.main });
    const limit = Math.max(this.limits.commandTimeoutMs, 15_000);
    const timer = setTimeout(() => {
      this.killReason = `did not finish activating within ${limit} ms and was stopped`;
      child.kill('SIGKILL');
    }, limit);
    return started.finally(() => clearTimeout(timer));
  }

  /** Runs a command; its JSON result, or EXTENSION_FAILED / EXTENSION_TIMEOUT. */
  run(command: string, args: unknown[]): Promise<unknown> {
    if (!this.running || !this.child) return Promise.reject(new LoomError('extension_failed', `${this.manifest.name} is not running.`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.runs.delete(id);
        reject(
          new LoomError(
            'extension_timeout',
            `${command} (extension ${this.manifest.name}) did not answer within ${this.limits.commandTimeoutMs} ms.`,
            'A command that takes longer should answer at once and report later with showNotification.',
          ),
        );
        void this.checkAlive(command);
      }, this.limits.commandTimeoutMs);
      this.runs.set(id, { resolve, reject, timer });
      if (!this.send({ type: 'run', id, command, args })) {
        clearTimeout(timer);
        this.runs.delete(id);
        reject(new LoomError('extension_failed', `${this.manifest.name} is not running.`));
      }
    });
  }

  /** Passes a server event, unless the extension does not listen or is too far behind. */
  deliver(event: LoomEvent): void {
    if (!this.running || !this.subscribed || !this.connected) return;
    if (this.eventsInFlight >= MAX_EVENTS_IN_FLIGHT) {
      this.droppedEvents++;
      return;
    }
    this.eventsInFlight++;
    this.send({ type: 'event', event });
  }

  /** Deactivates the extension (time-limited), then ends its process. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.exited) return;
    if (this.running && this.connected) {
      this.stopping = true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.limits.deactivateTimeoutMs);
        this.deactivateWaiter = () => {
          clearTimeout(timer);
          resolve();
        };
        this.send({ type: 'deactivate', id: 0 });
      });
    }
    this.stopping = true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.exited;
  }

  /** After a command's time limit: a process that does not even answer a ping is stuck (an endless loop), and is stopped. */
  private async checkAlive(command: string): Promise<void> {
    const child = this.child;
    if (!this.running || !child || !this.connected) return;
    const id = this.nextId++;
    const answered = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.pings.delete(id);
        resolve(false);
      }, PING_GRACE_MS);
      this.pings.set(id, () => {
        clearTimeout(timer);
        resolve(true);
      });
      this.send({ type: 'ping', id });
    });
    if (answered || !this.running) return;
    this.killReason = `stopped answering while running ${command} (an endless loop?) and was stopped`;
    child.kill('SIGKILL');
  }

  /**
   * Resolves once what the process wrote before it exited (its last message, a crash on stderr)
   * has been read: when its channel and stderr end, or after EXIT_DRAIN_MS (a process it started
   * may hold them open).
   */
  private drained(): Promise<void> {
    const open = [this.channel, this.child?.stderr].filter((stream) => stream && !stream.readableEnded && !stream.destroyed);
    let timer: NodeJS.Timeout | undefined;
    const guard = new Promise<void>((resolve) => (timer = setTimeout(resolve, EXIT_DRAIN_MS)));
    const ended = Promise.all(open.map((stream) => new Promise<void>((resolve) => (stream!.once('end', resolve), stream!.once('close', resolve)))));
    return Promise.race([ended.then(() => undefined), guard]).finally(() => clearTimeout(timer));
  }

  /** Whether messages can still be sent (the process is there and its channel open). */
  private get connected(): boolean {
    return this.channel !== undefined && this.channel.writable && !this.channel.destroyed && !this.ended;
  }

  /** Sends a message; false when the channel is closed (the process is gone or going). */
  private send(message: Record<string, unknown>): boolean {
    const channel = this.channel;
    if (!channel || !this.connected) return false;
    if (channel.writableLength > MAX_UNREAD_BYTES) {
      this.stopBecause(`stopped reading its messages (more than ${MAX_UNREAD_BYTES / (1024 * 1024)} MB waiting for it) and was stopped`);
      return false;
    }
    // With a callback, a failed write is an argument, never an 'error' event nobody handles.
    channel.write(`${JSON.stringify(message)}\n`, (error) => {
      if (error) this.callbacks.log(`a message to it was lost: ${error.message}`);
    });
    return true;
  }

  /** Ends the process for something it did; `reason` follows its name in what the user reads. */
  private stopBecause(reason: string): void {
    if (this.ended) return;
    this.killReason ??= reason;
    this.child?.kill('SIGKILL');
  }

  /** What arrived on the channel: messages, or one past the limit (the extension is stopped). */
  private onFrames(frames: Frame[]): void {
    for (const frame of frames) {
      if (frame.kind !== 'message') {
        this.stopBecause(`sent a message of more than ${MAX_MESSAGE_BYTES / (1024 * 1024)} MB and was stopped`);
        return;
      }
      let message: unknown;
      try {
        message = JSON.parse(frame.text);
      } catch {
        // Only the extension's own code writing to the channel can do this.
        this.stopBecause('wrote something that is not a message on its channel and was stopped');
        return;
      }
      this.onMessage(message);
    }
  }

  /**
   * Compares the process's resident set with its limit, and stops it when it is over: the heap
   * limit alone misses Buffers and native memory. Read from /proc where there is one (Linux);
   * elsewhere the host reports it (process.memoryUsage.rss()).
   */
  private async checkMemory(): Promise<void> {
    const pid = this.child?.pid;
    if (this.memoryCheck || this.ended || pid === undefined) return;
    this.memoryCheck = true;
    try {
      const status = await fs.promises.readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
      const kb = status === undefined ? undefined : /^VmRSS:\s*(\d+)\s*kB/m.exec(status)?.[1];
      if (kb !== undefined) this.onMemory(Number(kb) * 1024);
      else if (status === undefined && this.running) this.send({ type: 'memory', id: 0 });
    } finally {
      this.memoryCheck = false;
    }
  }

  private onMemory(rss: number): void {
    if (rss > this.limits.memoryLimitMb * 1024 * 1024) this.stopBecause(outOfMemory(this.limits.memoryLimitMb));
  }

  private output(chunk: string): void {
    for (const line of chunk.split('\n')) if (line.trim()) this.callbacks.log(line.slice(0, 2000));
  }

  private onMessage(message: unknown): void {
    if (typeof message !== 'object' || message === null) return;
    const m = message as Record<string, unknown>;
    switch (m.type) {
      case 'ready':
        this.running = true;
        this.startWaiter?.resolve(undefined);
        this.startWaiter = undefined;
        return;
      case 'failed':
        this.killReason = `failed to activate: ${text(m.message)}`;
        this.startFailure = this.killReason;
        this.startWaiter?.reject(new LoomError('extension_failed', `${this.manifest.name} ${this.startFailure}.`));
        this.startWaiter = undefined;
        this.child?.kill('SIGKILL');
        return;
      case 'result': {
        const waiter = typeof m.id === 'number' ? this.runs.get(m.id) : undefined;
        if (!waiter) return;
        this.runs.delete(m.id as number);
        clearTimeout(waiter.timer);
        if (m.ok === true) waiter.resolve(m.value ?? null);
        else waiter.reject(new LoomError('extension_failed', `${this.manifest.name} threw: ${text((m.error as { message?: unknown } | undefined)?.message)}`));
        return;
      }
      case 'call':
        if (typeof m.id === 'number' && typeof m.method === 'string') void this.answerCall(m.id, m.method, m.params);
        return;
      case 'memory':
        if (typeof m.rss === 'number') this.onMemory(m.rss);
        return;
      case 'register':
      case 'unregister':
        if (typeof m.command === 'string' && COMMAND_NAME.test(m.command)) this.callbacks[m.type](m.command);
        return;
      case 'subscribe':
      case 'unsubscribe':
        this.subscribed = m.type === 'subscribe';
        this.callbacks.subscribe(this.subscribed);
        return;
      case 'event-done':
        this.eventsInFlight = Math.max(0, this.eventsInFlight - 1);
        return;
      case 'pong':
        if (typeof m.id === 'number') this.pings.get(m.id)?.();
        return;
      case 'deactivated':
        if (typeof m.error === 'string') this.callbacks.log(`deactivate threw: ${text(m.error)}`);
        this.deactivateWaiter?.();
        return;
      case 'fatal':
        this.fatalMessage = text(m.message);
        return;
      case 'log':
        this.callbacks.log(text(m.message));
        return;
    }
  }

  private async answerCall(id: number, method: string, params: unknown): Promise<void> {
    if (this.callsInFlight >= MAX_CALLS_IN_FLIGHT) {
      const message = `At most ${MAX_CALLS_IN_FLIGHT} calls of the extension API are answered at once; this one was refused.`;
      this.send({ type: 'reply', id, ok: false, error: { code: localCode('rate_limited'), message } });
      return;
    }
    this.callsInFlight++;
    let reply: Record<string, unknown>;
    try {
      const value = await this.callbacks.call(method, typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {});
      reply = { type: 'reply', id, ok: true, value: value ?? null };
    } catch (error) {
      // The local API's codes, as its routes answer them (RATE_LIMIT_EXCEEDED, PROTECTED_PATH, …).
      const code = error instanceof LoomError ? localCode(error.code) : 'INTERNAL_ERROR';
      const message = error instanceof LoomError ? error.message : 'The server failed to do it; see its log.';
      if (!(error instanceof LoomError)) this.callbacks.log(`an API call (${method}) failed inside the server: ${(error as Error).message}`);
      reply = { type: 'reply', id, ok: false, error: { code, message } };
    } finally {
      this.callsInFlight--;
    }
    this.send(reply);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    // A failed spawn may be told twice ('error', then 'exit').
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.memoryTimer);
    this.channel?.destroy();
    const wasRunning = this.running;
    const expected = this.stopping;
    this.running = false;
    const reason = this.exitReason(code, signal);
    const failure = new LoomError('extension_failed', `${this.manifest.name} ${reason}.`, `Restart it: loom extension restart ${this.manifest.name}`);
    for (const [id, waiter] of this.runs) {
      clearTimeout(waiter.timer);
      waiter.reject(failure);
      this.runs.delete(id);
    }
    for (const resolve of this.pings.values()) resolve();
    this.pings.clear();
    this.deactivateWaiter?.();
    if (this.startWaiter) {
      this.startFailure = this.killReason ?? `could not start: it ${reason}`;
      this.startWaiter.reject(new LoomError('extension_failed', `${this.manifest.name} ${this.startFailure}.`));
      this.startWaiter = undefined;
      return;
    }
    if (wasRunning && !expected) this.callbacks.failed(reason);
  }

  private exitReason(code: number | null, signal: NodeJS.Signals | null): string {
    if (this.killReason) return this.killReason;
    if (/heap out of memory|Reached heap limit|Allocation failed/i.test(this.stderrTail)) return outOfMemory(this.limits.memoryLimitMb);
    if (this.fatalMessage) return `crashed: ${this.fatalMessage}`;
    if (signal) return `was killed (${signal})`;
    return `exited (code ${code})`;
  }
}

function outOfMemory(limitMb: number): string {
  return `ran out of memory (its limit is ${limitMb} MB) and was stopped`;
}

function text(value: unknown): string {
  return (typeof value === 'string' ? value : 'no message').slice(0, 2000);
}
