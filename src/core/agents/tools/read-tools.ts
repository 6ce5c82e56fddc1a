// The tools that look without changing anything: list files by glob, read a file's lines
// (numbered, a range at a time), search the workspace's text. They see the whole workspace but
// git directories and .loom (see scope/walk.ts).
import { compileTextQuery, MAX_QUERY_CHARS } from '../../search/text-query.ts';
import { searchLines } from '../../search/search-lines.ts';
import { compileGlob } from '../scope/glob.ts';
import { walkFiles } from '../scope/walk.ts';
import { Arguments, outcomeOf, type AgentTool, type ToolContext } from './tool.ts';
import { withToolFailures } from '../files/task-files.ts';

/** Paths one listing shows. */
const LIST_LIMIT = 500;
/** Lines and characters one read returns. */
const READ_LINES = 400;
const READ_CHARS = 32 * 1024;
/** Matches one search returns, files it looks at, and how much of a matching line it shows. */
const SEARCH_MATCHES = 100;
const SEARCH_FILES = 20_000;
const SEARCH_LINE_CHARS = 240;
/** Longer lines (data, minified code) are not searched (fewer for a large regular expression: text-query.ts). */
const SEARCHED_LINE_CHARS = 4000;

export const listFiles: AgentTool = {
  declaration: {
    name: 'list_files',
    description: `List the workspace's files whose path matches a glob (\`*\` within a folder, \`**\` any folders, \`{a,b}\` alternatives), in name order, at most ${LIST_LIMIT}. Without a pattern, every file.`,
    parameters: {
      type: 'object',
      properties: { pattern: { type: 'string', description: 'A glob relative to the workspace, e.g. "src/**/*.ts".' } },
    },
  },
  run: (args, context) =>
    outcomeOf(async () => {
      const pattern = new Arguments(args, 'list_files').optionalString('pattern')?.trim() || '**';
      const glob = withToolFailures(() => compileGlob(pattern));
      const { files, truncated } = await walkFiles(context.workspace.paths, glob.base, glob.matches, { limit: LIST_LIMIT, signal: context.signal });
      if (files.length === 0) return { ok: true, text: `No file matches ${pattern}.` };
      const lines = files.map((file) => `${file}${context.files.inScope(file) ? '' : '  (read-only)'}`);
      const more = truncated ? `\n… and more: narrow the pattern to see them.` : '';
      const count = files.length === 1 && !truncated ? '1 file matches' : `${files.length}${truncated ? '+' : ''} files match`;
      const note = lines.some((line) => line.endsWith('(read-only)')) ? ' ("read-only": outside the files this task may change)' : '';
      return { ok: true, text: `${count} ${pattern}${note}:\n${lines.join('\n')}${more}` };
    }, context.signal),
};

