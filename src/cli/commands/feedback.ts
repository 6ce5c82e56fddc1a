// `loom feedback send`: product feedback to the hosted API (POST /api/v1/feedback), the message
// from --message or stdin. Signed in (loom login), the email may be left out: the server takes
// the signed-in user's.
import { Command } from 'commander';
import { CliError, cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { hostedCall, hostedClientFor, withHostedServerOption } from '../hosted-server.ts';
import { print, printJson } from '../output.ts';

const MAX_MESSAGE = 5000;

/** `loom feedback …`. */
export function feedbackCommand(): Command {
  const send = withHostedServerOption(
    new Command('send')
      .description('send product feedback; the message comes from --message or, without it, stdin')
      .requiredOption('--subject <text>', 'one line, 1 to 200 characters')
      .option('--message <text>', `the feedback, 1 to ${MAX_MESSAGE} characters (default: read from stdin)`)
      .option('--name <name>', 'your name (default: the login of your user account)')
      .option('--email <address>', 'where to answer you; required unless signed in (loom login)')
      .option('--json', 'print {id, ok}'),
  ).action(
    cliAction(async (options: { subject: string; message?: string; name?: string; email?: string; json?: boolean; server?: string }) => {
      const message = options.message ?? (await readStdin());
      if (!message.trim()) throw new CliError('the feedback is empty: give --message TEXT or pipe it on stdin', EXIT.usage);
      const { client, server, signedIn } = await hostedClientFor(options.server);
      if (!signedIn && !options.email) throw new CliError(`not signed in to ${server}: give --email, or sign in first with loom login`, EXIT.usage);
      const name = options.name ?? (await import('node:os')).userInfo().username;
      const body = { name, subject: options.subject, message, ...(options.email ? { email: options.email } : {}) };
      const stored = await hostedCall(() => client.call('submitFeedback', { body }));
      if (options.json) printJson(stored);
      else print(`Sent: feedback ${stored.id}. Thank you.\n`);
    }),
  );
  return new Command('feedback').description('product feedback to the hosted API').addCommand(send);
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new CliError('give the feedback with --message TEXT, or pipe it on stdin', EXIT.usage);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Four bytes per character at most: anything longer cannot be valid, whatever it holds.
    if (size > MAX_MESSAGE * 4) throw new CliError(`the feedback on stdin is longer than ${MAX_MESSAGE} characters`, EXIT.usage);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
