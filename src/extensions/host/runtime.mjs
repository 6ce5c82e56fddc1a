// The extension's side of the message channel: what `loom/extension` (../api/extension.mjs)
// calls and what host.mjs dispatches. Plain JavaScript, run by node without tsx, so that an
// extension's process starts fast and its memory limit measures the extension, not a compiler.
//
// Messages are JSON, one per line, on file descriptor 3: a socket the server opened for this
// process (src/extensions/extension-process.ts is the other end, and reads it with limits).
import { Buffer } from 'node:buffer';
import net from 'node:net';

/** Commands this extension registered, by name. */
export const commands = new Map();
/** Listeners of server events, each `{type, listener}`; `*` hears every type. */
export const listeners = new Set();
/** What is disposed when the extension deactivates, besides commands and listeners. */
export const subscriptions = [];

let nextRequest = 1;
const pending = new Map();

const channel = new net.Socket({ fd: 3, readable: true, writable: true });
// A write to a server that went away fails here, not as an error event nobody handles.
channel.on('error', () => {});

/** Sends a message to the server; false once the channel is closed (the server went away). */
export function send(message) {
  if (channel.destroyed || !channel.writable) return false;
  try {
    channel.write(`${JSON.stringify(message)}\n`);
    return true;
  } catch {
    return false;
  }
}

/** Sends a last message, then calls `done` once it is written (or could not be). */
export function sendLast(message, done) {
  if (!send(message)) return done();
  channel.end(done);
}

/**
 * Calls `handle` with each message the server sends, and `closed` when the server closes the
 * channel. Lines are joined once, when complete: the server is trusted, but its messages (a
 * document's text) may be large.
 */
export function receive(handle, closed) {
  let pieces = [];
  channel.on('data', (chunk) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      pieces.push(chunk.subarray(start, newline));
      const line = Buffer.concat(pieces).toString('utf8');
      pieces = [];
      start = newline + 1;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      handle(message);
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
  });
  channel.on('end', closed);
  channel.on('close', closed);
}

/** Asks the server to do something for the extension (edit, notify, run a command); resolves with its answer. */
export function request(method, params) {
  const id = nextRequest++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    if (!send({ type: 'call', id, method, params: params ?? {} })) {
      pending.delete(id);
      reject(new Error('The Loom server is gone.'));
    }
  });
}

/** The server's answer to a `request`. */
export function settle(message) {
  const waiting = pending.get(message.id);
  if (!waiting) return;
  pending.delete(message.id);
  if (message.ok) waiting.resolve(message.value);
  else waiting.reject(Object.assign(new Error(message.error?.message ?? 'The Loom server refused the call.'), { code: message.error?.code }));
}

/** What the extension registered and has not disposed yet: disposed for it when it deactivates. */
export const registered = new Set();

/** A disposable: `dispose()` undoes a registration once. */
export function disposable(undo) {
  let done = false;
  const handle = {
    dispose() {
      if (done) return;
      done = true;
      registered.delete(handle);
      undo();
    },
  };
  registered.add(handle);
  return handle;
}

/** The words of a thrown value, bounded (it travels to the server and into a notification). */
export function describe(error) {
  const text = error instanceof Error ? error.message || error.name : String(error);
  return text.slice(0, 2000);
}
