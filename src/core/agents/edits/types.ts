// What the edit format reads and what applying it answers. Every message is written for the
// model: it says what went wrong and what to send instead.

/**
 * One edit: in the file `path`, replace the lines `search` by the lines `replace`. Both are
 * lines each followed by "\n" ("" is no line); an empty `search` creates the file.
 */
export interface EditBlock {
  /** As the model wrote it, decorations removed; the caller resolves it inside the workspace. */
  path: string;
  search: string;
  replace: string;
  /** Where the block is in the model's answer; absent for a tool call's arguments. */
  origin?: { number: number; line: number };
}

export type EditProblemCode =
  /** No file path before the block, and no earlier block to take it from. */
  | 'missing_path'
  /** No path line, and the text before the block names a file other than the previous block's. */
  | 'unclear_path'
  /** A path with control characters, or too long. */
  | 'invalid_path'
  /** `>>>>>>> REPLACE` before any `=======`. */
  | 'missing_divider'
  /** More than one `=======` line in a block: which one divides is unclear. */
  | 'extra_divider'
  /** A block's `>>>>>>> REPLACE` missing before the next block, or the answer ended inside one. */
  | 'unterminated'
  /** `>>>>>>> REPLACE` or `=======`… with no open block: a block without its `<<<<<<< SEARCH`. */
  | 'stray_marker'
  /** A line that looks like a marker but is not one (`<<< SEARCH`, `>>>>>>> REPLACE:`…). */
  | 'malformed_marker'
  /** A tool call's arguments are not `{path, search, replace}` strings. */
  | 'invalid_arguments';

/** A block that could not be read. Nothing of it is applied. */
export interface EditProblem {
  code: EditProblemCode;
  /** For the model: what is wrong, where, and what was expected. */
  message: string;
  /** 1-based number of the block in the answer (counted by `<<<<<<< SEARCH` lines). */
  number?: number;
  /** 1-based line of the answer where the problem is. */
  line?: number;
}

export interface ParsedEdits {
  blocks: EditBlock[];
  problems: EditProblem[];
}

/** What a block needed to match, from the least to the most risky. */
export type Tolerance =
  /** The block's line endings differ from the file's (the file's are kept). */
  | 'line_endings'
  /** Lines differ in trailing whitespace. */
  | 'trailing_whitespace'
  /** SEARCH had a blank line at its start or end that the file does not have there. */
  | 'blank_lines'
  /** The block is indented more or less than the file, as a whole. */
  | 'indentation'
  /** The block uses spaces where the file uses tabs, or the reverse. */
  | 'tabs';

/** Lines `start` to `end`, 1-based, inclusive; `end` is `start - 1` for no line. */
export interface LineRange {
  start: number;
  end: number;
}

export interface NumberedLine {
  /** 1-based. */
  line: number;
  text: string;
}

export interface EditApplied {
  ok: true;
  content: string;
  /** False when REPLACE gives back the same content (the model likely forgot its change). */
  changed: boolean;
  /** The file did not exist. */
  created: boolean;
  tolerances: Tolerance[];
  /** The lines of the old content that were replaced. */
  replaced: LineRange;
  /** Where the replacement is in the new content. */
  lines: LineRange;
}

export type RefusalReason =
  /** SEARCH is not empty and the file does not exist. */
  | 'no_file'
  /** SEARCH is empty (create the file) and the file exists with content. */
  | 'file_not_empty'
  /** SEARCH has only blank lines: they would match anywhere. */
  | 'blank_search'
  /** SEARCH matches nowhere, even ignoring whitespace. */
  | 'not_found'
  /** SEARCH matches several places once whitespace is ignored. */
  | 'ambiguous'
  /** SEARCH matches one place but its indentation is not a whole shift of the file's. */
  | 'indentation';

export interface EditRefused {
  ok: false;
  reason: RefusalReason;
  /** For the model: why, with the file's lines it should look at, and what to send instead. */
  message: string;
  /** The lines of the file most like SEARCH (not_found), or the place it matched (indentation). */
  nearest?: NumberedLine[];
  /** ambiguous: the places SEARCH matches (the first 20) and how many there are. */
  places?: LineRange[];
  count?: number;
}

export type EditResult = EditApplied | EditRefused;
