// `loom models list|pull`: the catalog's open-source models and their GGUF files in the models
// folder (LOOM_MODELS_DIR, default `models` in the data dir), where the gguf provider finds them
// by name.
import fs from 'node:fs';
import { Command } from 'commander';
import { LOOM_VERSION } from '../../config/version.ts';
import type { ModelLibrary } from '../../adapters/models/library.ts';
import { CliError, cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { formatBytes, formatTable, oneLine, print, printJson, printProblem } from '../output.ts';

const SETTINGS = ['dataDir', 'modelsDir', 'catalog'] as const;

export function modelsCommand(): Command {
  const models = new Command('models').description('open-source models for the gguf provider: list them, download and remove their GGUF files');

  const list = new Command('list')
    .description('list the catalog models, their GGUF file and whether it is installed')
    .option('--json', 'print JSON (one array) instead of a table');
  addSettingOptions(list, SETTINGS).action(
    cliAction(async (options: { json?: boolean }, command: Command) => {
      const library = await libraryFor(command);
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
    .option('--no-verify', 'accept the file without checking its sha256 and size against the catalog')
    .option('--json', 'print {name, path, size, sha256, verified, downloaded}');
  addSettingOptions(pull, SETTINGS).action(
    cliAction(async (name: string, options: { force?: boolean; verify: boolean; json?: boolean }, command: Command) => {
      const library = await libraryFor(command);
      const model = library.find(name);
      if (!model) {
        const known = library.models.map((m) => m.name).join(', ') || '(none)';
        throw new CliError(`unknown model "${name}". Known models: ${known}`);
      }
      const [{ DownloadError, downloadFile, partialPathOf }, { progressReporter }] = await Promise.all([
        import('../../adapters/models/download.ts'),
        import('../progress.ts'),
      ]);
      const status = library.status(model);
      if (!model.file || !status.path) throw new CliError(`the catalog gives no GGUF file for ${model.name}, so there is nothing to download.`);
      if (status.installed && !options.force) {
        if (options.json)
          printJson({ name: model.name, path: status.path, size: status.size ?? null, sha256: model.file.sha256 ?? null, verified: false, downloaded: false });
        else print(`${oneLine(model.name)} is already installed: ${oneLine(status.path)}\n`);
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
        if (options.json)
          printJson({ name: model.name, path: result.path, size: result.size, sha256: result.sha256, verified: options.verify, downloaded: true });
        else print(`Installed ${oneLine(model.name)} (${formatBytes(result.size)}, ${checked}): ${oneLine(result.path)}\n`);
      } catch (error) {
        progress.stop();
        if (error === interrupted) {
          printProblem(`download of ${model.name} interrupted; run the same command again to resume it.`);
          process.exitCode = EXIT.interrupted;
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

  const rm = new Command('rm')
    .description("delete a model's GGUF file from the models folder (and what an interrupted download left)")
    .argument('<name>', 'the model name as `loom models list` shows it (any case)')
    .option('--json', 'print {name, path, removed}: removed is false when it was not installed');
  addSettingOptions(rm, SETTINGS).action(
    cliAction(async (name: string, options: { json?: boolean }, command: Command) => {
      const library = await libraryFor(command);
      const model = library.find(name);
      if (!model) throw new CliError(`unknown model "${name}". Known models: ${library.models.map((m) => m.name).join(', ') || '(none)'}`);
      const { path } = library.status(model);
      if (!path) throw new CliError(`the catalog gives no GGUF file for ${model.name}: there is nothing to remove.`);
      const { partialPathOf } = await import('../../adapters/models/download.ts');
      const removed = fs.existsSync(path);
      fs.rmSync(path, { force: true });
      fs.rmSync(partialPathOf(path), { force: true });
      if (options.json) printJson({ name: model.name, path, removed });
      else print(removed ? `Removed ${oneLine(model.name)}: ${oneLine(path)}\n` : `${oneLine(model.name)} is not installed.\n`);
    }),
  );

  return models.addCommand(list).addCommand(pull).addCommand(rm);
}

async function libraryFor(command: Command): Promise<ModelLibrary> {
  const config = configFromOptions(command);
  const [{ loadCatalog }, { ModelLibrary }] = await Promise.all([import('../../core/catalog/load.ts'), import('../../adapters/models/library.ts')]);
  return new ModelLibrary(loadCatalog(config.catalog), config.modelsDir);
}
