import type { FastifyInstance } from 'fastify';
import YAML from 'yaml';
import { buildLlmsTxt, buildSitemap } from '../docs/index-files.ts';
import { buildOpenApi } from '../docs/openapi.ts';

/** The machine-readable description and index files, built once from the operation table. */
export function registerDiscoveryRoutes(app: FastifyInstance, publicUrl: string, version: string): void {
  const openapi = buildOpenApi(publicUrl, version);
  const openapiJson = JSON.stringify(openapi, null, 2);
  const openapiYaml = YAML.stringify(openapi);
  const llms = buildLlmsTxt(publicUrl);
  const sitemap = buildSitemap(publicUrl);

  const serve = (url: string, type: string, body: string) =>
    app.get(url, async (_request, reply) => reply.type(type).send(body));

  serve('/openapi.json', 'application/json; charset=utf-8', openapiJson);
  serve('/api/openapi.json', 'application/json; charset=utf-8', openapiJson);
  serve('/openapi.yaml', 'application/yaml; charset=utf-8', openapiYaml);
  serve('/llms.txt', 'text/plain; charset=utf-8', llms);
  serve('/sitemap.xml', 'application/xml; charset=utf-8', sitemap);
  app.get('/', async () => ({
    name: 'Loom hosted API',
    version,
    api: publicUrl + '/api/v1',
    openapi: publicUrl + '/openapi.json',
    llms: publicUrl + '/llms.txt',
  }));
}
