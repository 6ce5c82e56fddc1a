// The JSON the local API's git routes take and answer with: the schemas in
// contracts/local-resources.ts, whose types these are. Every shape is plain data (strings,
// numbers, booleans, null, arrays) so a route can send it as is.
export type {
  GitBranch,
  GitBranches,
  GitCommitRequest as GitCommitInput,
  GitCommitResult,
  GitFileState,
  GitFileStatus,
  GitPullResult,
  GitPushResult,
  GitRemoteBranch,
  GitStatus,
  GitSyncRequest as GitSyncInput,
} from '../../contracts/local-resources.ts';
