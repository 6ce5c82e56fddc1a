// `loom code locate` and `loom code map`: the files a task most likely changes, and the
// repository map for a model's prompt (docs/code-intelligence.md#locate). Without a server: the
// index in the data dir is brought up to date first (withCodeIndex), and git history is read
// from the workspace when it has some.
import { Command } from 'commander';
import { CODE_SETTINGS, withCodeIndex } from '../code-index.ts';
import { CliError, cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { addSettingOptions, listOption } from '../options.ts';
import { oneLine, print, printJson } from '../output.ts';

/** Files `loom code locate` lists at most. */
const MAX_LIMIT = 1000;
/** The largest map `loom code map` makes, in tokens. */
const MAX_TOKENS = 1_000_000;

function wholeNumber(max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < 1 || number > max) {
      throw new CliError(`expected a whole number from 1 to ${max}, got "${value}"`, EXIT.usage);
    }
    return number;
  };
}

function task(text: string): string {
  if (text.trim() === '') throw new CliError('give the task in words: an issue, a commit message, a request.', EXIT.usage);
  return text;
}

/** `loom code locate TEXT`. */
export function locateCommand(): Command {
  const command = addSettingOptions(
    new Command('locate')
      .description('the files most likely to need a change for a task in words, best first, with the reasons')
      .argument('<text>', 'the task: an issue, a commit message, a request')
      .option('--limit <n>', `files at most (default 10, at most ${MAX_LIMIT})`, wholeNumber(MAX_LIMIT))
      .option('--no-history', "rank without the workspace's git history")
      .option('--json', 'print {"files": [{"path", "score", "reasons"}]}'),
    CODE_SETTINGS,
  );
  return command.action(
    cliAction(async (text: string, options: { limit?: number; history: boolean; json?: boolean }, self: Command) => {
      const query = task(text);
      const { locateFiles } = await import('../../compose/code-tasks.ts');
      await withCodeIndex(self, async (index) => {
        const files = await locateFiles(index, query, { limit: options.limit ?? 10, ...(options.history ? {} : { history: false }) });
        if (options.json) return printJson({ files });
        if (files.length === 0) return print('No file matches the task.\n');
        const width = Math.max(...files.map((file) => file.score.toFixed(2).length));
        print(
          files
            .map(
              (file) =>
                `${file.score.toFixed(2).padStart(width)}  ${oneLine(file.path)}\n${file.reasons.map((reason) => `${' '.repeat(width + 2)}- ${oneLine(reason)}\n`).join('')}`,
            )
            .join(''),
        );
      });
    }),
  );
}

/** `loom code map [TEXT]`. */
export function mapCommand(): Command {
  const command = addSettingOptions(
    new Command('map')
      .description(
        "a compact map of the repository for a model's prompt: the files that matter for a task and focus files, with their key definitions, within a token budget",
      )
      .argument('[text]', 'the task in words (without it, the files the others use most)')
      .option('--focus <files>', 'workspace-relative files being worked on, shown first (repeatable or comma-separated)', listOption)
      .option('--tokens <n>', `the budget, in estimated tokens (default 1024, at most ${MAX_TOKENS})`, wholeNumber(MAX_TOKENS))
      .option('--no-history', "rank without the workspace's git history")
      .option('--json', 'print {"text", "tokens", "files"}'),
    CODE_SETTINGS,
  );
  return command.action(
    cliAction(async (text: string | undefined, options: { focus?: string[]; tokens?: number; history: boolean; json?: boolean }, self: Command) => {
      const focus = (options.focus ?? []).map((file) => file.replace(/^\.\//, ''));
      const { mapRepository } = await import('../../compose/code-tasks.ts');
      await withCodeIndex(self, async (index) => {
        const request = { ...(text?.trim() ? { task: text } : {}), focus, tokens: options.tokens ?? 1024 };
        const map = await mapRepository(index, request, options.history ? {} : { history: false });
        if (options.json) return printJson(map);
        print(map.text ? `${map.text}\n` : 'The index holds no parsed file to map.\n');
      });
    }),
  );
}
