// The tools that use what Loom knows of the code: from the code index, the files to change for a
// description (locate) and definitions by name; from the language servers, a definition, the
// references of a symbol, a file's diagnostics, and a rename across files. A position is a line
// and the symbol's name on it (models count columns badly), or a column. A rename's changes go
// through the task's files like any edit: every file checked against the task's globs first,
// each change recorded (so revert undoes it) and checked for diagnostics after.
import { createHash } from 'node:crypto';
import type { CodeLocation } from '../../language/types.ts';
import { applyTextEdits } from '../../language/workspace-edit.ts';
import { unifiedDiff } from '../../text/diff.ts';
import { ToolFailure } from '../files/task-files.ts';
import type { AgentCodeIndex, AgentLanguages, Position } from '../intel/intel.ts';
import { Arguments, outcomeOf, type AgentTool, type ToolContext } from './tool.ts';

/** Files locate answers, by default and at most. */
const LOCATE_DEFAULT = 10;
const LOCATE_MAX = 30;
/** Definitions find_symbol answers. */
const SYMBOLS_LIMIT = 30;
/** Locations a definition or references answer lists. */
const LOCATIONS_LIMIT = 50;
/** Diagnostics the diagnostics tool lists. */
const DIAGNOSTICS_LIMIT = 50;
/** Characters of a location's line shown. */
const LINE_CHARS = 200;
/** Longest description, name or symbol a call takes. */
const MAX_TEXT_CHARS = 1000;

const POSITION_PROPERTIES = {
  path: { type: 'string', description: 'The file, relative to the workspace.' },
  line: { type: 'integer', description: 'The 1-based line the symbol is on.' },
  symbol: { type: 'string', description: 'The symbol as written on that line (its first occurrence there is meant).' },
  column: { type: 'integer', description: 'Instead of symbol: the 1-based column of the symbol.' },
} as const;

/** The tools the task's code intelligence allows: the index's, the language servers', or none. */
export function codeTools(intel: { index?: AgentCodeIndex; languages?: AgentLanguages } | undefined): AgentTool[] {
  const tools: AgentTool[] = [];
  if (intel?.index) tools.push(locateFiles(intel.index), findSymbol(intel.index));
  if (intel?.languages)
    tools.push(goToDefinition(intel.languages), findReferences(intel.languages), diagnosticsTool(intel.languages), renameSymbol(intel.languages));
  return tools;
}

function locateFiles(index: AgentCodeIndex): AgentTool {
  return {
    declaration: {
      name: 'locate_files',
      description: `The files most likely to need a change for a description of a change or a bug, best first, each with why (names it defines, words in its path, recent commits). At most ${LOCATE_MAX}.`,
      parameters: {
        type: 'object',
        properties: {
          description: { type: 'string', description: 'What to change, in words and identifiers.' },
          limit: { type: 'integer', description: `How many files (default ${LOCATE_DEFAULT}).` },
        },
        required: ['description'],
      },
    },
    run: (args, context) =>
      outcomeOf(async () => {
        const read = new Arguments(args, 'locate_files');
        const description = text(read, 'description');
        const limit = Math.min(LOCATE_MAX, read.optionalInteger('limit', 1) ?? LOCATE_DEFAULT);
        const found = await index.locate(description, limit);
        if (found.length === 0) return { ok: true, text: 'No file stands out for that description: try search or find_symbol with a name.' };
        return { ok: true, text: found.map((file) => `${file.path}${inScopeNote(context, file.path)} — ${file.reasons.slice(0, 3).join('; ')}`).join('\n') };
      }, context.signal),
  };
}

