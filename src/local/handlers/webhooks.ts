// The webhook delivery log (no secrets, no signatures).
import type { LocalHandlersOf, LocalServices } from './index.ts';

export function webhookHandlers({ webhooks }: LocalServices): LocalHandlersOf<'Webhooks'> {
  return {
    listWebhookDeliveries: async ({ query }) => ({ deliveries: await webhooks.listDeliveries(query) }),
  };
}
