// The window's page at `/` and its static files (window.js, window.css and the chunks window.js
// loads when a part is first opened), public routes (they hold no data: what the
// page shows, it fetches with its session). The page carries no token, no code and no
// session: it reads the one-time code from its own address, trades it, and removes it.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { LoomError } from '../../core/errors.ts';
import { CHUNK_FOLDER, chunkPath, DEFAULT_BUNDLE_PATHS, ensureWindowBundle, type WindowBundlePaths } from './bundle.ts';

export interface WindowPageOptions {
  bundle?: WindowBundlePaths;
}

/**
 * Scripts only from this origin (the chunks too), nothing inline; styles from here and inline (CodeMirror
 * writes its own); connections only back to this origin (the event socket included); no
 * frame may embed the window.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Loom</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/window.css">
<script type="module" src="/window.js"></script>
</head>
<body>
<noscript>The Loom window needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;

/** A loom's warp and weft. */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2f6feb"/><path d="M4 3v10M8 3v10M12 3v10M2 6h12M2 10h12" stroke="#fff" stroke-width="1.4"/></svg>';

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cross-origin-resource-policy', 'same-origin');
}

/**
 * Registers `/`, `/window.js`, `/window.css`, `/chunks/<name>-<hash>.js` and `/favicon.svg`. The bundle is checked (and built when missing
 * or stale) on the first request for one of them, not at start: a server nobody opens a window
 * on never pays for it.
 *
 * @example
 *   await registerWindowPage(app); // then GET / serves the window
 */
export async function registerWindowPage(app: FastifyInstance, options: WindowPageOptions = {}): Promise<void> {
  const paths = options.bundle ?? DEFAULT_BUNDLE_PATHS;
  let ready: ReturnType<typeof ensureWindowBundle> | undefined;
  const bundle = async () => {
    const state = await (ready ??= ensureWindowBundle(paths));
    if (state.problem) app.log.warn({ problem: state.problem }, "the window's bundle could not be built");
    if (!state.ready) {
      ready = undefined; // Try again on the next request.
      throw new LoomError('not_found', "The window's files are not built.", 'Run npm run build:web in the Loom checkout.');
    }
  };
  const config = { access: 'public' as const };
  app.get('/', { config }, async (_request, reply) => {
    await bundle();
    return securityHeaders(reply).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(PAGE);
  });
  const file = (name: string, type: string) =>
    app.get(`/${name}`, { config }, async (_request, reply) => {
      await bundle();
      const body = fs.readFileSync(path.join(paths.output, name));
      return securityHeaders(reply).header('cache-control', 'no-cache').type(type).send(body);
    });
  app.get('/favicon.svg', { config }, async (_request, reply) =>
    securityHeaders(reply).header('cache-control', 'max-age=86400').type('image/svg+xml').send(ICON),
  );
  file('window.js', 'text/javascript; charset=utf-8');
  file('window.css', 'text/css; charset=utf-8');
  // A chunk's name holds its content's hash: the same name is always the same file, cached for good.
  app.get<{ Params: { name: string } }>(`/${CHUNK_FOLDER}/:name`, { config }, async (request, reply) => {
    await bundle();
    const file = chunkPath(paths, request.params.name);
    const body = file ? readIfThere(file) : undefined;
    if (!body) throw new LoomError('not_found', 'No such file of the window.');
    return securityHeaders(reply).header('cache-control', 'public, max-age=31536000, immutable').type('text/javascript; charset=utf-8').send(body);
  });
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}
