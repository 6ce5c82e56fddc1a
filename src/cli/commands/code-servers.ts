// `loom code def|refs|hover|diagnostics|rename`: what the language servers say, asked of the
// running app (`loom serve`, `loom up`) through its local API. Unlike the index's commands
// (search, symbols, files, locate, map), these need the app: it runs the language servers and
// keeps them warm, they see the editor's unsaved text, and a rename goes through its documents.
// Positions are FILE:LINE:COLUMN, 1-based, as the other `loom code` commands print them.
import { Command, InvalidArgumentError } from 'commander';
import { cliAction, localCall as call } from '../errors.ts';
import { localServerFor, withLocalServerOptions } from '../local-server.ts';
import { oneLine, print, printJson } from '../output.ts';

/** The subcommands of `loom code` that ask the running app, in the order `loom code --help` lists them. */
export const SERVER_COMMANDS: (() => Command)[] = [definitionCommand, referencesCommand, hoverCommand, diagnosticsCommand, renameCommand];

interface At {
  path: string;
  line: number;
  column: number;
}

/** `src/app.ts:12:9` → {path, line, column}; the path may itself hold colons. */
function position(value: string): At {
  const match = /^(.+):(\d+):(\d+)$/.exec(value);
  const line = Number(match?.[2]);
  const column = Number(match?.[3]);
  if (!match || !Number.isSafeInteger(line) || !Number.isSafeInteger(column) || line < 1 || column < 1) {
    throw new InvalidArgumentError('Expected FILE:LINE:COLUMN, workspace-relative, 1-based (as `loom code symbols` prints), e.g. src/app.ts:12:9.');
  }
  return { path: match[1]!.replace(/^\.\//, ''), line, column };
}

function serverCommand(name: string, description: string): Command {
  return withLocalServerOptions(new Command(name).description(description));
}

type Location = { path: string | null; uri: string; range: { start: { line: number; column: number } } };

function printLocations(answer: { source: string; server?: string; locations: Location[] }): void {
  const lines = answer.locations.map((location) => `${oneLine(location.path ?? location.uri)}:${location.range.start.line}:${location.range.start.column}\n`);
  if (lines.length === 0) lines.push('Nothing found.\n');
  // Said when it matters: the index answers by name, not by type.
  if (answer.source === 'index') lines.push('(from the code index, by name: no language server runs for this language here)\n');
  print(lines.join(''));
}

function definitionCommand(): Command {
  const command = serverCommand('def', 'where the symbol at FILE:LINE:COLUMN is defined, from its language server (needs a running loom serve)')
    .argument('<position>', 'FILE:LINE:COLUMN, workspace-relative, 1-based', position)
    .option('--json', 'print {source, server?, locations: [{path, uri, range}]}');
  return command.action(
    cliAction(async (at: At, options: { json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const answer = await call(() => client.call('findDefinition', { query: at }));
      if (options.json) return printJson(answer);
      printLocations(answer);
    }),
  );
}

function referencesCommand(): Command {
  const command = serverCommand('refs', 'where the symbol at FILE:LINE:COLUMN is used, from its language server (needs a running loom serve)')
    .argument('<position>', 'FILE:LINE:COLUMN, workspace-relative, 1-based', position)
    .option('--no-declaration', 'leave the declaration out')
    .option('--json', 'print {source, server?, locations: [{path, uri, range}]}');
  return command.action(
    cliAction(async (at: At, options: { declaration: boolean; json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const answer = await call(() => client.call('findReferences', { query: { ...at, includeDeclaration: options.declaration } }));
      if (options.json) return printJson(answer);
      printLocations(answer);
    }),
  );
}

function hoverCommand(): Command {
  const command = serverCommand(
    'hover',
    'what the language server says about the symbol at FILE:LINE:COLUMN: its type and documentation (needs a running loom serve)',
  )
    .argument('<position>', 'FILE:LINE:COLUMN, workspace-relative, 1-based', position)
    .option('--json', 'print {markdown, range?}');
  return command.action(
    cliAction(async (at: At, options: { json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const answer = await call(() => client.call('hoverCode', { query: at }));
      if (options.json) return printJson(answer);
      print(answer.markdown === null ? 'Nothing to say here.\n' : `${answer.markdown.trim()}\n`);
    }),
  );
}

type Diagnostic = { severity: string; message: string; source?: string; code?: string; range: { start: { line: number; column: number } } };

function diagnosticLines(path: string, diagnostics: Diagnostic[]): string {
  return diagnostics
    .map(
      (d) =>
        `${oneLine(path)}:${d.range.start.line}:${d.range.start.column}: ${d.severity}: ${oneLine(d.message)}${d.source ? ` [${oneLine(d.source)}${d.code ? ` ${oneLine(d.code)}` : ''}]` : ''}\n`,
    )
    .join('');
}

function diagnosticsCommand(): Command {
  const command = serverCommand(
    'diagnostics',
    "a file's errors and warnings for its text now (the editor's unsaved text, else the disk); without FILE, every file the language servers reported on (needs a running loom serve)",
  )
    .argument('[file]', 'a workspace-relative file')
    .option('--json', 'print {path, server, diagnostics, omitted, current} (without FILE: {files, counts})');
  return command.action(
    cliAction(async (file: string | undefined, options: { json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      if (file === undefined) {
        const problems = await call(() => client.call('listProblems'));
        if (options.json) return printJson(problems);
        const { error, warning, information, hint } = problems.counts;
        print(
          `${problems.files.map((entry) => diagnosticLines(entry.path, entry.diagnostics)).join('')}${error} errors, ${warning} warnings, ${information + hint} notes.\n`,
        );
        return;
      }
      const answer = await call(() => client.call('getFileDiagnostics', { query: { path: file.replace(/^\.\//, '') } }));
      if (options.json) return printJson(answer);
      const late = answer.current === false ? `(the ${answer.server} server did not report within its time limit: its last report)\n` : '';
      print(
        answer.diagnostics.length === 0 ? `${late}No problems in ${oneLine(answer.path)}.\n` : `${late}${diagnosticLines(answer.path, answer.diagnostics)}`,
      );
    }),
  );
}

function renameCommand(): Command {
  const command = serverCommand(
    'rename',
    'rename the symbol at FILE:LINE:COLUMN across the workspace: prints the diffs; --apply applies them (open documents get unsaved edits, other files are written) (needs a running loom serve)',
  )
    .argument('<position>', 'FILE:LINE:COLUMN, workspace-relative, 1-based', position)
    .argument('<new-name>', 'the new name')
    .option('--apply', 'apply the rename (without it, nothing changes)')
    .option('--json', 'print the preview {files: [{path, base, edits, diff}]}, with --apply {preview, applied}');
  return command.action(
    cliAction(async (at: At, newName: string, options: { apply?: boolean; json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const preview = await call(() => client.call('previewRename', { body: { ...at, newName } }));
      const applied = options.apply ? await call(() => client.call('applyRename', { body: preview })) : undefined;
      if (options.json) return printJson(applied ? { preview, applied } : preview);
      const diffs = preview.files.map((file) => file.diff ?? '').join('');
      const count = `${preview.files.length} file${preview.files.length === 1 ? '' : 's'}`;
      print(`${diffs}${applied ? `Renamed in ${count}.\n` : `${count} would change; --apply applies it.\n`}`);
    }),
  );
}
