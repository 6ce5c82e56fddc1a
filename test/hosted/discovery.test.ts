import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { operations } from '../../src/contracts/operations.ts';
import { loadCatalog } from '../../src/core/catalog/load.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';

type Json = Record<string, any>;

/** Every `$ref` in the document points at something that exists. */
function unresolvedRefs(document: Json): string[] {
  const missing: string[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const target = value.replace(/^#\//, '').split('/').reduce<any>((at, part) => at?.[part], document);
        if (target === undefined) missing.push(value);
      } else visit(value);
    }
  };
  visit(document);
  return missing;
}

describe('discovery documents', () => {
  let hosted: TestHosted;
  let openapi: Json;
  before(async () => {
    hosted = await startTestHosted({ publicUrl: 'https://loom.example.com' });
    openapi = await (await fetch(`${hosted.url}/openapi.json`)).json();
  });
  after(() => hosted.close());

  it('describes every operation of the table in OpenAPI 3.1', () => {
    assert.equal(openapi.openapi, '3.1.0');
    const found = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Json).map(([method, op]) => `${method.toUpperCase()} ${path} ${(op as Json).operationId}`),
    );
    assert.deepEqual(
      found.sort(),
      operations.map((o) => `${o.method} ${o.path.replace(/:(\w+)/g, '{$1}')} ${o.operationId}`).sort(),
    );
    assert.deepEqual(unresolvedRefs(openapi), []);
  });

  it('lists the API and its docs mirror as servers, from LOOM_PUBLIC_URL', () => {
    assert.deepEqual(
      openapi.servers.map((s: Json) => s.url),
      ['https://loom.example.com/api/v1', 'https://loom.example.com/docs/api/v1'],
    );
  });

  it('documents parameters, bodies, errors and headers per operation', () => {
    const list = openapi.paths['/download'].get;
    const product = list.parameters.find((p: Json) => p.name === 'product');
    assert.deepEqual(product.schema.enum, ['ide', 'omni', 'cli']);
    assert.equal(product.in, 'query');
    assert.deepEqual(list.parameters.find((p: Json) => p.name === 'API-Version').schema.enum, ['v1']);
    assert.ok(list.responses['200'].headers.Deprecation);
    assert.ok(list.responses['200'].headers.Sunset);
    assert.ok(list.responses['429'].headers['Retry-After']);

    const health = openapi.paths['/health'].get;
    assert.deepEqual(health.parameters.find((p: Json) => p.name === 'API-Version').schema.enum, ['v1', 'v2']);

    const feedback = openapi.paths['/feedback'].post;
    const schema = feedback.requestBody.content['application/json'].schema;
    assert.deepEqual([...schema.required].sort(), ['message', 'name', 'subject']);
    assert.equal(schema.properties.message.maxLength, 5000);
    assert.equal(schema.properties.email.format, 'email');
    assert.ok(feedback.responses['201']);
    assert.match(feedback.responses['400'].description, /validation_error/);

    const asset = openapi.paths['/download/{product}/{asset}'].get;
    assert.deepEqual(asset.parameters.filter((p: Json) => p.in === 'path').map((p: Json) => p.name), ['product', 'asset']);
    assert.match(asset.responses['404'].description, /not_found/);
    assert.match(asset.responses['502'].description, /upstream_unavailable/);
    assert.equal(openapi.components.schemas.Error.required.join(), 'error,message');
  });

  it('serves the same document at /api/openapi.json and as YAML', async () => {
    const mirror = await (await fetch(`${hosted.url}/api/openapi.json`)).json();
    assert.deepEqual(mirror, openapi);
    const yamlRes = await fetch(`${hosted.url}/openapi.yaml`);
    assert.match(yamlRes.headers.get('content-type') ?? '', /yaml/);
    assert.deepEqual(YAML.parse(await yamlRes.text()), openapi);
  });

  it('indexes every operation in /llms.txt', async () => {
    const res = await fetch(`${hosted.url}/llms.txt`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await res.text();
    assert.match(text, /^# Loom hosted API/);
    for (const operation of operations) {
      assert.ok(text.includes(`[${operation.operationId}](https://loom.example.com/api/v1${operation.path})`), operation.operationId);
    }
    assert.ok(text.includes('https://loom.example.com/openapi.json'));
  });

  it('lists the public GET pages in /sitemap.xml', async () => {
    const res = await fetch(`${hosted.url}/sitemap.xml`);
    assert.match(res.headers.get('content-type') ?? '', /xml/);
    const xml = await res.text();
    assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    assert.deepEqual(locs, [
      'https://loom.example.com/api/v1/health',
      'https://loom.example.com/api/v1/download',
      'https://loom.example.com/api/v1/models',
      'https://loom.example.com/openapi.json',
      'https://loom.example.com/openapi.yaml',
      'https://loom.example.com/llms.txt',
    ]);
  });
});

describe('listModels', () => {
  it('lists the catalog models with every field', async () => {
    const hosted = await startTestHosted();
    try {
      const res = await fetch(`${hosted.url}/api/v1/models`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('api-version'), 'v1');
      const body = await res.json();
      assert.deepEqual(body, { models: loadCatalog().models });
      assert.ok(body.models.length >= 3);
      for (const model of body.models) {
        assert.deepEqual(Object.keys(model).sort(), ['description', 'name', 'params', 'provider', 'url']);
        assert.ok(new URL(model.url).protocol === 'https:');
      }
    } finally {
      await hosted.close();
    }
  });
});
