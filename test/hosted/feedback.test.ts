import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { post, startTestHosted, type TestHosted } from '../support/hosted.ts';

const valid = { name: 'Ada', email: 'ada@example.com', subject: 'Loving it', message: 'Tab completion is fast.' };

describe('submitFeedback', () => {
  let hosted: TestHosted;
  let url: string;
  before(async () => {
    hosted = await startTestHosted({ bodyLimit: 64 * 1024 });
    url = `${hosted.url}/api/v1/feedback`;
  });
  after(() => hosted.close());

  const stored = () => hosted.store.feedback.list({ limit: 1000 });

  it('stores feedback and answers 201 {id, ok}', async () => {
    const res = await post(url, valid, 'application/json', { 'user-agent': 'loom-test/1' });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), ['id', 'ok']);
    assert.equal(body.ok, true);
    const [record] = await stored();
    assert.equal(record!.id, body.id);
    assert.deepEqual({ name: record!.name, email: record!.email, subject: record!.subject, message: record!.message }, valid);
    assert.equal(record!.clientIp, '127.0.0.1');
    assert.equal(record!.userAgent, 'loom-test/1');
    assert.equal(record!.createdAt, new Date(hosted.clock.now()).toISOString());
  });

  it('accepts JSON with a charset parameter', async () => {
    const res = await post(url, valid, 'application/json; charset=utf-8');
    assert.equal(res.status, 201);
  });

  it('counts characters, not bytes or UTF-16 units, at the limits', async () => {
    const emoji = '😀'; // one character, two UTF-16 units, four bytes
    const res = await post(url, { ...valid, name: emoji.repeat(100), subject: 'é'.repeat(200), message: emoji.repeat(5000) });
    assert.equal(res.status, 201);
  });

  const boundaries: [string, Record<string, unknown>, string][] = [
    ['name empty', { name: '' }, 'body.name'],
    ['name 101 characters', { name: 'n'.repeat(101) }, 'body.name'],
    ['subject empty', { subject: '' }, 'body.subject'],
    ['subject 201 characters', { subject: 's'.repeat(201) }, 'body.subject'],
    ['message empty', { message: '' }, 'body.message'],
    ['message 5001 characters', { message: 'm'.repeat(5001) }, 'body.message'],
    ['email without @', { email: 'ada.example.com' }, 'body.email'],
    ['email with spaces', { email: 'ada @example.com' }, 'body.email'],
    ['email as a number', { email: 42 }, 'body.email'],
    ['name as an array', { name: ['Ada'] }, 'body.name'],
    ['name as null', { name: null }, 'body.name'],
    ['message with a NUL character', { message: 'a\u0000b' }, 'body.message'],
    ['an unknown field', { admin: true }, 'body.admin'],
  ];
  for (const [label, change, field] of boundaries) {
    it(`rejects ${label} with 400 validation_error naming ${field}, storing nothing`, async () => {
      const before = (await stored()).length;
      const res = await post(url, { ...valid, ...change });
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.error, 'validation_error');
      assert.deepEqual(
        body.details.map((d: { field: string }) => d.field),
        [field],
      );
      assert.ok(body.message.includes(field));
      assert.equal((await stored()).length, before);
    });
  }

  it('accepts every field exactly at its upper limit', async () => {
    const res = await post(url, { ...valid, name: 'n'.repeat(100), subject: 's'.repeat(200), message: 'm'.repeat(5000) });
    assert.equal(res.status, 201);
  });

  it('names every failing field at once', async () => {
    const res = await post(url, { name: '', email: 'nope', extra: 1 });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.deepEqual(body.details.map((d: { field: string }) => d.field).sort(), ['body.email', 'body.extra', 'body.message', 'body.name', 'body.subject']);
  });

  const badBodies: [string, string, string, number, string][] = [
    ['bad JSON', '{"name": "Ada",', 'application/json', 400, 'invalid_json'],
    ['an empty JSON body', '', 'application/json', 400, 'invalid_json'],
    ['a JSON array', '[1,2]', 'application/json', 400, 'validation_error'],
    ['a JSON string', '"hello"', 'application/json', 400, 'validation_error'],
    ['JSON null', 'null', 'application/json', 400, 'validation_error'],
    ['text/plain', JSON.stringify(valid), 'text/plain', 415, 'unsupported_media_type'],
    ['a form body', 'name=Ada', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
    ['XML', '<feedback/>', 'application/xml', 415, 'unsupported_media_type'],
    ['a __proto__ key', '{"__proto__": {"admin": true}, "name": "x"}', 'application/json', 400, 'invalid_json'],
    ['a constructor.prototype key', '{"constructor": {"prototype": {"admin": true}}}', 'application/json', 400, 'invalid_json'],
  ];
  for (const [label, body, type, status, code] of badBodies) {
    it(`answers ${label} with ${status} ${code}, storing nothing`, async () => {
      const before = (await stored()).length;
      const res = await post(url, body, type);
      assert.equal(res.status, status);
      const answer = await res.json();
      assert.equal(answer.error, code);
      assert.equal(typeof answer.message, 'string');
      assert.ok(!JSON.stringify(answer).includes(' at '), 'no stack trace');
      assert.equal((await stored()).length, before);
    });
  }

  it('answers a body without Content-Type with 415', async () => {
    const res = await fetch(url, { method: 'POST', body: new Blob([JSON.stringify(valid)]) });
    assert.equal(res.status, 415);
    assert.equal((await res.json()).error, 'unsupported_media_type');
  });

  it('answers a POST without a body with 400 naming the body', async () => {
    const res = await fetch(url, { method: 'POST' });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, 'validation_error');
  });

  it('answers an oversized body with 413 payload_too_large', async () => {
    const res = await post(url, { ...valid, message: 'm'.repeat(70 * 1024) });
    assert.equal(res.status, 413);
    const body = await res.json();
    assert.equal(body.error, 'payload_too_large');
    assert.ok(res.headers.get('ratelimit-limit'));
  });

  it('answers 503 store_unavailable, in the Error shape, when the database is gone', async () => {
    const local = await startTestHosted();
    await local.store.close();
    try {
      const res = await post(`${local.url}/api/v1/feedback`, valid);
      assert.equal(res.status, 503);
      const body = await res.json();
      assert.equal(body.error, 'store_unavailable');
      assert.match(body.message, /nothing was written/);
    } finally {
      await local.close();
    }
  });
});
