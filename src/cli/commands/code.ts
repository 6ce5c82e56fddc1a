// `loom code index|search|symbols|files|locate|map`: the workspace's code index (docs/code-intelligence.md),
// without a server (`def|refs|hover|diagnostics|rename`, in code-servers.ts, ask the running app): each command opens the index in the data dir, brings it up to date (only
// what changed is read, only new content parsed), answers, and closes it. A new `loom code`
// command is one function returning its Command, added to CODE_COMMANDS; withCodeIndex
// (src/cli/code-index.ts) gives it the index, current.
import { Command, InvalidArgumentError, Option } from 'commander';
import type { BuildSummary, IndexStatus, SkippedEntry } from '../../core/code/model.ts';
import { SKIP_REASONS, SYMBOL_KINDS } from '../../core/code/model.ts';
import { CODE_SETTINGS, withCodeIndex as withIndex } from '../code-index.ts';
import { CliError, cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { addSettingOptions, listOption } from '../options.ts';
import { SERVER_COMMANDS } from './code-servers.ts';
import { locateCommand, mapCommand } from './code-tasks.ts';
import { formatBytes, formatTable, oneLine, print, printJson, toJson } from '../output.ts';

/** The subcommands of `loom code`, in the order `loom code --help` lists them. */
const CODE_COMMANDS: (() => Command)[] = [indexCommand, searchCommand, symbolsCommand, filesCommand, locateCommand, mapCommand, ...SERVER_COMMANDS];

/** `loom code …`. */
export function codeCommand(): Command {
  const code = new Command('code').description(
    "code intelligence: the workspace's code index without a server (build it, search text, find symbols and files, locate the files a task changes, map the repository); definitions, references, hover, diagnostics and rename from the running app's language servers",
  );
  for (const command of CODE_COMMANDS) code.addCommand(command());
  return code;
}

/** A `loom code` subcommand with the workspace and data dir flags. */
function codeSubcommand(name: string, description: string): Command {
  return addSettingOptions(new Command(name).description(description), CODE_SETTINGS);
}

/** A refused query (a regular expression RE2 cannot run, a glob too long) is a usage error. */
async function refusalsAsUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const { LoomError } = await import('../../core/errors.ts');
    if (error instanceof LoomError && error.code === 'validation_error') throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('Expected a whole number of at least 1.');
  return number;
}

