// Which sign-in provider `loom login` uses: the server lists the ones it has in its
// authorization server metadata (`loom_sign_in_providers`); the only one is used, `--provider`
// picks one, and on a terminal the user is asked. Settled before any browser opens.
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { CliError } from '../errors.ts';

export const SIGN_IN_PROVIDERS = ['codehost', 'oidc'] as const;
export type SignInProviderId = (typeof SIGN_IN_PROVIDERS)[number];

const LABELS: Record<SignInProviderId, string> = {
  codehost: 'your code host (GitHub, GitHub Enterprise, Gitea, Forgejo)',
  oidc: 'single sign-on (OpenID Connect)',
};

/** Asks the user to pick one of `providers`; resolves to the one picked. */
export type ProviderPicker = (providers: readonly SignInProviderId[]) => Promise<SignInProviderId>;

/**
 * The provider to sign in through. `offered` is the server's list; undefined means a server
 * from before the list, which only ever had the code host.
 */
export async function chooseProvider(
  server: string,
  offered: readonly string[] | undefined,
  asked: SignInProviderId | undefined,
  pick?: ProviderPicker,
): Promise<SignInProviderId> {
  const available = (offered ?? ['codehost']).filter((id): id is SignInProviderId => (SIGN_IN_PROVIDERS as readonly string[]).includes(id));
  if (available.length === 0) {
    throw new CliError(
      `${server} has no sign-in provider configured; its operator sets LOOM_CODEHOST_CLIENT_ID and LOOM_CODEHOST_CLIENT_SECRET, or LOOM_OIDC_ISSUER, LOOM_OIDC_CLIENT_ID and LOOM_OIDC_CLIENT_SECRET (docs/auth.md)`,
    );
  }
  if (asked) {
    if (!available.includes(asked)) throw new CliError(`${server} does not offer sign-in through ${asked}; it offers ${available.join(' and ')}`);
    return asked;
  }
  if (available.length === 1) return available[0]!;
  if (pick) return pick(available);
  throw new CliError(`${server} offers sign-in through ${available.join(' and ')}; choose one with --provider ${available.join('|')}`, 2);
}

/** Asks on a terminal: a numbered list, Enter for the first. */
export function askProvider(input: Readable, output: Writable): ProviderPicker {
  return async (providers) => {
    const noChoice = () => new CliError(`no sign-in provider chosen; use --provider ${providers.join('|')}`, 2);
    const rl = readline.createInterface({ input, terminal: false });
    // The iterator keeps lines that arrive before they are asked for; its end (Ctrl-D, a closed
    // pipe) is no answer, not a wait without end.
    const lines = rl[Symbol.asyncIterator]();
    try {
      output.write(`Sign in through:\n${providers.map((id, i) => `  ${i + 1}) ${id}: ${LABELS[id]}`).join('\n')}\n`);
      for (let attempt = 0; attempt < 3; attempt++) {
        output.write(`Choose 1-${providers.length} [1]: `);
        const line = await lines.next();
        if (line.done) throw noChoice();
        const answer = line.value.trim();
        if (answer === '') return providers[0]!;
        const byNumber = /^\d+$/.test(answer) ? providers[Number(answer) - 1] : undefined;
        const chosen = byNumber ?? providers.find((id) => id === answer.toLowerCase());
        if (chosen) return chosen;
        output.write(`"${answer.replace(/[^\x20-\x7e]/g, '?').slice(0, 40)}" is not one of them.\n`);
      }
      throw noChoice();
    } finally {
      rl.close();
    }
  };
}