export const readFile: AgentTool = {
  declaration: {
    name: 'read_file',
    description: `Read a text file of the workspace. Lines come numbered as "N<tab>text"; the numbers are not part of the file. At most ${READ_LINES} lines per call: give start_line and end_line (1-based, inclusive) to read a part.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Relative to the workspace.' },
        start_line: { type: 'integer', description: 'First line to read (default 1).' },
        end_line: { type: 'integer', description: 'Last line to read.' },
      },
      required: ['path'],
    },
  },
  run: (args, context) =>
    outcomeOf(async () => {
      const read = new Arguments(args, 'read_file');
      const path = read.path('path');
      const start = read.optionalInteger('start_line', 1) ?? 1;
      const end = read.optionalInteger('end_line', 1);
      const { key, text } = context.files.read(path);
      return { ok: true, text: numberedLines(key, text, start, end) };
    }),
};

/** Lines `start`..`end` of a file, numbered, within the read limits, saying what is left. */
export function numberedLines(key: string, text: string, start: number, end?: number): string {
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const total = lines.length;
  if (total === 0) return `${key} is empty.`;
  if (start > total) return `${key} has ${total} lines; start_line ${start} is past its end.`;
  const last = Math.min(total, end ?? total, start + READ_LINES - 1);
  const out: string[] = [];
  let chars = 0;
  let line = start;
  for (; line <= last; line++) {
    const shown = `${line}\t${lines[line - 1]!.replace(/\r$/, '')}`;
    if (chars + shown.length > READ_CHARS && out.length > 0) break;
    out.push(shown);
    chars += shown.length + 1;
  }
  const shownEnd = line - 1;
  const header = start === 1 && shownEnd === total ? `${key} (${total} lines):` : `${key}, lines ${start}–${shownEnd} of ${total}:`;
  const rest =
    shownEnd < total && (end === undefined || shownEnd < end) ? `\n… ${total - shownEnd} more lines: read_file with start_line ${shownEnd + 1}.` : '';
  return `${header}\n${out.join('\n')}${rest}`;
}

export const search: AgentTool = {
  declaration: {
    name: 'search',
    description:
      `Search the workspace's text files line by line for a text, or with regex: true for a regular expression in RE2 syntax (as in Go and ripgrep: \\d \\w \\s \\b, classes, (?i), (?:…), {n,m}; no backreferences such as \\1 and no lookahead or lookbehind such as (?=…) or (?<!…)). ` +
      `Answers "path:line: text", at most ${SEARCH_MATCHES} matches. The query has at most ${MAX_QUERY_CHARS} characters; lines longer than ${SEARCHED_LINE_CHARS} characters (fewer for a large regular expression) are not searched.`,
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        regex: { type: 'boolean', description: 'Read query as a regular expression, RE2 syntax (default false: plain text).' },
        case_sensitive: { type: 'boolean', description: 'Default true.' },
        pattern: { type: 'string', description: 'Only files whose path matches this glob, e.g. "src/**/*.ts".' },
      },
      required: ['query'],
    },
  },
  run: (args, context) =>
    outcomeOf(async () => {
      const read = new Arguments(args, 'search');
      const queryText = read.string('query');
      const query = withToolFailures(() =>
        compileTextQuery({
          query: queryText,
          regex: read.optionalBoolean('regex') ?? false,
          caseSensitive: read.optionalBoolean('case_sensitive') ?? true,
          maxLineChars: SEARCHED_LINE_CHARS,
        }),
      );
      const glob = withToolFailures(() => compileGlob(read.optionalString('pattern')?.trim() || '**'));
      const { files } = await walkFiles(context.workspace.paths, glob.base, glob.matches, { limit: SEARCH_FILES, signal: context.signal });
      const { matches, more, longLines } = await searchLines(files, (file) => readText(context, file), query, {
        maxMatches: SEARCH_MATCHES,
        signal: context.signal,
      });
      const skipped =
        longLines === 0
          ? ''
          : `\n(${longLines} line${longLines === 1 ? '' : 's'} longer than ${query.maxLineChars} characters ${longLines === 1 ? 'was' : 'were'} not searched${query.maxLineChars < SEARCHED_LINE_CHARS ? ': a smaller regular expression searches longer lines' : ''}.)`;
      if (matches.length === 0) return { ok: true, text: `No line matches ${JSON.stringify(queryText)}.${skipped}` };
      const lines = matches.map(({ file, line, text }) => {
        const shown = text.trim();
        return `${file}:${line}: ${shown.length > SEARCH_LINE_CHARS ? `${shown.slice(0, SEARCH_LINE_CHARS)}…` : shown}`;
      });
      return { ok: true, text: `${lines.join('\n')}${more ? `\n… more matches: narrow the query or the pattern.` : ''}${skipped}` };
    }, context.signal),
};

/** A file's text for the search, or null when it is not searched (binary, too large, unreadable). */
function readText(context: ToolContext, file: string): string | null {
  try {
    return context.workspace.read(file);
  } catch {
    return null;
  }
}