/** Kinds of definitions, repeatable or comma-separated, each one of SYMBOL_KINDS. */
function kindList(value: string, previous: string[] = []): string[] {
  const kinds = listOption(value, previous);
  const unknown = kinds.find((kind) => !(SYMBOL_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined) throw new InvalidArgumentError(`Allowed kinds are ${SYMBOL_KINDS.join(', ')}.`);
  return kinds;
}

function indexCommand(): Command {
  const command = codeSubcommand('index', 'build the index of the workspace, or bring it up to date; print what it holds and what it left out')
    .option('--skipped', 'list every file left out, with the reason')
    .option('--json', 'print {build, status, skipped}');
  return command.action(
    cliAction(async (options: { skipped?: boolean; json?: boolean }, self: Command) => {
      await withIndex(self, async (index, build) => {
        const status = index.status();
        const skipped = await index.skipped({ limit: options.skipped || options.json ? 10_000 : 10 });
        if (options.json) return printJson({ build, status, skipped });
        print(describeBuild(build, status, skipped, options.skipped === true));
      });
    }),
  );
}

function describeBuild(build: BuildSummary, status: IndexStatus, skipped: SkippedEntry[], all: boolean): string {
  const seconds = (build.durationMs / 1000).toFixed(1);
  const lines = [
    `Indexed ${status.workspace}: ${build.files} files in ${seconds} s (${build.parsed} parsed, ${build.reused} from the cache, ${build.unchanged} unchanged, ${build.removed} removed; ${formatBytes(build.bytes)} read).`,
    `The index holds ${status.parsed} parsed files, ${status.lexical} as text only; ${status.skipped} left out. Database: ${status.database}`,
  ];
  if (skipped.length > 0) {
    lines.push(all ? 'Left out:' : `Left out (the first ${skipped.length}; --skipped lists them all):`);
    lines.push(formatTable(skipped.map((entry) => [`  ${entry.path}`, SKIP_REASONS[entry.reason] ?? entry.reason])));
  }
  return `${lines.join('\n')}\n`;
}

function searchCommand(): Command {
  const command = codeSubcommand('search', 'search the text of the workspace, as ripgrep does: literal text, or an RE2 regular expression with --regex')
    .argument('<text>', 'what to find (literal unless --regex)')
    .option('-e, --regex', 'TEXT is a regular expression (RE2 syntax: no lookaround or backreferences)')
    .option('-s, --case-sensitive', 'match case exactly')
    .option('-i, --ignore-case', 'ignore case (default: smart case, exact only when TEXT has a capital letter)')
    .option('-w, --word', 'whole words only')
    .option('-g, --glob <globs>', 'files to include, or with a leading ! to exclude (gitignore syntax, {a,b}); repeatable', listOption)
    .option('-m, --max-count <n>', 'matches at most (default 2000)', positiveInteger)
    .option('--timeout <ms>', 'time the search may take (default 10000)', positiveInteger)
    .option('--json', 'print one JSON object per matching line, then a summary (NDJSON)');
  return command.action(
    cliAction(
      async (
        text: string,
        options: {
          regex?: boolean;
          caseSensitive?: boolean;
          ignoreCase?: boolean;
          word?: boolean;
          glob?: string[];
          maxCount?: number;
          timeout?: number;
          json?: boolean;
        },
        self: Command,
      ) => {
        if (options.caseSensitive && options.ignoreCase) throw new CliError('--case-sensitive and --ignore-case contradict each other; give one.', EXIT.usage);
        const globs = options.glob ?? [];
        const search = {
          pattern: text,
          regex: options.regex === true,
          caseSensitive: options.caseSensitive ? true : options.ignoreCase ? false : ('smart' as const),
          wholeWord: options.word === true,
          include: globs.filter((glob) => !glob.startsWith('!')),
          exclude: globs.filter((glob) => glob.startsWith('!')).map((glob) => glob.slice(1)),
          ...(options.maxCount ? { maxMatches: options.maxCount } : {}),
          ...(options.timeout ? { timeoutMs: options.timeout } : {}),
        };
        // The query is checked before the index is opened: a bad pattern costs no build.
        const { compileTextQuery } = await import('../../core/code/text-match.ts');
        const { pathFilter } = await import('../../core/code/path-filter.ts');
        await refusalsAsUsage(async () => {
          compileTextQuery(search);
          pathFilter(search.include, search.exclude);
        });
        await withIndex(self, async (index) => {
          for await (const item of index.searchText(search)) {
            if (options.json) {
              print(`${toJson(item)}\n`);
              continue;
            }
            if (item.type === 'match') {
              const column = item.matches[0]?.column ?? 1;
              print(`${oneLine(item.path)}:${item.line}:${column}:${oneLine(item.preview)}\n`);
            } else if (item.truncated) {
              const why = { matches: `the first ${item.matches} matches`, time: 'the time limit was reached', aborted: 'stopped' }[item.truncated];
              print(`(${why}; ${item.files} files searched)\n`);
            }
          }
        });
      },
    ),
  );
}

function symbolsCommand(): Command {
  const command = codeSubcommand(
    'symbols',
    'find definitions by fuzzy name (Ctrl+T); with --file, those of one file (Ctrl+Shift+O, all of them for an empty QUERY)',
  )
    .argument('[query]', 'part of a name, fuzzy: the characters in order', '')
    .option('--file <path>', 'a workspace-relative file: its definitions only')
    .addOption(new Option('--kind <kinds>', 'kinds to keep, repeatable or comma-separated').choices(SYMBOL_KINDS).argParser(kindList))
    .option('--limit <n>', 'definitions at most (default 50)', positiveInteger)
    .option('--json', 'print a JSON array of definitions (name, kind, container, path, range, signature, doc)');
  return command.action(
    cliAction(async (query: string, options: { file?: string; kind?: string[]; limit?: number; json?: boolean }, self: Command) => {
      if (query.trim() === '' && options.file === undefined) throw new CliError('give a QUERY, or --file to list the definitions of one file.', EXIT.usage);
      await withIndex(self, async (index) => {
        const file = options.file?.replace(/^\.\//, '');
        const hits = await index.findSymbols(query, {
          ...(file !== undefined ? { file } : {}),
          ...(options.kind ? { kinds: options.kind as (typeof SYMBOL_KINDS)[number][] } : {}),
          ...(options.limit ? { limit: options.limit } : {}),
        });
        if (options.json) return printJson(hits);
        if (hits.length === 0) return print(file !== undefined ? `No definitions in ${oneLine(file)} match.\n` : 'No definitions match.\n');
        const rows = hits.map((hit) => [
          `${hit.path}:${hit.nameRange.start.line}:${hit.nameRange.start.column}`,
          hit.kind,
          `${hit.container ? `${hit.container}.` : ''}${hit.name}`,
          hit.signature,
        ]);
        print(`${formatTable(rows)}\n`);
      });
    }),
  );
}

function filesCommand(): Command {
  const command = codeSubcommand('files', 'find files by fuzzy path, as Ctrl+P does')
    .argument('<query>', 'part of a path, fuzzy: the characters in order (a space separates terms that must all match)')
    .option('--limit <n>', 'files at most (default 50)', positiveInteger)
    .option('--json', 'print a JSON array of {path, score, positions, state, language}');
  return command.action(
    cliAction(async (query: string, options: { limit?: number; json?: boolean }, self: Command) => {
      await withIndex(self, async (index) => {
        const hits = await index.findFiles(query, options.limit ? { limit: options.limit } : {});
        if (options.json) return printJson(hits);
        print(hits.map((hit) => `${oneLine(hit.path)}\n`).join(''));
      });
    }),
  );
}
