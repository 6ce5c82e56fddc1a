// The workspace's repository: status, branches, a file's diff against HEAD, staging, making and
// switching branches, commit, push and pull. A commit emits git:commit (queued for webhooks
// before the answer) with the commit as its data; push and pull say how far they got in
// git:progress events (live only, a few a second) and stop git when the client goes away.
import { MAX_DIFF_SIDE_BYTES, type GitFileSide } from '../../contracts/local-resources.ts';
import type { EventBus } from '../../core/events/bus.ts';
import { fileSide, parseProgress, ProgressGate } from '../../core/git/index.ts';
import { fileSystemError } from '../../core/files/fs-errors.ts';
import { readRegularFile } from '../../core/files/read-regular.ts';
import type { WorkspacePaths } from '../../core/workspace/paths.ts';
import type { LocalHandlersOf, LocalServices } from './index.ts';

/** At most one git:progress event per this many milliseconds (a phase's start and end may come sooner). */
const PROGRESS_INTERVAL_MS = 200;

export function gitHandlers({ git, events, paths }: LocalServices): LocalHandlersOf<'Git'> {
  /**
   * Runs a push or a pull with its progress relayed as git:progress events. The rate is
   * measured on the monotonic clock: it bounds real time, whatever the services' clock says.
   */
  const withProgress = async <T>(operation: 'push' | 'pull', run: (onProgress: (line: string) => void) => Promise<T>): Promise<T> => {
    const gate = new ProgressGate(
      (progress) => void emitLive(events, progress),
      PROGRESS_INTERVAL_MS,
      () => performance.now(),
    );
    try {
      return await run((line) => gate.push(parseProgress(operation, line)));
    } finally {
      gate.flush();
    }
  };
  return {
    getGitStatus: async () => git.status(),
    listBranches: async () => git.branches(),
    getGitDiff: async ({ query }) => {
      const { path, originalPath, head } = await git.fileAtHead(query.path);
      return { path, originalPath, head, workingTree: workingSide(paths, path) };
    },
    stage: async ({ body }) => git.stage(body),
    unstage: async ({ body }) => git.unstage(body),
    createBranch: async ({ body }) => git.createBranch(body),
    switchBranch: async ({ body }) => git.switchBranch(body),
    commit: async ({ body }) => {
      const made = await git.commit(body);
      await events.emit('git:commit', { ...made });
      return made;
    },
    push: async ({ body }, { signal }) => withProgress('push', (onProgress) => git.push(body, { signal, onProgress })),
    pull: async ({ body }, { signal }) => withProgress('pull', (onProgress) => git.pull(body, { signal, onProgress })),
  };
}

function emitLive(events: EventBus, data: object): Promise<unknown> {
  return events.emit('git:progress', { ...data });
}

/**
 * The working tree's side of a diff, read through the workspace's gate (symlinks followed
 * inside it, Loom's folders refused): a deleted file is missing, a folder or a FIFO is binary.
 */
function workingSide(paths: WorkspacePaths, file: string): GitFileSide {
  let real: string;
  try {
    real = paths.resolve(file);
  } catch (error) {
    if (fileSystemError(error, file).code === 'not_found') return fileSide(null, null);
    throw error;
  }
  try {
    // A FIFO or a device is never waited on; a file past the cap is not read.
    const { text, stat } = readRegularFile(real, file, MAX_DIFF_SIDE_BYTES);
    return fileSide(Buffer.from(text, 'utf8'), stat.size);
  } catch (error) {
    const failure = fileSystemError(error, file);
    if (failure.code === 'not_found') return fileSide(null, null);
    if (failure.code === 'payload_too_large') return { exists: true, binary: false, tooLarge: true, size: null, text: null };
    if (failure.code === 'not_a_file') return { exists: true, binary: true, tooLarge: false, size: null, text: null };
    throw failure;
  }
}
