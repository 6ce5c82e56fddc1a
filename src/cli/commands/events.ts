// `loom events tail`: the live event stream of a running `loom serve` (its /events WebSocket),
// one line per event, or one JSON object per line (NDJSON) with --json, until Ctrl-C (exit 0) or
// the server goes away (said on stderr, exit 3). A gap in the sequence numbers (events dropped because this reader was slow)
// is said on stderr.
import { Command, InvalidArgumentError } from 'commander';
import { EVENT_TYPES as EVENT_TYPE_NAMES } from '../../core/events/bus.ts';
import { CliError, cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { localServerFor, withLocalServerOptions } from '../local-server.ts';
import { oneLine, print, printJson, printProblem } from '../output.ts';

interface StreamMessage {
  type: string;
  seq: number;
  time?: string;
  data?: Record<string, unknown>;
}

/** `loom events …`. */
export function eventsCommand(): Command {
  const tail = new Command('tail')
    .description('print events as they happen, until Ctrl-C (the server stopping ends it with exit 3)')
    .option(
      '--type <types>',
      `only these types, repeatable or comma-separated: ${EVENT_TYPE_NAMES.join(', ')} (a prefix such as agent: keeps a family) (default: all)`,
      typeList,
    )
    .option('--json', 'one JSON object per event and line (NDJSON), as the server sends it');
  withLocalServerOptions(tail).action(
    cliAction(async (options: { type?: string[]; json?: boolean }, self: Command) => {
      const { url, token } = await localServerFor(self);
      const { default: WebSocket } = await import('ws');
      const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/events`, { headers: { authorization: `Bearer ${token}` } });
      const wanted = (type: string) => !options.type || options.type.some((t) => (t.endsWith(':') ? type.startsWith(t) : type === t));
      let lastSeq: number | undefined;
      await new Promise<void>((resolve, reject) => {
        let stopped = false;
        const stop = () => {
          stopped = true;
          socket.close();
          resolve();
        };
        process.once('SIGINT', stop).once('SIGTERM', stop);
        socket.on('unexpected-response', (_request, response) =>
          reject(new CliError(`the event stream at ${url}/events answered ${response.statusCode}; is the token in settings.json the server's?`)),
        );
        socket.on('error', (error) =>
          reject(
            new CliError(`cannot open the event stream at ${url}/events: ${error.message}. Is \`loom serve\` (or \`loom up\`) running?`, EXIT.unreachable),
          ),
        );
        socket.on('message', (raw) => {
          const message = JSON.parse(String(raw)) as StreamMessage;
          if (message.type === 'hello') {
            lastSeq = message.seq;
            printProblem(`following events at ${url}/events (Ctrl-C stops)`);
            return;
          }
          if (lastSeq !== undefined && message.seq > lastSeq + 1) printProblem(`${message.seq - lastSeq - 1} events were dropped (this reader was too slow)`);
          lastSeq = message.seq;
          if (!wanted(message.type)) return;
          if (options.json) printJson(message, 0);
          else print(`${oneLine(message.time ?? '')}  ${oneLine(message.type).padEnd(14)}  ${oneLine(summary(message.data ?? {}))}\n`);
        });
        socket.on('close', (code, reason) => {
          process.removeListener('SIGINT', stop).removeListener('SIGTERM', stop);
          if (stopped) return;
          if (code === 4401) return reject(new CliError('the server closed the stream: its token was rotated (loom token --rotate); run again'));
          // The server went away (it stopped, or the connection broke): said, and exit 3, so a
          // script following the stream knows it ended without being asked to.
          const why = code === 1006 ? 'the connection was lost' : `${code}${reason.length ? ` ${oneLine(String(reason))}` : ''}`;
          reject(
            new CliError(
              `the event stream at ${url}/events ended (${why}): the server stopped. Run again once \`loom serve\` (or \`loom up\`) is back.`,
              EXIT.unreachable,
            ),
          );
        });
      });
    }),
  );
  return new Command('events').description('the live events of a running `loom serve`: saves, completions, agent steps, commits').addCommand(tail);
}

/** An event's data in one line: `key=value` pairs, strings as they are, the rest as JSON. */
function summary(data: Record<string, unknown>): string {
  return Object.entries(data)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
}

function typeList(value: string, previous: string[] = []): string[] {
  const types = value.split(/[\s,]+/).filter(Boolean);
  for (const type of types) {
    const known = EVENT_TYPE_NAMES.some((name) => name === type || (type.endsWith(':') && name.startsWith(type)));
    if (!known) throw new InvalidArgumentError(`one of ${EVENT_TYPE_NAMES.join(', ')}, or a family such as agent:`);
  }
  return [...new Set([...previous, ...types])];
}
