// The exit codes of every `loom` command, documented in docs/cli.md ("Exit codes"). Scripts
// branch on them, so they never change meaning; a new situation gets a new number.

export const EXIT = {
  /** Done as asked. */
  ok: 0,
  /** The operation failed or was refused (a server's refusal, a failed check, a download that broke off). */
  failure: 1,
  /** The command line or the settings are wrong: an unknown option, a bad value, an invalid config file. */
  usage: 2,
  /** A server the command talks to is not running or cannot be reached (start it: loom serve, loom up). */
  unreachable: 3,
  /** Sign-in needed: no stored sign-in for the server, or it no longer takes the stored token (loom login). */
  signInNeeded: 4,
  /** Interrupted (Ctrl-C); a download keeps what arrived and resumes when run again. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
