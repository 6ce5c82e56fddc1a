// The tools that change files: edit by search/replace, create, delete, rename. Each goes through
// TaskFiles (globs, protected paths, locks, conflicts, the change log). An edit block written in
// the model's plain-text answer is applied by the same function as the edit tool.
import { unifiedDiff } from '../../text/diff.ts';
import { applyEdit, editFromArguments, formatEditReport, type EditBlock } from '../edits/index.ts';
import type { TaskFiles } from '../files/task-files.ts';
import { ToolFailure } from '../files/task-files.ts';
import { Arguments, outcomeOf, pathTargets, type AgentTool, type ToolOutcome } from './tool.ts';

/** Lines around an applied edit shown back to the model, so that it sees the result in place. */
const SHOWN_CONTEXT = 3;
const SHOWN_LINES = 40;

/**
 * Applies one search/replace block to its file through the task's rules: the file must have
 * been read by the task (or not exist), SEARCH must match one place. `number` names the block
 * in what the model is told.
 */
export async function applyEditBlock(files: TaskFiles, block: EditBlock, number: number): Promise<ToolOutcome> {
  return outcomeOf(async () => {
    let report = '';
    let window = '';
    const { key, before, after } = await files.write(
      block.path,
      (current) => {
        const result = applyEdit(current, block);
        report = formatEditReport([], [{ number, path: block.path, result }]);
        if (!result.ok) throw new ToolFailure(report);
        if (result.lines.end >= result.lines.start) window = shownLines(result.content, result.lines.start, result.lines.end);
        return result.content;
      },
      { seenFirst: true },
    );
    return {
      ok: true,
      text: window ? `${report}\nThe lines now (numbers are not part of the file):\n${window}` : report,
      ...(before !== after ? { diff: unifiedDiff(before, after, { from: before === null ? null : key, to: key }), changed: [key] } : {}),
    };
  });
}

/** Lines `start`..`end` of `text` with a few around, numbered like read_file's. */
function shownLines(text: string, start: number, end: number): string {
  const lines = text.split('\n');
  const from = Math.max(1, start - SHOWN_CONTEXT);
  const to = Math.min(lines.length - (text.endsWith('\n') ? 1 : 0), end + SHOWN_CONTEXT, from + SHOWN_LINES - 1);
  const out: string[] = [];
  for (let line = from; line <= to; line++) out.push(`${line}\t${lines[line - 1]!.replace(/\r$/, '')}`);
  return out.join('\n');
}

export const editFile: AgentTool = {
  declaration: {
    name: 'edit_file',
    description:
      'Change a file you have read: replace the lines in "search" (copied exactly from the file, with enough lines around to occur only once) by the lines in "replace". An empty "search" creates a new file with "replace" as its content. An empty "replace" deletes the lines.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Relative to the workspace.' },
        search: { type: 'string', description: 'The whole lines to find, as they are in the file.' },
        replace: { type: 'string', description: 'The lines to put in their place.' },
      },
      required: ['path', 'search', 'replace'],
    },
  },
  targets: (args, context) => pathTargets(args, context, 'path'),
  run: async (args, context) => {
    const read = editFromArguments(args);
    if ('problem' in read) return { ok: false, text: read.problem.message };
    return applyEditBlock(context.files, read.block, 1);
  },
};

export const createFile: AgentTool = {
  declaration: {
    name: 'create_file',
    description: 'Create a new file with the given content (folders are created as needed). Refused when the file exists: change it with edit_file.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  targets: (args, context) => pathTargets(args, context, 'path'),
  run: (args, context) =>
    outcomeOf(async () => {
      const read = new Arguments(args, 'create_file');
      const path = read.path('path');
      const content = read.string('content');
      const { key } = await context.files.write(path, (current, key) => {
        if (current !== null) throw new ToolFailure(`${key} already exists; change it with edit_file (read it first).`);
        return content;
      });
      return { ok: true, text: `Created ${key} (${lineCount(content)} lines).`, diff: unifiedDiff(null, content, { from: null, to: key }), changed: [key] };
    }),
};

export const deleteFile: AgentTool = {
  declaration: {
    name: 'delete_file',
    description: 'Delete a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  targets: (args, context) => pathTargets(args, context, 'path'),
  run: (args, context) =>
    outcomeOf(async () => {
      const { key, before } = await context.files.remove(new Arguments(args, 'delete_file').path('path'));
      return { ok: true, text: `Deleted ${key}.`, diff: unifiedDiff(before, null, { from: key, to: null }), changed: [key] };
    }),
};

export const renameFile: AgentTool = {
  declaration: {
    name: 'rename_file',
    description: 'Rename (move) a file; folders are created as needed. Refused when the new path exists.',
    parameters: {
      type: 'object',
      properties: { from: { type: 'string' }, to: { type: 'string' } },
      required: ['from', 'to'],
    },
  },
  targets: (args, context) => pathTargets(args, context, 'from', 'to'),
  run: (args, context) =>
    outcomeOf(async () => {
      const read = new Arguments(args, 'rename_file');
      const { from, to } = await context.files.rename(read.path('from'), read.path('to'));
      return { ok: true, text: `Renamed ${from} to ${to}.`, diff: unifiedDiff(null, null, { from, to }), changed: [from, to] };
    }),
};

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
