// The hosted operations' handlers: typed input in, typed output out, no framework objects.
// Shared by the HTTP routes (and, later, the MCP tools).
import type { AnyOperation, OperationInput, OperationOutput } from '../../contracts/operations.ts';
import type { ApiVersion } from '../../contracts/versioning.ts';
import type { Catalog } from '../../core/catalog/schema.ts';
import { findAsset, listDownloads } from '../../core/downloads.ts';
import { LoomError } from '../../core/errors.ts';
import type { FeedbackService } from '../../core/feedback/feedback.ts';
import { basicHealth, detailedHealth, type HealthDeps } from '../../core/health.ts';
import type { Identity } from '../../core/identity/index.ts';
import type { Principal } from '../../core/identity/tokens.ts';
import type { ReleaseChecker } from '../../core/releases/release-checker.ts';

export interface HandlerContext {
  version: ApiVersion;
  client: { ip: string; userAgent?: string };
  /** The verified caller, when a bearer token was sent and accepted. */
  principal?: Principal;
  /** OAuth client credentials sent as `Authorization: Basic` (token endpoint only). */
  basicAuth?: { username: string; password: string };
}

export type Handlers = {
  [O in AnyOperation as O['operationId']]: (input: OperationInput<O>, context: HandlerContext) => Promise<OperationOutput<O>>;
};

export interface HandlerServices {
  catalog: Catalog;
  releases: ReleaseChecker;
  feedback: FeedbackService;
  health: HealthDeps;
  identity: Identity;
}

export function createHandlers(services: HandlerServices): Handlers {
  const { identity } = services;
  return {
    getHealth: async (_input, { version }) =>
      version === 'v2' ? detailedHealth(services.health) : basicHealth(services.health),

    listDownloads: async ({ query }) => ({ products: listDownloads(services.catalog, query) }),

    getDownloadAsset: async ({ params }) => {
      const asset = findAsset(services.catalog, params.product, params.asset);
      await services.releases.verify(asset.url);
      return asset;
    },

    listModels: async () => ({ models: services.catalog.models }),

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

    startCodeHostAuth: async ({ query }) => ({ location: await identity.signIn.start('codehost', query) }),

    startOidcAuth: async ({ query }) => ({ location: await identity.signIn.start('oidc', query) }),

    exchangeToken: async ({ body }, { basicAuth }) => {
      if (basicAuth && (body.client_secret || (body.client_id && body.client_id !== basicAuth.username))) {
        throw new LoomError('invalid_request', 'Send client credentials once: in Authorization: Basic or in the body, not both.');
      }
      const client = await identity.clients.authenticate(basicAuth?.username ?? body.client_id, basicAuth?.password ?? body.client_secret);
      return identity.oauth.token(body, client);
    },
  };
}