function findSymbol(index: AgentCodeIndex): AgentTool {
  return {
    declaration: {
      name: 'find_symbol',
      description: `Where a function, class, method, type or variable is defined, by its name (close spellings match too), best first; at most ${SYMBOLS_LIMIT}.`,
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    run: (args, context) =>
      outcomeOf(async () => {
        const name = text(new Arguments(args, 'find_symbol'), 'name');
        const found = await index.symbols(name, SYMBOLS_LIMIT);
        if (found.length === 0) return { ok: true, text: `No definition is named like ${JSON.stringify(name)}.` };
        return {
          ok: true,
          text: found
            .map((symbol) => `${symbol.path}:${symbol.line}: ${symbol.kind} ${symbol.container ? `${symbol.container}.` : ''}${symbol.name}`)
            .join('\n'),
        };
      }, context.signal),
  };
}

function goToDefinition(languages: AgentLanguages): AgentTool {
  return {
    declaration: {
      name: 'go_to_definition',
      description: 'Where the symbol at a place in a file is defined (through the language server: by type, not by name).',
      parameters: { type: 'object', properties: POSITION_PROPERTIES, required: ['path', 'line'] },
    },
    run: (args, context) =>
      outcomeOf(async () => {
        const { key, position, symbol } = positionOf(new Arguments(args, 'go_to_definition'), context);
        const answer = await languages.definition(key, position, context.signal);
        return {
          ok: true,
          text: locationsText(context, answer.locations, `No definition found for ${symbol ?? 'the symbol'} at ${key}:${position.line}.`, answer.source),
        };
      }, context.signal),
  };
}

function findReferences(languages: AgentLanguages): AgentTool {
  return {
    declaration: {
      name: 'find_references',
      description: `Every place the symbol at a place in a file is used, its definition included (through the language server). At most ${LOCATIONS_LIMIT} listed.`,
      parameters: { type: 'object', properties: POSITION_PROPERTIES, required: ['path', 'line'] },
    },
    run: (args, context) =>
      outcomeOf(async () => {
        const { key, position, symbol } = positionOf(new Arguments(args, 'find_references'), context);
        const answer = await languages.references(key, position, context.signal);
        return {
          ok: true,
          text: locationsText(context, answer.locations, `No reference found for ${symbol ?? 'the symbol'} at ${key}:${position.line}.`, answer.source),
        };
      }, context.signal),
  };
}

function diagnosticsTool(languages: AgentLanguages): AgentTool {
  return {
    declaration: {
      name: 'diagnostics',
      description: `The errors and warnings the language server reports for a file as it is now (type errors, unknown names, syntax errors). At most ${DIAGNOSTICS_LIMIT}, errors first.`,
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    run: (args, context) =>
      outcomeOf(async () => {
        const key = context.files.resolve(new Arguments(args, 'diagnostics').path('path'));
        const { current, diagnostics } = await languages.diagnostics(key, context.signal);
        if (!current) return { ok: false, text: `The language server did not report on ${key} in time: not checked. Ask again in a moment.` };
        const shown = diagnostics.slice(0, DIAGNOSTICS_LIMIT);
        if (shown.length === 0) return { ok: true, text: `${key}: no diagnostics.` };
        const lines = shown.map(
          (entry) =>
            `${key}:${entry.range.start.line}:${entry.range.start.column}: ${entry.severity}${entry.code ? ` ${entry.code}` : ''}: ${entry.message.replace(/\s+/g, ' ').slice(0, 300)}`,
        );
        const more = diagnostics.length > shown.length ? `\n… and ${diagnostics.length - shown.length} more.` : '';
        return { ok: true, text: `${lines.join('\n')}${more}` };
      }, context.signal),
  };
}

function renameSymbol(languages: AgentLanguages): AgentTool {
  return {
    declaration: {
      name: 'rename_symbol',
      description:
        'Rename a symbol (a function, class, variable, method…) everywhere it is used, through the language server: its definition and every reference, across files. Every file it changes must be one this task may change; nothing is changed otherwise.',
      parameters: {
        type: 'object',
        properties: { ...POSITION_PROPERTIES, new_name: { type: 'string', description: 'The new name.' } },
        required: ['path', 'line', 'new_name'],
      },
    },
    run: (args, context) =>
      outcomeOf(async () => {
        const read = new Arguments(args, 'rename_symbol');
        const newName = text(read, 'new_name');
        const { key, position, symbol } = positionOf(read, context);
        const files = await languages.rename(key, position, newName, context.signal);
        if (files.length === 0) return { ok: false, text: `Nothing to rename at ${key}:${position.line}.` };
        const keys = files.map((file) => context.files.resolve(file.path));
        const outside = keys.filter((file) => !context.files.inScope(file));
        if (outside.length) {
          throw new ToolFailure(
            `Renaming ${symbol ?? 'it'} would change ${outside.slice(0, 10).join(', ')}${outside.length > 10 ? ` and ${outside.length - 10} more` : ''}, outside the files this task may change; nothing was renamed.`,
          );
        }
        await context.checks?.prepare(keys, context.signal);
        const diffs: string[] = [];
        const changed: string[] = [];
        const counts: string[] = [];
        for (const [index, file] of files.entries()) {
          try {
            const { before, after } = await context.files.write(keys[index]!, (current, written) => {
              if (current === null) throw new ToolFailure(`${written} does not exist any more.`);
              if (file.sha256 !== undefined && sha256(current) !== file.sha256)
                throw new ToolFailure(`${written} changed while the language server worked on it.`);
              return applyTextEdits(current, file.edits);
            });
            if (before === after) continue;
            changed.push(keys[index]!);
            counts.push(`${keys[index]} (${file.edits.length} ${file.edits.length === 1 ? 'place' : 'places'})`);
            diffs.push(unifiedDiff(before, after, { from: keys[index]!, to: keys[index]! }));
          } catch (error) {
            if (!(error instanceof ToolFailure) || changed.length === 0) throw error;
            // Part of the rename is written (and recorded: revert undoes it): say which part.
            return {
              ok: false,
              text: `The rename stopped at ${keys[index]}: ${error.message} Renamed so far: ${counts.join(', ')}. Finish the rest with edit_file, or undo those edits.`,
              diff: diffs.join(''),
              changed,
            };
          }
        }
        if (changed.length === 0) return { ok: true, text: `${symbol ?? 'The symbol'} is already named ${newName}: nothing changed.` };
        return {
          ok: true,
          text: `Renamed ${symbol ?? 'the symbol'} to ${newName} in ${changed.length} ${changed.length === 1 ? 'file' : 'files'}: ${counts.join(', ')}.`,
          diff: diffs.join(''),
          changed,
        };
      }, context.signal),
  };
}

/** A required text argument of at most MAX_TEXT_CHARS, not blank. */
function text(read: Arguments, name: string): string {
  const value = read.string(name).trim();
  if (value === '') throw new ToolFailure(`"${name}" is empty.`);
  if (value.length > MAX_TEXT_CHARS) throw new ToolFailure(`"${name}" is ${value.length} characters long; at most ${MAX_TEXT_CHARS} are taken.`);
  return value;
}

/** The place a call names: a line and the symbol on it, or a line and a column. */
function positionOf(read: Arguments, context: ToolContext): { key: string; position: Position; symbol?: string } {
  const path = read.path('path');
  const line = read.optionalInteger('line', 1);
  if (line === undefined) throw new ToolFailure('"line" is required: the 1-based line the symbol is on.');
  const symbol = read.optionalString('symbol')?.trim();
  const column = read.optionalInteger('column', 1);
  const key = context.files.resolve(path);
  let source: string | null;
  try {
    source = context.workspace.read(key);
  } catch (error) {
    throw new ToolFailure(error instanceof Error ? error.message : String(error));
  }
  if (source === null) throw new ToolFailure(`${key} does not exist.`);
  const lines = source.split('\n');
  if (line > lines.length) throw new ToolFailure(`${key} has ${lines.length} lines; line ${line} is past its end.`);
  const lineText = lines[line - 1]!.replace(/\r$/, '');
  if (symbol) {
    if (symbol.length > MAX_TEXT_CHARS) throw new ToolFailure(`"symbol" is ${symbol.length} characters long; at most ${MAX_TEXT_CHARS} are taken.`);
    const at = wordIndex(lineText, symbol);
    if (at < 0) throw new ToolFailure(`Line ${line} of ${key} does not contain ${JSON.stringify(symbol)}; it reads: ${lineText.trim().slice(0, LINE_CHARS)}`);
    return { key, position: { line, column: at + 1 }, symbol };
  }
  if (column === undefined) throw new ToolFailure('Say which symbol: "symbol" (its name on that line) or "column".');
  if (column > lineText.length + 1) throw new ToolFailure(`Line ${line} of ${key} has ${lineText.length} characters; column ${column} is past its end.`);
  return { key, position: { line, column } };
}

/** The first occurrence of `word` in `line` as a whole word (else anywhere), or -1. */
function wordIndex(line: string, word: string): number {
  const isWord = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}_$]/u.test(char);
  let from = 0;
  for (;;) {
    const at = line.indexOf(word, from);
    if (at < 0) return line.indexOf(word);
    if (!isWord(line[at - 1]) && !isWord(line[at + word.length])) return at;
    from = at + 1;
  }
}

