// GET /api/webhooks/deliveries: the delivery log (no secrets, no signatures).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { WebhookOutbox } from '../../core/webhooks/index.ts';

export function registerWebhookRoutes(app: FastifyInstance, outbox: WebhookOutbox): void {
  app.get<{ Querystring: { limit?: number; before?: string; status?: 'pending' | 'delivered' | 'failed' | 'disabled' | 'abandoned' } }>(
    '/api/webhooks/deliveries',
    {
      schema: {
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
          before: Type.Optional(Type.String({ maxLength: 100 })),
          status: Type.Optional(Type.Union(['pending', 'delivered', 'failed', 'disabled', 'abandoned'].map((s) => Type.Literal(s)))),
        }),
      },
    },
    async (request) => ({ deliveries: await outbox.listDeliveries(request.query) }),
  );
}
