// Git for the local API: status, branches, commit, push, pull, staging, a file at HEAD, making and
// switching branches over one workspace folder. Core declares the operations (workspace.ts) and
// reads git's output (parse.ts, failures.ts, progress.ts); the git command runs in
// src/adapters/git, built by src/compose/git.ts.
export { fileSide } from './file-side.ts';
export { parseProgress, ProgressGate } from './progress.ts';
export { GitConflictError, type GitWorkspace, type GitWorkspaceOptions, type SyncOptions } from './workspace.ts';
export type * from './types.ts';
export { checkBranchName, checkRemoteName, MAX_MESSAGE_LENGTH } from './validate.ts';
