// Download progress on stderr: a bar on a terminal (cli-progress), plain lines elsewhere, so a
// log or a pipe gets a readable record and stdout stays the command's answer.
import cliProgress from 'cli-progress';
import type { DownloadProgress } from '../core/models/download.ts';
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
