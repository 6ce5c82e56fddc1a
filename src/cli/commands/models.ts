// `loom models list|pull`: the catalog's open-source models and their GGUF files in the models
// folder (LOOM_MODELS_DIR, default `models` in the data dir), where the gguf provider finds them
// by name.
import fs from 'node:fs';
import cliProgress from 'cli-progress';
import { Command } from 'commander';
import { LOOM_VERSION } from '../../config/version.ts';
import { loadCatalog } from '../../core/catalog/load.ts';
import { DownloadError, downloadFile, partialPathOf, type DownloadProgress } from '../../core/models/download.ts';
import { ModelLibrary } from '../../core/models/library.ts';
import { CliError, cliAction } from '../errors.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { formatTable, oneLine, print, printErr, printJson, printProblem } from '../output.ts';

const SETTINGS = ['dataDir', 'modelsDir', 'catalog'] as const;

export function modelsCommand(): Command {
  const models = new Command('models').description('open-source models for the gguf provider: list them, download their GGUF files');

  const list = new Command('list')
    .description('list the catalog models, their GGUF file and whether it is installed')
    .option('--json', 'print JSON (one array) instead of a table');
  addSettingOptions(list, SETTINGS).action(
    cliAction(async (options: { json?: boolean }, command: Command) => {
      const library = libraryFor(command);
      const rows = library.list();
      if (options.json) {
        const entries = rows.map(({ model, path, installed, size }) => ({
          name: model.name,
          provider: model.provider,
          params: model.params,
          quantization: model.file?.quantization ?? null,
          size: size ?? null,
          sha256: model.file?.sha256 ?? null,
          installed,
          path: path ?? null,
          downloadUrl: model.file?.url ?? null,
        }));
        printJson(entries);
        return;
      }
      if (rows.length === 0) {
        print('The catalog lists no models.\n');
        return;
      }
      // A catalog may come from anywhere (--catalog): formatTable escapes every cell.
      const table = formatTable([
        ['NAME', 'PARAMS', 'QUANT', 'SIZE', 'INSTALLED', 'PATH'],
        ...rows.map(({ model, path, installed, size }) => [
          model.name,
          model.params,
          model.file?.quantization ?? '-',
          size !== undefined ? formatBytes(size) : '-',
          installed ? 'yes' : 'no',
          path ?? '(no download in the catalog)',
        ]),
      ]);
      print(`${table}\n\nModels folder: ${oneLine(library.modelsDir)}\n`);
    }),
  );

  const pull = new Command('pull')
    .description("download a catalog model's GGUF file into the models folder (resumes an interrupted download)")
    .argument('<name>', 'the model name as `loom models list` shows it (any case)')
    .option('--force', 'download again even when the model is installed')
    .option('--no-verify', 'accept the file without checking its sha256 and size against the catalog');
  addSettingOptions(pull, SETTINGS).action(
    cliAction(async (name: string, options: { force?: boolean; verify: boolean }, command: Command) => {
      const library = libraryFor(command);
      const model = library.find(name);
      if (!model) {
        const known = library.models.map((m) => m.name).join(', ') || '(none)';
        throw new CliError(`unknown model "${name}". Known models: ${known}`);
      }
      const status = library.status(model);
      if (!model.file || !status.path) throw new CliError(`the catalog gives no GGUF file for ${model.name}, so there is nothing to download.`);
      if (status.installed && !options.force) {
        print(`${oneLine(model.name)} is already installed: ${oneLine(status.path)}\n`);
        return;
      }
      if (!model.file.sha256 && options.verify) {
        throw new CliError(
          `the catalog gives no sha256 for ${model.name}, so its download cannot be verified. Run again with --no-verify to download it unchecked.`,
        );
      }
      if (options.force) fs.rmSync(partialPathOf(status.path), { force: true });

      const controller = new AbortController();
      const interrupted = new Error('interrupted');
      const onSigint = () => controller.abort(interrupted);
      process.once('SIGINT', onSigint);
      process.once('SIGTERM', onSigint);
      const progress = progressReporter(model.name, model.file.url);
      try {
        const result = await downloadFile({
          url: model.file.url,
          dest: status.path,
          sha256: options.verify ? model.file.sha256 : undefined,
          size: options.verify ? model.file.size : undefined,
          signal: controller.signal,
          onProgress: progress.update,
          headers: { 'user-agent': `loom/${LOOM_VERSION}` },
        });
        progress.stop();
        const checked = options.verify ? 'sha256 verified' : `sha256 ${result.sha256}, not checked`;
        print(`Installed ${oneLine(model.name)} (${formatBytes(result.size)}, ${checked}): ${oneLine(result.path)}\n`);
      } catch (error) {
        progress.stop();
        if (error === interrupted) {
          printProblem(`download of ${model.name} interrupted; run the same command again to resume it.`);
          process.exitCode = 130;
          return;
        }
        if (error instanceof DownloadError) {
          const kept = fs.statSync(partialPathOf(status.path), { throwIfNoEntry: false })?.size ?? 0;
          const resume = kept > 0 ? ` The ${formatBytes(kept)} that arrived are kept: run the same command again to resume.` : '';
          throw new CliError(`${error.message}${resume}`);
        }
        throw error;
      } finally {
        process.removeListener('SIGINT', onSigint);
        process.removeListener('SIGTERM', onSigint);
      }
    }),
  );

  return models.addCommand(list).addCommand(pull);
}

function libraryFor(command: Command): ModelLibrary {
  const config = configFromOptions(command);
  return new ModelLibrary(loadCatalog(config.catalog), config.modelsDir);
}

interface ProgressReporter {
  update(progress: DownloadProgress): void;
  stop(): void;
}

/** A bar on a terminal; on anything else a line at the start, on resume and every 10 %. */
function progressReporter(catalogName: string, catalogUrl: string): ProgressReporter {
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
/** Binary units with one decimal: 1536 → "1.5 KB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[unit]}`;
}
