// What every `loom code …` command does first: open the workspace's code index in the data dir
// (no server needed) and bring it up to date on the spot, with a progress bar on a terminal;
// Ctrl-C stops the build (what was indexed is kept). Loaded by the commands' actions only.
import type { Command } from 'commander';
import type { BuildSummary } from '../core/code/model.ts';
import type { CodeIntel } from '../core/code/service.ts';
import { CliError } from './errors.ts';
import { EXIT } from './exit-codes.ts';
import { configFromOptions } from './options.ts';

/** The settings every `loom code` command takes as flags. */
export const CODE_SETTINGS = ['workspace', 'dataDir'] as const;

/**
 * Runs `work` with the workspace's index, up to date, then closes it.
 *
 * @example await withCodeIndex(command, async (index) => printJson(await index.findFiles('app')));
 */
export async function withCodeIndex<T>(command: Command, work: (index: CodeIntel, build: BuildSummary) => Promise<T>): Promise<T> {
  const config = configFromOptions(command);
  const [{ openCodeIntel }, { indexProgressReporter }, { requireFolder }] = await Promise.all([
    import('../compose/code-intel.ts'),
    import('./progress.ts'),
    import('../config/folders.ts'),
  ]);
  requireFolder(config.local.workspace, 'The workspace', 'workspace');
  const code = openCodeIntel({ workspace: config.local.workspace, dataDir: config.dataDir, settings: config.codeIndex, foreground: true });
  const progress = indexProgressReporter();
  const stopProgress = code.index.onProgress((report) => progress.update(report));
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    let build: BuildSummary;
    try {
      build = await code.index.refresh({ signal: controller.signal });
    } catch (error) {
      if (controller.signal.aborted)
        throw new CliError('indexing interrupted; what was indexed is kept, and the next run goes on from there.', EXIT.interrupted);
      throw error;
    } finally {
      progress.stop();
      stopProgress();
    }
    return await work(code.index, build);
  } finally {
    process.removeListener('SIGINT', interrupt);
    process.removeListener('SIGTERM', interrupt);
    await code.close();
  }
}
