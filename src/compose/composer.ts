// Builds what runs composer sessions from the configuration: the runner (store, the chat
// providers, the data dir's clones, run by git in src/adapters/git/clones.ts), and, for `loom hosted` without Redis, the in-process
// queue fed by the store's recovery scan. `loom worker` builds the runner here too and hands
// it the BullMQ queue's jobs.
import path from 'node:path';
import { loomFolders } from '../config/folders.ts';
import type { LoomConfig } from '../config/load.ts';
import { explainSettings, settingFiles } from '../config/setting-places.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { loadCatalog } from '../core/catalog/load.ts';
import { BuiltinModel, BuiltinProvider } from '../core/completion/builtin/index.ts';
import type { ChatProvider } from '../core/completion/chat.ts';
import { recoverJobs, type Recovery } from '../core/composer/recovery.ts';
import { ComposerRunner } from '../core/composer/runner.ts';
import { checkLocalRepository, GitWorkspaceClones } from '../adapters/git/clones.ts';
import { folderWorkspace, type DefaultWorkspace } from '../core/composer/default-workspace.ts';
import { InProcessQueue } from '../core/jobs/in-process.ts';
import { enqueueOnly } from './bull-queue.ts';
import type { Job, JobHandler, JobQueue } from '../core/jobs/queue.ts';
import { openStore, type Store } from '../store/index.ts';
import type { ComposerWorkspaceRepository } from '../core/composer/records.ts';
import { agentIntel } from './agent-intel.ts';
import { sessionCodeIndexes } from './code-intel.ts';
import { createProviderSet } from './completion.ts';
import { createScratchLanguageService } from './language-servers.ts';
import { ResourceStack } from './resources.ts';

/** The folder of composer's scratch copies, clones and worktrees: `<dataDir>/composer`. */
export function composerFolder(config: LoomConfig): string {
  return path.join(config.dataDir, 'composer');
}

/**
 * The folder `folder` as the server's default composer workspace (`loom up`), checked by git
 * before each session: core/composer/default-workspace.ts.
 *
 * @example const home = composerFolderWorkspace(config.local.workspace);
 */
export function composerFolderWorkspace(folder: string): DefaultWorkspace {
  return folderWorkspace(folder, { checkRepository: (candidate) => checkLocalRepository(candidate) });
}

export interface ComposerRunnerSetup {
  store: Store;
  /** The chat models; built from `config.completion` when absent. */
  providers?: { selectChat(model?: string): ChatProvider & { name: string } };
  /** The workspaces sessions run on; the store's when absent (`loom up` adds its folder: core/composer/default-workspace.ts). */
  workspaces?: ComposerWorkspaceRepository;
  clock?: Clock;
  /** The runner's name in claims (tests name their runners). */
  runnerId?: string;
}

/**
 * A runner of composer sessions over `setup.store`, with the configuration's budgets, lease and
 * per-user limit.
 *
 * @example
 * const runner = createComposerRunner(config, { store });
 * queue.process((job, signal) => runner.run(job.id, signal), { concurrency: config.composer.concurrency });
 */
export function createComposerRunner(config: LoomConfig, setup: ComposerRunnerSetup): ComposerRunner {
  const providers =
    setup.providers ??
    createProviderSet(
      {
        builtin: new BuiltinProvider(new BuiltinModel()),
        catalog: loadCatalog(config.catalog),
        modelsDir: config.modelsDir,
        explain: explainSettings(settingFiles(config, { hosted: true })),
      },
      config.completion,
    );
  return new ComposerRunner({
    sessions: setup.store.composerSessions,
    workspaces: setup.workspaces ?? setup.store.composerWorkspaces,
    providers,
    folder: composerFolder(config),
    clones: new GitWorkspaceClones({ folder: composerFolder(config) }),
    // Each session's copy is indexed, so that the agents' code tools work there.
    codeIndex: sessionCodeIndexes(composerFolder(config), config.codeIndex),
    // The agents' code tools and first-turn map over the copy's index, and its edits checked by
    // language servers started restricted (the copy is untrusted code on a server).
    codeIntel: async ({ folder, index }) => {
      if (!index) return undefined;
      if (!config.composer.languageServers || !config.languageServers.enabled) return { intel: agentIntel({ index }), close: async () => {} };
      const scratch = createScratchLanguageService({
        folder,
        dataDir: config.dataDir,
        settings: config.languageServers,
        loomFolders: loomFolders(config),
        clock: setup.clock ?? systemClock,
      });
      return { intel: agentIntel({ index, languages: scratch.languages, diagnosticsWaitMs: config.languageServers.requestTimeoutMs }), close: scratch.close };
    },
    loomFolders: loomFolders(config),
    leaseMs: config.composer.leaseSeconds * 1000,
    maxRunningPerUser: () => config.composer.maxRunningPerUser,
    contextTokens: { map: config.agents.mapTokens, rules: config.agents.rulesTokens },
    ...(setup.clock ? { clock: setup.clock } : {}),
    ...(setup.runnerId ? { runnerId: setup.runnerId } : {}),
  });
}

