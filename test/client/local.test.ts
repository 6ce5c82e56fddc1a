// The typed client of the local API against the real server: every call by route id, typed
// input and answers, the error envelope as a LocalApiError.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { LocalApiError, LocalClient } from '../../src/client/local.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';

describe('the local API client', () => {
  let local: TestLocal;
  let client: LocalClient;
  before(async () => {
    local = await startTestLocal({ files: { 'src/main.ts': 'const a = 1;\n' } });
    client = new LocalClient({ url: `${local.url}/`, token: local.token() });
  });
  after(() => local?.close());

  /** The LocalApiError a call rejects with. */
  async function failure(call: Promise<unknown>): Promise<LocalApiError> {
    try {
      await call;
    } catch (error) {
      assert.ok(error instanceof LocalApiError, String(error));
      return error;
    }
    assert.fail('the call succeeded');
  }

  it('calls routes by id, with typed input and answers', async () => {
    const health = await client.call('getHealth');
    assert.equal(health.status, 'ok');
    const opened = await client.call('openDocument', { body: { path: 'src/main.ts' } });
    assert.deepEqual([opened.path, opened.language, opened.active], ['src/main.ts', 'typescript', true]);
    const edit = await client.call('insertText', { body: { text: '// hi\n', line: 1 } });
    assert.deepEqual(edit.range.start, { line: 1, column: 1 });
    const text = await client.call('getText', { query: { path: 'src/main.ts' } });
    assert.equal(text.text, '// hi\nconst a = 1;\n');
    // A body whose fields are all optional may be left out; a route without one sends none.
    assert.equal((await client.call('saveDocument')).dirty, false);
    assert.equal((await client.call('issueEventTicket')).expiresIn, 30);
    assert.deepEqual(await client.call('listWebhookDeliveries', { query: { limit: 5, status: 'failed' } }), { deliveries: [] });
    // @ts-expect-error openDocument needs a body with a path
    await assert.rejects(client.call('openDocument'), LocalApiError);
  });

  it('turns the error envelope into a LocalApiError', async () => {
    const invalid = await failure(client.call('openDocument', { body: { path: '' } }));
    assert.deepEqual([invalid.status, invalid.code], [400, 'VALIDATION_ERROR']);
    assert.equal(invalid.details?.[0]?.field, 'body.path');

    await client.call('closeDocument', { body: { discard: true } });
    const none = await failure(client.call('getActiveFile'));
    assert.deepEqual([none.status, none.code], [409, 'NO_ACTIVE_FILE']);
    assert.match(none.hint ?? '', /open/);

    const refused = await failure(new LocalClient({ url: local.url, token: 'loom_not_the_token_0123456789abcdef' }).call('getHealth'));
    assert.deepEqual([refused.status, refused.code], [401, 'UNAUTHORIZED']);
  });

  it('says so when no server answers', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await failure(new LocalClient({ url: `http://127.0.0.1:${port}`, token: 'x' }).call('getHealth'));
    assert.deepEqual([unreachable.status, unreachable.code], [0, 'UNREACHABLE']);
    assert.match(unreachable.message, /ECONNREFUSED/);
  });

  it('refuses a path parameter that cannot be one path segment, sending nothing', async () => {
    for (const taskId of ['', '.', '..', undefined]) {
      const refused = await failure(client.call('getAgentStatus', { params: { taskId: taskId as string } }));
      assert.deepEqual([refused.status, refused.code, refused.details?.[0]?.field], [0, 'VALIDATION_ERROR', 'params.taskId'], String(taskId));
    }
    // Anything else is encoded into its segment and reaches the route, which judges it.
    const missing = await failure(client.call('getAgentStatus', { params: { taskId: '../health' } }));
    assert.deepEqual([missing.status, missing.code], [404, 'NOT_FOUND']);
    assert.match(missing.message, /task/);
  });

  it('stops a call when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(client.call('getHealth', undefined, { signal: controller.signal }), { name: 'AbortError' });
  });
});
