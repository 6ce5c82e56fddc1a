import type { FastifyInstance } from 'fastify';
import YAML from 'yaml';
import type { ServiceUrls } from '../../core/urls.ts';
import { buildLlmsTxt, buildSitemap } from '../docs/index-files.ts';
import { buildOpenApi } from '../docs/openapi.ts';

/**
 * The machine-readable description and index files, built from the operation table on first
 * request (the public URL may only be known once the server listens) and then reused.
 */
export function registerDiscoveryRoutes(app: FastifyInstance, urls: ServiceUrls, version: string): void {
  const publicUrl = () => urls.publicUrl;
  const once = <T>(build: () => T) => {
    let value: T | undefined;
    return () => (value ??= build());
  };
  const openapi = once(() => buildOpenApi(publicUrl(), version, urls.issuer));
  const documents = {
    json: once(() => JSON.stringify(openapi(), null, 2)),
    yaml: once(() => YAML.stringify(openapi())),
    llms: once(() => buildLlmsTxt(publicUrl())),
    sitemap: once(() => buildSitemap(publicUrl())),
  };

  const serve = (url: string, type: string, body: () => string) => app.get(url, async (_request, reply) => reply.type(type).send(body()));

  serve('/openapi.json', 'application/json; charset=utf-8', documents.json);
  serve('/api/openapi.json', 'application/json; charset=utf-8', documents.json);
  serve('/openapi.yaml', 'application/yaml; charset=utf-8', documents.yaml);
  serve('/llms.txt', 'text/plain; charset=utf-8', documents.llms);
  serve('/sitemap.xml', 'application/xml; charset=utf-8', documents.sitemap);
  app.get('/', async () => ({
    name: 'Loom hosted API',
    version,
    api: publicUrl() + '/api/v1',
    openapi: publicUrl() + '/openapi.json',
    llms: publicUrl() + '/llms.txt',
  }));
}
