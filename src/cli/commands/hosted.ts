import { Command } from 'commander';
import type { RunningHosted } from '../../hosted/server.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { print, printJson } from '../output.ts';
import { COMPLETION_SETTINGS } from './complete.ts';

export const SERVER_SETTINGS = [
  'dataDir',
  'hosted.port',
  'hosted.host',
  'publicUrl',
  'rateLimit.max',
  'catalog',
  'logLevel',
  'corpusDir',
  ...COMPLETION_SETTINGS,
] as const;

export function hostedCommand(): Command {
  const command = new Command('hosted')
    .description('start the hosted API (downloads, models, feedback, OpenAPI) and its MCP server')
    .option('--json', 'once listening, print one line of JSON: {hosted: {url, api, openapi, mcp, store}}');
  return addSettingOptions(command, SERVER_SETTINGS).action(async (options: { json?: boolean }, command: Command) => {
    const config = configFromOptions(command);
    const [{ startHosted }, { MCP_PATH }] = await Promise.all([import('../../hosted/server.ts'), import('../../contracts/mcp.ts')]);
    const hosted = await startHosted(config);
    // Signals are handled before the banner: whoever waits for it may send one at once.
    closeOnSignal([hosted]);
    if (options.json) printJson({ hosted: hostedView(hosted, MCP_PATH) }, 0);
    else printStarted(hosted, MCP_PATH);
  });
}

/** Where the hosted API listens, for --json; `mcpPath` is contracts/mcp.ts's MCP_PATH (loaded with the server, not at start). */
export function hostedView(hosted: RunningHosted, mcpPath: string): Record<string, string> {
  return {
    url: hosted.url,
    api: `${hosted.url}/api/v1`,
    openapi: `${hosted.publicUrl}/openapi.json`,
    mcp: `${hosted.publicUrl}${mcpPath}`,
    store: `${hosted.store.dialect} ${hosted.store.location}`,
  };
}

export function printStarted(hosted: RunningHosted, mcpPath: string): void {
  const lines = [
    `Loom hosted API   ${hosted.url}/api/v1   (store: ${hosted.store.dialect} ${hosted.store.location})`,
    `  OpenAPI         ${hosted.publicUrl}/openapi.json`,
    `  Index           ${hosted.publicUrl}/llms.txt`,
    `  MCP             ${hosted.publicUrl}${mcpPath}`,
  ];
  print(lines.join('\n') + '\n');
}

/** Closes servers on SIGINT/SIGTERM so that in-flight requests finish and the store is closed. */
export function closeOnSignal(servers: { close(): Promise<void> }[]): void {
  let closing = false;
  const stop = async () => {
    if (closing) process.exit(1);
    closing = true;
    await Promise.allSettled(servers.map((s) => s.close()));
    process.exit(0);
  };
  // One listener per signal: the first signal closes gracefully, a second one exits at once.
  process.on('SIGINT', stop).on('SIGTERM', stop);
}
