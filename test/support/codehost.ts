// A real OAuth server on loopback standing in for the code host (GitHub's OAuth app protocol:
// /login/oauth/authorize, /login/oauth/access_token, /user, /user/emails). The only fake in
// the suite: the real code host cannot be reached from here.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CodeHostUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
  verified?: boolean;
  /** What /user/emails lists; by default `email`, primary, verified unless `verified` is false. */
  emails?: Array<{ email: string; primary: boolean; verified: boolean }>;
}

/** Takes over one path of the code host: what it answers instead. */
export type Behaviour = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface FakeCodeHost {
  url: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** Who the next authorization signs in as. */
  signInAs(user: CodeHostUser): void;
  /** Make the next authorization fail with this OAuth error (e.g. access_denied). */
  denyNext(error: string): void;
  /** Answer `path` (e.g. /api/user, /login/oauth/access_token) this way until cleared. */
  behave(path: string, behaviour: Behaviour | undefined): void;
  /** Requests seen, as "METHOD /path". */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeCodeHost(): Promise<FakeCodeHost> {
  const clientId = 'codehost-client';
  const clientSecret = 'codehost-secret';
  let user: CodeHostUser = { id: 1001, login: 'ada', name: 'Ada Lovelace', email: 'ada@example.com', verified: true };
  let deny: string | undefined;
  const codes = new Map<string, { user: CodeHostUser; redirectUri: string }>();
  const tokens = new Map<string, CodeHostUser>();
  const requests: string[] = [];
  const behaviours = new Map<string, Behaviour>();

  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://codehost');
    requests.push(`${request.method} ${url.pathname}`);
    const send = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const behaviour = behaviours.get(url.pathname);
    if (behaviour) return behaviour(request, response);

    if (request.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      const target = new URL(redirectUri);
      if (url.searchParams.get('client_id') !== clientId) return send(400, { error: 'unknown client' });
      if (deny) {
        target.searchParams.set('error', deny);
        deny = undefined;
      } else {
        const code = randomBytes(10).toString('hex');
        codes.set(code, { user, redirectUri });
        target.searchParams.set('code', code);
      }
      target.searchParams.set('state', url.searchParams.get('state') ?? '');
      return response.writeHead(302, { location: target.toString() }).end();
    }
    if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await readBody(request));
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) return send(200, { error: 'incorrect_client_credentials' });
      if (!pending || pending.redirectUri !== form.get('redirect_uri')) return send(200, { error: 'bad_verification_code' });
      const token = `gho_${randomBytes(12).toString('hex')}`;
      tokens.set(token, pending.user);
      return send(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const who = tokens.get((request.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (url.pathname === '/api/user') {
      if (!who) return send(401, { message: 'Bad credentials' });
      return send(200, { id: who.id, login: who.login, name: who.name, email: who.verified === false ? null : who.email });
    }
    if (url.pathname === '/api/user/emails') {
      if (!who) return send(401, { message: 'Bad credentials' });
      return send(200, who.emails ?? (who.email ? [{ email: who.email, primary: true, verified: who.verified !== false }] : []));
    }
    send(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    apiUrl: `${url}/api`,
    clientId,
    clientSecret,
    signInAs: (next) => (user = next),
    denyNext: (error) => (deny = error),
    behave: (path, behaviour) => (behaviour ? behaviours.set(path, behaviour) : behaviours.delete(path)),
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request
      .setEncoding('utf8')
      .on('data', (chunk: string) => (body += chunk))
      .on('end', () => resolve(body));
  });
}
