// The window's terminal: a ticket to open `/terminal`, sold only to the signed-in window (the
// route's access, enforced by the guard) of a trusted workspace, and only for the session that
// buys it. The socket itself is src/local/terminal/terminals.ts.
import { LoomError } from '../../core/errors.ts';
import { terminalTicketPurpose } from '../tickets.ts';
import type { LocalAppParts, LocalHandlersOf } from './index.ts';

export function terminalHandlers(app: LocalAppParts): LocalHandlersOf<'Terminal'> {
  return {
    issueTerminalTicket: async (_input, context) => {
      const session = context.cookie.session;
      // The guard let in a window session; without one nothing could redeem the ticket.
      if (session === undefined) throw new LoomError('window_required', 'Only the signed-in window may open a terminal.');
      await app.terminals.checkCanOpen();
      return app.tickets.issue(app.token(), terminalTicketPurpose(session));
    },
  };
}
