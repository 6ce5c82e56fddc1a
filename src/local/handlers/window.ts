// The window's sign-in and its file tree. Signing in trades a one-time code (or the token) for
// a session cookie and its CSRF value; the guard lets the cookie in (window/sign-in.ts). Only a
// session from a one-time code may call what runs code (`runsCode`, access `window`).
import { LoomError } from '../../core/errors.ts';
import { listFolderOf } from '../../core/workspace/folder-listing.ts';
import { SIGN_IN_CODE_SECONDS } from '../window/sign-in.ts';
import type { LocalAppParts, LocalHandlersOf, LocalServices } from './index.ts';

export function windowHandlers(services: LocalServices, app: LocalAppParts): LocalHandlersOf<'Window'> {
  const noSession = () =>
    new LoomError(
      'unauthorized',
      'No window session: this request carries no live session cookie.',
      'Open the window with loom open (the app running), or loom serve --open.',
    );
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
              'Run loom open for a new one (or loom serve --open, loom up --open).',
            )
          : new LoomError('unauthorized', 'That is not the API token.', 'loom token prints it.');
      }
      const viaLink = code !== undefined;
      const session = app.signIn.startSession({ viaLink });
      context.cookie.set(session.id);
      return { csrf: session.csrf, runsCode: viaLink };
    },
    getWindowSession: async (_input, context) => {
      const id = context.cookie.session;
      const session = id === undefined ? undefined : app.signIn.session(id);
      if (!session) throw noSession();
      return { csrf: session.csrf, runsCode: session.viaLink };
    },
    endWindowSession: async (_input, context) => {
      const id = context.cookie.session;
      if (id === undefined) throw noSession();
      app.signIn.endSession(id);
      // What the session opened that runs code ends with it.
      app.terminals.endWindowSession(id);
      context.cookie.set(null);
      return { signedOut: true as const };
    },
    createSignInLink: async ({ body }) => {
      if (!app.signIn.isLinkKey(body.key))
        throw new LoomError(
          'forbidden',
          "A sign-in link needs this machine's link key besides the token: the one in the data dir, which loom open reads.",
          'Run loom open (or loom serve --open) as the user who runs Loom.',
        );
      return { url: `http://127.0.0.1:${app.port()}/?code=${app.signIn.mintCode()}`, expiresIn: SIGN_IN_CODE_SECONDS };
    },
    listFolder: async ({ query }) => listFolderOf(services.paths, query.path),
  };
}
