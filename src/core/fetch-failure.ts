// What went wrong on the wire when fetch() rejects: undici puts the system error (ECONNREFUSED,
// ENOTFOUND, ECONNRESET…) in `cause` and only says "fetch failed" itself.

/** The system error code of a fetch failure, when there is one. */
export function fetchFailureCode(error: unknown): string | undefined {
  return ((error as { cause?: NodeJS.ErrnoException })?.cause ?? (error as NodeJS.ErrnoException))?.code;
}

/** A short description of a fetch failure: the code and the message of its cause. */
export function describeFetchFailure(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  const code = (cause as NodeJS.ErrnoException)?.code;
  const message = (cause as Error)?.message ?? String(cause);
  return code && !message.includes(code) ? `${code} ${message}` : message;
}
