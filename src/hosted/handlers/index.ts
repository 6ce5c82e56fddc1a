// The hosted operations' handlers: typed input in, typed output out, no framework objects.
// Shared by the HTTP routes (and, later, the MCP tools).
import type { AnyOperation, OperationInput, OperationOutput } from '../../contracts/operations.ts';
import type { ApiVersion } from '../../contracts/versioning.ts';
import type { Catalog } from '../../core/catalog/schema.ts';
import { findAsset, listDownloads } from '../../core/downloads.ts';
import type { FeedbackService } from '../../core/feedback/feedback.ts';
import { basicHealth, detailedHealth, type HealthDeps } from '../../core/health.ts';
import type { ReleaseChecker } from '../../core/releases/release-checker.ts';

export interface HandlerContext {
  version: ApiVersion;
  client: { ip: string; userAgent?: string };
}

export type Handlers = {
  [O in AnyOperation as O['operationId']]: (input: OperationInput<O>, context: HandlerContext) => Promise<OperationOutput<O>>;
};

export interface HandlerServices {
  catalog: Catalog;
  releases: ReleaseChecker;
  feedback: FeedbackService;
  health: HealthDeps;
}

export function createHandlers(services: HandlerServices): Handlers {
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

    submitFeedback: async ({ body }, { client }) => {
      const record = await services.feedback.submit(body, client);
      return { id: record.id, ok: true };
    },
  };
}