/** A runner with the store it opened: what `loom worker` needs. Close it to close the store. */
export interface OpenedComposerRunner {
  runner: ComposerRunner;
  store: Store;
  close(): Promise<void>;
}

/**
 * Opens the store the configuration names and builds a runner over it.
 *
 * @example
 * const { runner, close } = await openComposerRunner(loadConfig({ env: process.env }));
 * queue.process((job, signal) => runner.run(job.id, signal), { concurrency: config.composer.concurrency });
 * // on SIGTERM: await queue.close({ graceMs: 30_000 }); await close();
 */
export async function openComposerRunner(config: LoomConfig, options: { clock?: Clock; runnerId?: string } = {}): Promise<OpenedComposerRunner> {
  const resources = new ResourceStack();
  return resources.unwindOnFailure(async () => {
    const store = resources.push(await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
    const runner = createComposerRunner(config, { store, ...options });
    return { runner, store, close: () => resources.close() };
  });
}

/**
 * The job handler of a process that runs sessions (`loom hosted` without Redis, each `loom
 * worker`): runs the session, then, if it ran here (its user has a slot free again), scans for
 * one the per-user limit held back. Never after a refused claim: that scan would find the same
 * held-back session, enqueue it, be refused again and go round without end (on SQLite, without
 * ever letting the event loop answer a request).
 *
 * @example
 * queue.process(runSessions(runner, recovery), { concurrency: config.composer.concurrency });
 */
export function runSessions(runner: Pick<ComposerRunner, 'run'>, recovery: Pick<Recovery, 'scan'>, onDelivery?: (job: Job) => void): JobHandler {
  return async (job, signal) => {
    onDelivery?.(job);
    if (await runner.run(job.id, signal)) void recovery.scan();
  };
}

/** The queue and what feeds it, as `loom hosted` runs them. */
export interface ComposerJobs {
  queue: JobQueue;
  /** The runner, when this process runs sessions (the in-process queue); absent when workers do. */
  runner?: ComposerRunner;
  /** Scans the store for sessions to run (after one ends, or to pick up a lapsed lease). */
  recovery?: Recovery;
  /** Stops taking sessions; running ones are handed back (queued again) if they do not end within the grace. */
  close(): Promise<void>;
}

/**
 * The job queue `loom hosted` enqueues sessions on. Without Redis: the in-process queue, run
 * here by a runner at `composer.concurrency`, fed by a scan of the store on start and every
 * few seconds (a session acknowledged before a crash runs after the restart). With
 * `redisUrl`, BullMQ is the queue and `loom worker` processes run sessions; hosted processes
 * only enqueue — that queue plugs in here (src/worker/).
 *
 * @example
 * const jobs = startComposerJobs(config, { store, providers: engine.providers });
 * await jobs.queue.enqueue({ kind: 'composer', id });
 */
export function startComposerJobs(config: LoomConfig, setup: ComposerRunnerSetup & { onError?: (error: unknown) => void }): ComposerJobs {
  if (config.redisUrl) return enqueueOnly(config, setup.onError);
  const clock = setup.clock ?? systemClock;
  const runner = createComposerRunner(config, setup);
  const queue = new InProcessQueue();
  queue.onError = (error) => setup.onError?.(error);
  const recovery = recoverJobs(setup.store.composerSessions, queue, {
    intervalMs: Math.min(5_000, (config.composer.leaseSeconds * 1000) / 3),
    now: () => clock.now(),
    ...(setup.onError ? { onError: setup.onError } : {}),
  });
  queue.process(runSessions(runner, recovery), { concurrency: config.composer.concurrency });
  return {
    queue,
    runner,
    recovery,
    close: async () => {
      recovery.stop();
      await queue.close({ graceMs: 0 });
    },
  };
}
