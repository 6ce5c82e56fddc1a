import { Command } from 'commander';
import { MCP_PATH } from '../../contracts/mcp.ts';
import { startHosted, type RunningHosted } from '../../hosted/server.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { print } from '../output.ts';
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
  const command = new Command('hosted').description('start the hosted API (downloads, models, feedback, OpenAPI) and its MCP server');
  return addSettingOptions(command, SERVER_SETTINGS).action(async (_options, command: Command) => {
    const config = configFromOptions(command);
    const hosted = await startHosted(config);
    // Signals are handled before the banner: whoever waits for it may send one at once.
    closeOnSignal([hosted]);
    printStarted(hosted);
  });
}

export function printStarted(hosted: RunningHosted): void {
  const lines = [
    `Loom hosted API   ${hosted.url}/api/v1   (store: ${hosted.store.dialect} ${hosted.store.location})`,
    `  OpenAPI         ${hosted.publicUrl}/openapi.json`,
    `  Index           ${hosted.publicUrl}/llms.txt`,
    `  MCP             ${hosted.publicUrl}${MCP_PATH}`,
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
