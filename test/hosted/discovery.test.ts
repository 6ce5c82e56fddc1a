import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { operations } from '../../src/contracts/operations.ts';
import { loadCatalog } from '../../src/core/catalog/load.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';
import { unresolvedRefs } from '../support/openapi.ts';

type Json = Record<string, any>;

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
    assert.deepEqual(found.sort(), operations.map((o) => `${o.method} ${o.path.replace(/:(\w+)/g, '{$1}')} ${o.operationId}`).sort());
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
    assert.deepEqual(
      asset.parameters.filter((p: Json) => p.in === 'path').map((p: Json) => p.name),
      ['product', 'asset'],
    );
    assert.match(asset.responses['404'].description, /not_found/);
    assert.match(asset.responses['502'].description, /upstream_unavailable/);
    assert.equal(openapi.components.schemas.Error.required.join(), 'error,message');
  });

  it("documents what the credentials check answers, derived from each operation's auth", () => {
    const described = (path: string, method: string, status: number): string => openapi.paths[path][method].responses[status]?.description ?? '';
    // tabComplete needs a token: none is 401 unauthorized, a bad one 401 invalid_token, one without read:tab 403.
    assert.match(described('/tab/complete', 'post', 401), /`unauthorized`.*`invalid_token`|`invalid_token`.*`unauthorized`/);
    assert.match(described('/tab/complete', 'post', 403), /`insufficient_scope`/);
    // listModels takes none but checks one that is presented; a valid one without read:models is served as none.
    assert.match(described('/models', 'get', 401), /`invalid_token`/);
    assert.doesNotMatch(described('/models', 'get', 401), /`unauthorized`/);
    assert.equal(described('/models', 'get', 403), '');
    // getHealth uses no credentials at all.
    assert.equal(described('/health', 'get', 401), '');
    assert.equal(described('/health', 'get', 403), '');
    assert.match(described('/auth/token', 'post', 401), /`invalid_client`/);
    // Everywhere: a token in the query string is refused, and a URL that is not UTF-8 is bad_request.
    for (const [path, methods] of Object.entries<Json>(openapi.paths)) {
      for (const [method, operation] of Object.entries<Json>(methods)) {
        assert.match(operation.responses['400'].description, /`invalid_request`/, `${method} ${path}`);
        assert.match(operation.responses['400'].description, /`bad_request`/, `${method} ${path}`);
      }
    }
    // A path segment past the router's limit.
    assert.match(described('/download/{product}/{asset}', 'get', 414), /`uri_too_long`/);
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
      'https://loom.example.com/.well-known/mcp.json',
      'https://loom.example.com/mcp.json',
      'https://loom.example.com/llms.txt',
    ]);
  });
});

describe('listModels', () => {
  const SPEC_FIELDS = ['description', 'name', 'params', 'provider', 'url'];
  const EXTRA_FIELDS = ['installed', 'quantization', 'sha256', 'size'];

  it('lists the catalog models with the spec fields and, beyond it, their GGUF file', async () => {
    const hosted = await startTestHosted();
    try {
      const res = await fetch(`${hosted.url}/api/v1/models`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('api-version'), 'v1');
      const body = await res.json();
      const catalog = loadCatalog().models;
      assert.ok(body.models.length >= 3);
      assert.deepEqual(
        body.models.map((m: Json) => m.name),
        catalog.map((m) => m.name),
      );
      for (const [i, model] of (body.models as Json[]).entries()) {
        const expected = catalog[i]!;
        for (const field of SPEC_FIELDS) assert.equal(model[field], (expected as Json)[field], `${model.name}.${field}`);
        for (const key of Object.keys(model)) assert.ok([...SPEC_FIELDS, ...EXTRA_FIELDS].includes(key), `unexpected field ${key}`);
        assert.ok(new URL(model.url).protocol === 'https:');
        assert.equal(model.installed, false, 'nothing is installed in a fresh models folder');
        assert.equal(model.quantization, expected.file?.quantization);
        assert.equal(model.sha256, expected.file?.sha256);
        if (model.sha256 !== undefined) assert.match(model.sha256, /^[0-9a-f]{64}$/);
      }
    } finally {
      await hosted.close();
    }
  });

  it('reports a model installed once its complete file is in the models folder', async () => {
    const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-models-'));
    const bytes = Buffer.from('GGUF and some weights');
    const catalog = {
      products: [],
      models: [
        {
          name: 'Tiny-Coder',
          provider: 'Test',
          params: '1M',
          url: 'https://example.com/tiny',
          file: {
            url: 'https://example.com/files/tiny-coder.Q4_K_M.gguf',
            size: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            quantization: 'Q4_K_M',
          },
        },
        { name: 'No-File', provider: 'Test', params: '1M', url: 'https://example.com/nofile' },
      ],
    };
    const hosted = await startTestHosted({ catalog, modelsDir });
    const list = async () => ((await (await fetch(`${hosted.url}/api/v1/models`)).json()) as Json).models as Json[];
    try {
      assert.deepEqual(await list(), [
        {
          name: 'Tiny-Coder',
          provider: 'Test',
          params: '1M',
          url: 'https://example.com/tiny',
          size: bytes.length,
          sha256: catalog.models[0]!.file!.sha256,
          quantization: 'Q4_K_M',
          installed: false,
        },
        { name: 'No-File', provider: 'Test', params: '1M', url: 'https://example.com/nofile', installed: false },
      ]);
      const file = path.join(modelsDir, 'tiny-coder.Q4_K_M.gguf');
      fs.writeFileSync(`${file}.partial`, bytes);
      assert.equal((await list())[0]!.installed, false, 'a .partial download is not installed');
      fs.writeFileSync(file, bytes.subarray(0, 4));
      assert.equal((await list())[0]!.installed, false, 'a file of the wrong size is not complete');
      fs.writeFileSync(file, bytes);
      assert.equal((await list())[0]!.installed, true);
      assert.equal((await list())[1]!.installed, false);
      fs.rmSync(file);
      assert.equal((await list())[0]!.installed, false);
    } finally {
      await hosted.close();
      fs.rmSync(modelsDir, { recursive: true, force: true });
    }
  });
});
