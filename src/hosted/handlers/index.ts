// The hosted operations' handlers: typed input in, typed output out, no framework objects.
// Shared by the HTTP routes (and, later, the MCP tools).
import type { CodeHostAuthQuery, SignInRedirect } from '../../contracts/auth.ts';
import type { AnyOperation, OperationInput, OperationOutput } from '../../contracts/operations.ts';
import type { ApiVersion } from '../../contracts/versioning.ts';
import type { Catalog } from '../../core/catalog/schema.ts';
import type { CompletionEngine } from '../../core/completion/engine.ts';
import type { ComposerService } from '../../core/composer/service.ts';
import { composerSessionView as sessionView } from '../../core/composer/view.ts';
import { findAsset, listDownloads } from '../../core/downloads.ts';
import { LoomError } from '../../core/errors.ts';
import type { FeedbackService } from '../../core/feedback/feedback.ts';
import { basicHealth, detailedHealth, type HealthDeps } from '../../core/health.ts';
import type { Identity } from '../../core/identity/index.ts';
import type { ModelListing } from '../../core/catalog/model-listing.ts';
import type { Principal } from '../../core/identity/tokens.ts';
import type { ReleaseChecker } from '../../core/releases/release-checker.ts';
import { signInCookie } from '../web/cookies.ts';

export interface HandlerContext {
  version: ApiVersion;
  client: { ip: string; userAgent?: string };
  /** The verified caller, when a bearer token was sent and accepted. */
  principal?: Principal;
  /** OAuth client credentials sent as `Authorization: Basic` (token endpoint only). */
  basicAuth?: { username: string; password: string };
  /** Aborted when the client goes away before the answer (long-running handlers stop then). */
  readonly signal: AbortSignal;
  /** The `Last-Event-ID` header of a stream's request (a client resuming). */
  readonly lastEventId?: string;
}

export type Handlers = {
  [O in AnyOperation as O['operationId']]: (input: OperationInput<O>, context: HandlerContext) => Promise<OperationOutput<O>>;
};

export interface HandlerServices {
  catalog: Catalog;
  /** The catalog's models as installed in this server's models folder. */
  models: ModelListing;
  releases: ReleaseChecker;
  feedback: FeedbackService;
  health: HealthDeps;
  identity: Identity;
  completion: CompletionEngine;
  composer: ComposerService;
}

/**
 * One handler per operation of the table, by operationId: typed input and a context in, the
 * operation's answer out. The routes (routes/operations.ts) call them; so can anything else
 * that serves the operations.
 *
 * @example
 * const handlers = createHandlers(services);
 * const { models } = await handlers.listModels({ params: undefined, query: undefined, body: undefined }, context);
 */
export function createHandlers(services: HandlerServices): Handlers {
  const { identity } = services;
  return {
    getHealth: async (_input, { version }) => (version === 'v2' ? detailedHealth(services.health) : basicHealth(services.health)),

    listDownloads: async ({ query }) => ({ products: listDownloads(services.catalog, query) }),

    getDownloadAsset: async ({ params }) => {
      const asset = findAsset(services.catalog, params.product, params.asset);
      await services.releases.verify(asset.url);
      return asset;
    },

    listModels: async () => ({ models: services.models.listing() }),

    submitFeedback: async ({ body }, { client, principal }) => {
      const user = principal?.userId ? await identity.users.get(principal.userId) : undefined;
      const email = body.email ?? user?.email;
      if (!email) {
        throw new LoomError(
          'validation_error',
          principal ? 'Invalid request: body.email is required: the signed-in user has no email.' : 'Invalid request: body.email is required without a token.',
        );
      }
      const record = await services.feedback.submit({ ...body, email }, client);
      return { id: record.id, ok: true };
    },

    startCodeHostAuth: async ({ query }) => startSignIn(identity, 'codehost', query),

    startOidcAuth: async ({ query }) => startSignIn(identity, 'oidc', query),

    exchangeToken: async ({ body }, { basicAuth }) => {
      if (basicAuth && (body.client_secret || (body.client_id && body.client_id !== basicAuth.username))) {
        throw new LoomError('invalid_request', 'Send client credentials once: in Authorization: Basic or in the body, not both.');
      }
      const client = await identity.clients.authenticate(basicAuth?.username ?? body.client_id, basicAuth?.password ?? body.client_secret);
      return identity.oauth.token(body, client);
    },

    tabComplete: async ({ body }, { principal, signal }) => {
      const result = await services.completion.complete({ ...body, caller: callerOf(principal), signal });
      return {
        completion: result.completion,
        ...(result.continuation && { continuation: result.continuation }),
        latencyMs: result.latencyMs,
        model: result.model,
      };
    },

    createComposerSession: async ({ body }, { principal }) => services.composer.create(ownerOf(principal), body),

    getComposerSession: async ({ params }, { principal }) => sessionView(await services.composer.get(ownerOf(principal), params.sessionId)),

    cancelComposerSession: async ({ params }, { principal }) => sessionView(await services.composer.cancel(ownerOf(principal), params.sessionId)),

    continueComposerSession: async ({ params, body }, { principal }) =>
      sessionView(await services.composer.continue(ownerOf(principal), params.sessionId, body)),

    streamComposerEvents: async ({ params, query }, { principal, signal, lastEventId }) => {
      const resumeFrom = lastEventId !== undefined && /^\d{1,15}$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : undefined;
      return services.composer.follow(ownerOf(principal), params.sessionId, resumeFrom ?? query.after ?? 0, signal);
    },
  };
}

/** The user a composer session belongs to: tokens that carry write:composer always name one. */
function ownerOf(principal: Principal | undefined): string {
  if (!principal?.userId) throw new LoomError('unauthorized', 'Composer sessions belong to a user: sign in, or use a user API key.');
  return principal.userId;
}

/** The redirect to the provider, with the cookie that binds a web sign-in to this browser. */
async function startSignIn(identity: Identity, provider: string, query: CodeHostAuthQuery): Promise<SignInRedirect> {
  const { location, browserSecret } = await identity.signIn.start(provider, query);
  return browserSecret ? { location, setCookies: [signInCookie(browserSecret, identity.urls.publicUrl)] } : { location };
}

/** Type-ahead and supersession are per caller: a user through one client, or an API key's owner. */
function callerOf(principal: Principal | undefined): string {
  return principal ? `${principal.kind}:${principal.subject}:${principal.clientId ?? ''}` : 'anonymous';
}
