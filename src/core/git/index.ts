// Git for the local API: status, branches, commit, push, pull over one workspace folder.
export { GitConflictError, GitWorkspace, type GitWorkspaceOptions } from './git.ts';
export type * from './types.ts';
export { checkBranchName, checkRemoteName, MAX_MESSAGE_LENGTH } from './validate.ts';
