// The extension's side of the message channel: what `loom/extension` (../api/extension.mjs)
// calls and what host.mjs dispatches. Plain JavaScript, run by node without tsx, so that an
// extension's process starts fast and its memory limit measures the extension, not a compiler.
//
// Messages are JSON over the IPC channel `child_process.fork` opens (src/extensions/protocol.ts
// describes them from the server's side).
import process from 'node:process';

/** Commands this extension registered, by name. */
export const commands = new Map();
/** Listeners of server events, each `{type, listener}`; `*` hears every type. */
export const listeners = new Set();
/** What is disposed when the extension deactivates, besides commands and listeners. */
export const subscriptions = [];

let nextRequest = 1;
const pending = new Map();

/** Sends a message to the server; false once the channel is closed (the server went away). */
export function send(message) {
  if (!process.connected) return false;
  try {
    process.send(message);
    return true;
  } catch {
    return false;
  }
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
