// Progress on stderr, so stdout stays the command's answer: a download's as a bar on a terminal
// (cli-progress) and plain lines elsewhere, so a log or a pipe gets a readable record; a code
// index build's as a bar on a terminal only.
import cliProgress from 'cli-progress';
import type { IndexProgress } from '../core/code/model.ts';
import type { DownloadProgress } from '../adapters/models/download.ts';
import { formatBytes, oneLine, printErr } from './output.ts';

export interface ProgressReporter {
  update(progress: DownloadProgress): void;
  stop(): void;
}

/** A bar on a terminal; on anything else a line at the start, on resume and every 10 %. */
export function progressReporter(catalogName: string, catalogUrl: string): ProgressReporter {
  const name = oneLine(catalogName);
  const url = oneLine(catalogUrl);
  let bar: cliProgress.SingleBar | undefined;
  let started = false;
  let lastStep = -1;
  let lastLoggedBytes = 0;
  let startedAt = 0;
  let startBytes = 0;
  const tty = Boolean(process.stderr.isTTY);
  return {
    update({ done, total, resumedFrom }) {
      if (!started) {
        started = true;
        printErr(`Downloading ${name} from ${url}\n`);
        if (resumedFrom > 0) printErr(`Resuming at ${formatBytes(resumedFrom)}${total ? ` of ${formatBytes(total)}` : ''}\n`);
        if (tty && total) {
          bar = new cliProgress.SingleBar(
            {
              format: '{bar} {percentage}% | {done} of {all} | {speed} | ETA {eta_formatted}',
              // The bar shows figures only; nothing in it came from outside.
              stream: process.stderr,
              hideCursor: true,
              barsize: 30,
              etaBuffer: 50,
              fps: 5,
            },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, done, { done: formatBytes(done), all: formatBytes(total), speed: '' });
        }
        startedAt = Date.now();
        startBytes = done;
      }
      if (bar) {
        const seconds = (Date.now() - startedAt) / 1000;
        const speed = seconds > 0.5 ? `${formatBytes((done - startBytes) / seconds)}/s` : '';
        bar.update(done, { done: formatBytes(done), all: formatBytes(total ?? done), speed });
        return;
      }
      if (total) {
        const step = Math.floor((done / total) * 10);
        if (step > lastStep) {
          if (lastStep >= 0 || step > 0) printErr(`${name}: ${step * 10}% (${formatBytes(done)} of ${formatBytes(total)})\n`);
          lastStep = step;
        }
      } else if (done - lastLoggedBytes >= 64 * 1024 * 1024) {
        lastLoggedBytes = done;
        printErr(`${name}: ${formatBytes(done)}\n`);
      }
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}

/** Reports a code index build: a bar on a terminal, nothing elsewhere (the command prints its summary). */
export interface IndexProgressReporter {
  update(progress: IndexProgress): void;
  stop(): void;
}

/**
 * A bar of files done out of files found, on a terminal only, drawn once a build has run for
 * `afterMs` (an index that is already current shows nothing).
 */
export function indexProgressReporter(afterMs = 300): IndexProgressReporter {
  let bar: cliProgress.SingleBar | undefined;
  const startedAt = Date.now();
  const tty = Boolean(process.stderr.isTTY);
  return {
    update(progress) {
      if (!tty || progress.phase === 'done' || progress.phase === 'failed') return;
      if (!bar) {
        if (Date.now() - startedAt < afterMs) return;
        bar = new cliProgress.SingleBar(
          {
            format: 'Indexing {bar} {value}/{total} files | {parsed} parsed | {size}',
            stream: process.stderr,
            hideCursor: true,
            barsize: 30,
            fps: 5,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(Math.max(progress.files, 1), progress.done, { parsed: progress.parsed, size: formatBytes(progress.bytes) });
      }
      // The total grows while the walk goes on.
      bar.setTotal(Math.max(progress.files, 1));
      bar.update(progress.done, { parsed: progress.parsed, size: formatBytes(progress.bytes) });
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
