// Tells "no such path" (404) from "not with this method" (405, with Allow) for both servers.
import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Mirrors every route the app registers (from now on) in a router of its own, used only to
 * look up which methods a path has. Returns that lookup: empty when the path has none.
 */
export function trackAllowedMethods(app: FastifyInstance): (path: string) => string[] {
  const methodsByPath = FindMyWay();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      try {
        methodsByPath.on(method as 'GET', route.url, () => {});
      } catch {
        // Already known (e.g. the same path under two prefixes registering HEAD twice).
      }
    }
  });
  return (path) => {
    const found: string[] = METHODS.filter((method) => methodsByPath.find(method, path));
    if (found.includes('GET')) found.push('HEAD');
    return found;
  };
}
