import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { CliError, cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { print, printJson, printProblem } from '../output.ts';

/** The completion settings with flags, offered by every command that completes. */
export const COMPLETION_SETTINGS = ['modelsDir', 'completion.provider', 'gguf.model'] as const;
const COMPLETE_SETTINGS = ['workspace', 'catalog', 'configDir', ...COMPLETION_SETTINGS] as const;

/** `loom complete FILE:LINE:COL`, or `loom complete --language L < text`: a completion at a cursor, from the same engine as the servers. */
export function completeCommand(): Command {
  const command = new Command('complete')
    .description(
      'print the completion at FILE:LINE:COL (1-based), or at the end of the text on stdin; from the builtin model trained on the workspace or the configured provider',
    )
    .argument('[cursor]', 'FILE:LINE:COL, e.g. src/cli/main.ts:60:20; without it, the text on stdin is what comes before the cursor')
    .option('--language <id>', 'the language of the text on stdin, e.g. typescript, python (default for a file: from its name)')
    .option('--model <name>', 'a provider or model name (builtin, gguf, openai, or a model name); the configured default otherwise')
    .option('--json', 'print {completion, continuation?, tokens, model, latencyMs}');
  return addSettingOptions(command, COMPLETE_SETTINGS).action(
    cliAction(async (cursorArgument: string | undefined, options: { language?: string; model?: string; json?: boolean }, self: Command) => {
      const config = configFromOptions(self);
      const request = cursorArgument === undefined ? await fromStdin(options.language) : fromFile(cursorArgument);
      const [
        { createCompletionEngine },
        { explainSettings, settingFiles },
        { loadCatalog },
        { BuiltinModel, BuiltinProvider, trainOnFolder },
        { detectLanguage },
        { WorkspacePaths },
        { loomFolders },
      ] = await Promise.all([
        import('../../compose/completion.ts'),
        import('../../config/setting-places.ts'),
        import('../../core/catalog/load.ts'),
        import('../../core/completion/builtin/index.ts'),
        import('../../core/workspace/language.ts'),
        import('../../core/workspace/paths.ts'),
        import('../../config/folders.ts'),
      ]);
      const model = new BuiltinModel();
      const workspace = config.local.workspace;
      let filePath: string | undefined;
      if (request.file) {
        const relative = path.relative(workspace, request.file).split(path.sep).join('/');
        filePath = !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : request.file;
      }
      const wantsBuiltin = (options.model ?? config.completion.provider) === 'builtin';
      // Through the workspace's gate, as the servers learn it: never Loom's own folders.
      if (wantsBuiltin && fs.statSync(workspace, { throwIfNoEntry: false })?.isDirectory()) {
        await trainOnFolder(model, new WorkspacePaths(workspace, { loomFolders: loomFolders(config) }));
      }
      const engine = createCompletionEngine(
        {
          builtin: new BuiltinProvider(model),
          catalog: loadCatalog(config.catalog),
          modelsDir: config.modelsDir,
          explain: explainSettings(settingFiles(config)),
        },
        () => config.completion,
      );
      try {
        const result = await engine.complete({
          prefix: request.prefix,
          suffix: request.suffix,
          language: options.language ?? (request.file ? detectLanguage(request.file, request.prefix + request.suffix) : 'plaintext'),
          ...(filePath ? { filePath } : {}),
          model: options.model,
          caller: 'cli',
        });
        if (options.json) {
          const { completion, continuation, tokens, model, latencyMs } = result;
          printJson({ completion, ...(continuation && { continuation }), tokens, model, latencyMs }, 0);
        } else if (result.completion) {
          // A model wrote this (and a prompt-injected one may write anything): lines and tabs
          // stay, anything a terminal would act on is escaped.
          print(result.completion + '\n');
        } else {
          printProblem('no completion here (the model is not sure of one)');
        }
      } finally {
        await engine.close();
      }
    }),
  );
}

interface CompletionInput {
  prefix: string;
  suffix: string;
  /** Absolute path of the file, when the cursor is in one. */
  file?: string;
}

function fromFile(cursorArgument: string): CompletionInput {
  const { file, line, column } = parseCursor(cursorArgument);
  const absolute = path.resolve(file);
  // A relative FILE is taken from the current folder, not from --workspace: say where it looked.
  if (!fs.existsSync(absolute)) throw new CliError(`there is no file ${absolute}; FILE:LINE:COL names a file from the current folder`);
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const offset = offsetOf(text, line, column);
  return { prefix: text.slice(0, offset), suffix: text.slice(offset), file: absolute };
}

/** The most stdin may hold: the local API's own limit on a prompt. */
const MAX_STDIN_BYTES = 4_000_000;

async function fromStdin(language: string | undefined): Promise<CompletionInput> {
  if (!language) throw new CliError('give FILE:LINE:COL, or --language with the text before the cursor on stdin', EXIT.usage);
  if (process.stdin.isTTY)
    throw new CliError('pipe the text before the cursor on stdin (e.g. printf "def add(a, b):\\n    return " | loom complete --language python)', EXIT.usage);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_STDIN_BYTES) throw new CliError(`stdin holds more than ${MAX_STDIN_BYTES} bytes`, EXIT.usage);
    chunks.push(chunk);
  }
  return { prefix: Buffer.concat(chunks).toString('utf8'), suffix: '' };
}

/** `FILE:LINE:COL`, splitting from the right so that `C:\\src\\a.ts:3:1` works. */
export function parseCursor(value: string): { file: string; line: number; column: number } {
  const match = /^(.+):(\d+):(\d+)$/.exec(value);
  if (!match) throw new CliError(`expected FILE:LINE:COL (1-based), got ${JSON.stringify(value)}`, 2);
  return { file: match[1]!, line: Number(match[2]), column: Number(match[3]) };
}

/** Offset of a 1-based line and column (UTF-16 code units; one past the line's end allowed). */
function offsetOf(text: string, line: number, column: number): number {
  let start = 0;
  for (let current = 1; current < line; current++) {
    const newline = text.indexOf('\n', start);
    if (newline === -1) throw new CliError(`line ${line} is past the end of the file (it has ${current} lines)`, 2);
    start = newline + 1;
  }
  const end = text.indexOf('\n', start);
  const length = (end === -1 ? text.length : end) - start;
  if (line < 1 || column < 1 || column > length + 1) throw new CliError(`column ${column} is outside 1..${length + 1} on line ${line}`, 2);
  return start + column - 1;
}