/** Locations as `path:line:column: the line`, at most LOCATIONS_LIMIT. */
function locationsText(context: ToolContext, locations: readonly CodeLocation[], none: string, source: string): string {
  if (locations.length === 0) return none;
  const cache = new Map<string, string[] | null>();
  const lineOf = (path: string, line: number): string => {
    if (!cache.has(path)) {
      try {
        cache.set(path, context.workspace.read(path)?.split('\n') ?? null);
      } catch {
        cache.set(path, null);
      }
    }
    const text = cache.get(path)?.[line - 1]?.trim() ?? '';
    return text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS)}…` : text;
  };
  const shown = locations.slice(0, LOCATIONS_LIMIT).map((location) => {
    const { line, column } = location.range.start;
    return location.path === null ? `(outside the workspace) ${location.uri}:${line}` : `${location.path}:${line}:${column}: ${lineOf(location.path, line)}`;
  });
  const more = locations.length > LOCATIONS_LIMIT ? `\n… and ${locations.length - LOCATIONS_LIMIT} more.` : '';
  const by = source === 'index' ? '\n(No language server runs for this language: found by name in the code index, not by type.)' : '';
  return `${shown.join('\n')}${more}${by}`;
}

function inScopeNote(context: ToolContext, path: string): string {
  return context.files.inScope(path) ? '' : ' (read-only)';
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
