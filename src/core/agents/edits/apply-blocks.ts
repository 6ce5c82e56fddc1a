// Applying an answer's blocks, several files and several blocks per file, in order; and telling
// the model what happened to each block.
import { applyEdit } from './apply.ts';
import type { EditApplied, EditBlock, EditProblem, EditRefused, LineRange, Tolerance } from './types.ts';

export interface FileChange {
  path: string;
  /** The content before the first block, null for a file the blocks created. */
  before: string | null;
  after: string;
}

export interface BlockReport {
  /** The block's number in the answer (its position in the list for tool calls). */
  number: number;
  path: string;
  result: Omit<EditApplied, 'content'> | EditRefused;
}

export interface AppliedEdits {
  /** One entry per file at least one block changed, in the order the files were first named. */
  changes: FileChange[];
  /** One report per block, in order. */
  reports: BlockReport[];
}

/**
 * Applies blocks in order, each to its file as the blocks before it left it. `contentOf` gives
 * a file's current content, null when it does not exist; it is asked once per path, and paths
 * are compared as given, so the caller resolves them (inside its workspace, refusing the ones
 * outside) before calling. A refused block changes nothing and does not stop the others: the
 * reports say which to send again.
 *
 * @example
 * const { blocks, problems } = parseEditBlocks(answer);
 * const { changes, reports } = applyEdits(blocks, (path) => files.get(path) ?? null);
 * // changes: [{ path: 'src/a.ts', before: '…', after: '…' }]; tell the model formatEditReport(problems, reports)
 */
export function applyEdits(blocks: readonly EditBlock[], contentOf: (path: string) => string | null): AppliedEdits {
  const before = new Map<string, string | null>();
  const current = new Map<string, string | null>();
  const reports: BlockReport[] = [];
  blocks.forEach((block, index) => {
    if (!current.has(block.path)) {
      const content = contentOf(block.path);
      before.set(block.path, content);
      current.set(block.path, content);
    }
    const result = applyEdit(current.get(block.path) ?? null, block);
    if (result.ok) {
      current.set(block.path, result.content);
      const { content: _content, ...rest } = result;
      reports.push({ number: block.origin?.number ?? index + 1, path: block.path, result: rest });
    } else reports.push({ number: block.origin?.number ?? index + 1, path: block.path, result });
  });
  const changes: FileChange[] = [];
  for (const [path, after] of current) {
    const was = before.get(path) ?? null;
    // (A file created empty is a change too: null to "".)
    if (after !== null && after !== was) changes.push({ path, before: was, after });
  }
  return { changes, reports };
}

const lines = ({ start, end }: LineRange): string => (start === end ? `line ${start}` : `lines ${start}–${end}`);

const TOLERANCE_WORDS: Record<Tolerance, string> = {
  line_endings: 'line endings',
  trailing_whitespace: 'trailing whitespace',
  blank_lines: 'blank lines at the ends of SEARCH',
  indentation: 'indentation',
  tabs: 'tabs and spaces',
};

/**
 * What to tell the model about its blocks: the problems of the ones that could not be read,
 * then one paragraph per block (applied where, or why not and what to send instead).
 *
 * @example
 * formatEditReport([], reports);
 * // 'Block 1 (src/a.ts): applied; it is now lines 3–5.\nBlock 2 (src/a.ts): not applied. SEARCH matches 2 places …'
 */
export function formatEditReport(problems: readonly EditProblem[], reports: readonly BlockReport[]): string {
  const paragraphs = problems.map((problem) => `Not applied: ${problem.message}`);
  for (const { number, path, result } of reports) {
    const label = `Block ${number} (${path})`;
    if (!result.ok) {
      paragraphs.push(`${label}: not applied. ${result.message}`);
      continue;
    }
    const where = result.lines.end < result.lines.start ? `it removed ${lines(result.replaced)}` : `it is now ${lines(result.lines)}`;
    const what = result.created
      ? 'created the file'
      : !result.changed
        ? 'matched, but SEARCH and REPLACE give the same content: nothing changed'
        : `applied; ${where}`;
    const loose = result.tolerances.filter((tolerance) => tolerance !== 'line_endings');
    const note = loose.length
      ? ` (SEARCH differed from the file in ${loose.map((tolerance) => TOLERANCE_WORDS[tolerance]).join(' and ')}; the file's whitespace was kept)`
      : '';
    paragraphs.push(`${label}: ${what}${note}.`);
  }
  const failed = problems.length + reports.filter(({ result }) => !result.ok).length;
  if (failed && reports.some(({ result }) => result.ok)) {
    paragraphs.push('The blocks reported applied are in the files now: send again only the others, against the files as they are now.');
  }
  return paragraphs.join('\n');
}
