// Health and the OpenAPI document.
import type { LocalAppParts, LocalHandlersOf, LocalServices } from './index.ts';

export function serviceHandlers(services: LocalServices, app: LocalAppParts): LocalHandlersOf<'Service'> {
  return {
    getHealth: async () => ({
      status: 'ok',
      version: services.version,
      uptime: Math.round((services.clock.now() - services.startedAt) / 10) / 100,
    }),
    getOpenApi: async () => app.openApi(),
  };
}
