// A real HTTP server on loopback standing in for the code host that serves release files.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type UpstreamBehaviour = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface Upstream {
  url: string;
  /** Requests seen, as "METHOD /path". */
  requests: string[];
  behave(path: string, behaviour: UpstreamBehaviour): void;
  close(): Promise<void>;
}

export const respond =
  (status: number, headers: Record<string, string> = {}): UpstreamBehaviour =>
  (_request, response) => {
    response.writeHead(status, headers).end(status < 300 ? 'release bytes' : '');
  };

export async function startUpstream(): Promise<Upstream> {
  const behaviours = new Map<string, UpstreamBehaviour>();
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    (behaviours.get(request.url ?? '') ?? respond(404))(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave: (path, behaviour) => behaviours.set(path, behaviour),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
