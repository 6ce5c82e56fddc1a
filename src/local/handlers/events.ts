// Tickets for the event stream: a browser page cannot set headers on a WebSocket, so it buys a
// single-use ticket with its token over HTTP. The stream itself is events-socket.ts.
import type { LocalAppParts, LocalHandlersOf } from './index.ts';

export function eventHandlers(app: LocalAppParts): LocalHandlersOf<'Events'> {
  return {
    issueEventTicket: async () => app.tickets.issue(app.token()),
  };
}
