// The window's sign-in and its file tree. Signing in trades a one-time code (or the token) for
// a session cookie and its CSRF value; the guard lets the cookie in (window/sign-in.ts).
import { LoomError } from '../../core/errors.ts';
import { listFolderOf } from '../../core/workspace/folder-listing.ts';
import type { LocalAppParts, LocalHandlersOf, LocalServices } from './index.ts';

export function windowHandlers(services: LocalServices, app: LocalAppParts): LocalHandlersOf<'Window'> {
  const noSession = () =>
    new LoomError('unauthorized', 'No window session: this request carries no live session cookie.', 'Open the window with loom serve --open.');
  return {
    startWindowSession: async ({ body }, context) => {
      const { code, token } = body;
      if ((code === undefined) === (token === undefined)) throw new LoomError('validation_error', 'Send either a sign-in code or the API token.');
      const valid = code !== undefined ? app.signIn.redeemCode(code) : app.signIn.isToken(token!);
      if (!valid) {
        throw code !== undefined
          ? new LoomError(
              'unauthorized',
              'This sign-in link was already used, has expired or is not valid.',
              'Run loom serve --open (or loom up --open) for a new one.',
            )
          : new LoomError('unauthorized', 'That is not the API token.', 'loom token prints it.');
      }
      const session = app.signIn.startSession();
      context.cookie.set(session.id);
      return { csrf: session.csrf };
    },
    getWindowSession: async (_input, context) => {
      const id = context.cookie.session;
      const session = id === undefined ? undefined : app.signIn.session(id);
      if (!session) throw noSession();
      return { csrf: session.csrf };
    },
    endWindowSession: async (_input, context) => {
      const id = context.cookie.session;
      if (id === undefined) throw noSession();
      app.signIn.endSession(id);
      context.cookie.set(null);
      return { signedOut: true as const };
    },
    listFolder: async ({ query }) => listFolderOf(services.paths, query.path),
  };
}
