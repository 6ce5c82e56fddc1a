// The agents' edit format: search/replace blocks read from a model's answer or a tool call,
// applied where the model means them and nowhere else. Pure: no file system, no network.
export { applyEdit } from './apply.ts';
export { applyEdits, formatEditReport, type AppliedEdits, type BlockReport, type FileChange } from './apply-blocks.ts';
export { editFromArguments, parseEditBlocks, type ParseOptions } from './parse.ts';
export type {
  EditApplied,
  EditBlock,
  EditProblem,
  EditProblemCode,
  EditRefused,
  EditResult,
  LineRange,
  NumberedLine,
  ParsedEdits,
  RefusalReason,
  Tolerance,
} from './types.ts';
