// Where the servers' log lines go: stdout by default, written asynchronously and in batches so
// that logging costs a busy server little and never makes it wait for a terminal, pipe or disk.
import fs from 'node:fs';
import pino from 'pino';

/** Where a server writes its log lines (JSON, one or more whole lines per `write`). */
export interface LogDestination {
  write(line: string): void;
}

/** Lines are copied into a buffer of this size and handed on when it is full… */
const BATCH_BYTES = 64 * 1024;
/** …or when the first of them has waited this long. */
const BATCH_MS = 100;
/** What may wait for a slow reader (a full pipe) before lines are dropped rather than memory grown. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** At exit, how long the last batch may wait for a reader whose pipe is full. */
const EXIT_WRITE_LIMIT_MS = 10_000;

/**
 * A file descriptor or file written asynchronously and in batches. Each line is copied at once
 * into a 64 KB buffer outside the JavaScript heap (so the line's string dies young and costs the
 * garbage collector little); the buffer is handed to pino's writer (sonic-boom) when full or
 * 100 ms after its first line, and sonic-boom writes it in the background, joining what arrives
 * while a write is under way. Each write is a hand-off to another thread, so a busy server makes
 * a few per second rather than one per request, and never waits for the terminal, pipe or disk.
 */
export class AsyncLogDestination implements LogDestination {
  private buffer = Buffer.allocUnsafe(BATCH_BYTES);
  private used = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly fd: number;
  private readonly writer: { write(data: Buffer): void; flush(callback: (error?: Error) => void): void; flushSync(): void };

  constructor(dest: number | string) {
    this.fd = typeof dest === 'number' ? dest : fs.openSync(dest, 'a');
    // minLength 1, not 0: sonic-boom's flush(cb) waits for queued writes only when minLength > 0.
    // Every line is longer than one byte, so nothing is ever held back.
    const writer = pino.destination({ fd: this.fd, sync: false, minLength: 1, maxLength: MAX_QUEUED_BYTES, contentMode: 'buffer' });
    // In buffer mode sonic-boom's write takes Buffers, which its types do not say.
    this.writer = writer as unknown as AsyncLogDestination['writer'];
    process.once('exit', this.writeAtExit);
  }

  write(line: string): void {
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    const room = this.buffer.length - this.used;
    if (line.length * 3 > room) {
      this.release();
      if (line.length * 3 > this.buffer.length) {
        this.writer.write(Buffer.from(line));
        return;
      }
    }
    this.used += this.buffer.write(line, this.used);
    // The timer keeps the process alive until the batch is out (at most BATCH_MS).
    this.timer ??= setTimeout(this.release, BATCH_MS);
  }

  /** Resolves once every line given so far has been written. */
  flush(): Promise<void> {
    this.release();
    return new Promise((resolve) => {
      try {
        // fsync of a pipe or terminal fails after the data was written: either outcome means done.
        this.writer.flush(() => resolve());
      } catch {
        resolve(); // the writer is gone (its reader closed the pipe): nothing more can be written
      }
    });
  }

  private readonly release = (): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.used === 0) return;
    const batch = this.buffer.subarray(0, this.used);
    this.buffer = Buffer.allocUnsafe(BATCH_BYTES);
    this.used = 0;
    this.writer.write(batch);
  };

  /**
   * At exit no event loop is left to write for us: pino has written the writer's queue
   * synchronously by now (it registers first), so the batch still waiting follows it. A pipe
   * whose reader is behind is full and, non-blocking, refuses the write (EAGAIN): the batch
   * waits for room, as sonic-boom's own flushSync does, for a bounded time.
   */
  private readonly writeAtExit = (): void => {
    const batch = this.buffer.subarray(0, this.used);
    this.used = 0;
    try {
      this.writer.flushSync();
      const deadline = Date.now() + EXIT_WRITE_LIMIT_MS;
      for (let written = 0; written < batch.length;) {
        try {
          written += fs.writeSync(this.fd, batch, written);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > deadline) throw error;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        }
      }
    } catch {
      // Nothing left to report it to: stdout is closed, or full past the time limit.
    }
  };
}

let stdout: AsyncLogDestination | undefined;

/** Stdout, shared by every server in the process (`loom up` runs two). */
export function stdoutLog(): AsyncLogDestination {
  stdout ??= new AsyncLogDestination(1);
  return stdout;
}

/**
 * Resolves once every line given to `destination` (stdout when undefined, if it was ever used)
 * has been written: a server's close waits for it.
 */
export async function flushLog(destination: LogDestination | undefined = stdout): Promise<void> {
  if (destination instanceof AsyncLogDestination) await destination.flush();
}
