// loom mcp's transport on its own, over in-memory streams: the id of a message too large to
// parse is read from its first bytes only when the top-level object names it there; the cap is
// the transport's option; a message arriving in many chunks is read whole.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { GuardedStdioTransport, leadingId } from '../../src/mcp/stdio-transport.ts';

describe('leadingId', () => {
  it("reads a top-level id, a string's or a safe integer's, never a nested one's", () => {
    assert.equal(leadingId('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"text":"xxxx'), 7);
    assert.equal(leadingId(' { "id" : "a\\"b" , "method"'), 'a"b');
    assert.equal(leadingId('{"params":{"id":5,"text":"x'), null, 'a nested id');
    assert.equal(leadingId('{"method":"x","params":["id",{"id":3}],"id":-4}'), -4);
    assert.equal(leadingId('{"text":"\\"id\\":9","id":10,'), 10, 'an "id" inside a string is text');
    assert.equal(leadingId('{"id":1e308,'), null);
    assert.equal(leadingId('{"id":9007199254740993,'), null);
    assert.equal(leadingId('{"id":12'), null, 'a number cut by the end of the head');
    assert.equal(leadingId('[{"id":1}]'), null);
    assert.equal(leadingId('{"jsonrpc":"2.0","method":"x","params":{"text":"xxxx'), null);
  });
});

describe('GuardedStdioTransport', () => {
  it('reads a message that arrives in pieces; answers one past its cap with -32600 and its id; reads the next', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new GuardedStdioTransport(stdin, stdout, { maxMessageBytes: 100 });
    const received: unknown[] = [];
    const errors: string[] = [];
    transport.onmessage = (message) => received.push(message);
    transport.onerror = (error) => errors.push(error.message);
    await transport.start();
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const char of `${ping}\n`) stdin.write(char);
    stdin.write(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"${'x'.repeat(200)}"}}\n${ping}\n`);
    assert.deepEqual(received, [JSON.parse(ping), JSON.parse(ping)]);
    assert.deepEqual(JSON.parse(String(stdout.read())), {
      jsonrpc: '2.0',
      id: 'big',
      error: { code: -32600, message: 'Invalid Request: the message is larger than 100 bytes, the most loom mcp reads.' },
    });
    assert.equal(errors.length, 1);
    await transport.close();
  });
});
