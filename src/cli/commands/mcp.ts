// `loom mcp`: an MCP server over stdio through which any MCP client (VS Code, Claude Code,
// Cursor, the MCP Inspector) drives the RUNNING desktop app (`loom serve`, `loom up`) through
// its local API. The app is found as `loom token` and `loom agent` find it: the port setting
// (`--port`, LOOM_LOCAL_PORT, the config file) and the token in settings.json of the config
// folder; `--url`/LOOM_LOCAL_URL and LOOM_LOCAL_TOKEN override them. stdout is the protocol:
// this command prints nothing else there, and nothing on stderr unless asked (--verbose).
//
// The SDK and the tools load only when the command runs, so that other commands do not pay for them.
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { LocalApiError } from '../../client/local.ts';
import { LOOM_VERSION } from '../../config/version.ts';
import { CliError, cliAction } from '../errors.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { printProblem } from '../output.ts';

type Env = Record<string, string | undefined>;

interface McpOptions {
  url?: string;
  verbose?: boolean;
}

const INSTRUCTIONS =
  "Drives the running Loom desktop app (`loom serve`) through its local API: the open documents of its workspace (the active file, open, insert, replace, save), AI completion, agent tasks and git. Every call is judged by the app as any other: edits stay inside the workspace, never land in .git/ or .loom/, and draw on the app's rate limits. Positions are 1-based lines and columns. A failure is a tool result with isError and the app's error envelope ({error: {code, message, hint?}}) as JSON text.";

/**
 * `loom mcp`.
 *
 * @example
 * // claude mcp add loom -- loom mcp
 * // { "servers": { "loom": { "type": "stdio", "command": "loom", "args": ["mcp"] } } }   (.vscode/mcp.json)
 */
export function mcpCommand(): Command {
  const command = new Command('mcp')
    .description('an MCP server on stdio that drives the running desktop app (`loom serve`) for an MCP client')
    .option(
      '--url <url>',
      'the local API of the running app (env LOOM_LOCAL_URL; default http://127.0.0.1:<port>); its token: env LOOM_LOCAL_TOKEN, else settings.json',
    )
    .option('--verbose', 'report messages that could not be read on stderr');
  return addSettingOptions(command, ['local.port', 'configDir']).action(
    cliAction(async (options: McpOptions, self: Command) => {
      // Loaded here, not at start: the client brings the route table and its schemas (loom --help stays quick).
      const [{ buildLocalTools }, { serveStdio }, { LocalApiError }] = await Promise.all([
        import('../../mcp/local-tools.ts'),
        import('../../mcp/stdio-server.ts'),
        import('../../client/local.ts'),
      ]);
      const findApp = appFinder(self, options.url, process.env, LocalApiError);
      const server = await serveStdio({
        info: { name: 'loom-desktop', title: 'Loom desktop app', version: LOOM_VERSION },
        instructions: INSTRUCTIONS,
        tools: buildLocalTools(findApp),
        onError: options.verbose ? (error) => printProblem(`mcp: ${error.message}`) : undefined,
      });
      await server.closed;
    }),
  );
}

/**
 * Where the app answers, fixed at start, and its token, read at each call: the app may be started,
 * or its token rotated, while an MCP client keeps `loom mcp` running.
 */
function appFinder(command: Command, urlFlag: string | undefined, env: Env, apiError: typeof LocalApiError): () => { url: string; token: string } {
  const { local } = configFromOptions(command);
  const url = localUrl(urlFlag, env) ?? `http://127.0.0.1:${local.port}`;
  return () => ({ url, token: env.LOOM_LOCAL_TOKEN || settingsToken(local.configDir, apiError) });
}

function localUrl(flag: string | undefined, env: Env): string | undefined {
  const [source, value] = flag !== undefined ? ['--url', flag] : ['LOOM_LOCAL_URL', env.LOOM_LOCAL_URL];
  if (value === undefined || value === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new CliError(`${source}: "${value}" is not a URL.`, 2);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CliError(`${source}: "${value}" is not an http or https URL.`, 2);
  return parsed.origin;
}

/**
 * The token of settings.json, read but never created: a folder without one has never run the app,
 * so there is no app to call (and `loom serve` creates it on its first run).
 */
function settingsToken(configDir: string, apiError: typeof LocalApiError): string {
  const file = path.join(configDir, 'settings.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`Cannot read ${file}: ${(error as Error).message}`);
    throw new apiError(0, 'UNREACHABLE', `No settings.json in ${configDir}: the desktop app has not run with this config folder.`);
  }
  let token: unknown;
  try {
    token = (JSON.parse(text) as { apiToken?: unknown }).apiToken;
  } catch {
    throw new Error(`${file} is not JSON; \`loom serve\` says what is wrong with it.`);
  }
  if (typeof token !== 'string' || token === '') throw new Error(`${file} has no apiToken; \`loom token --rotate\` writes one.`);
  return token;
}
