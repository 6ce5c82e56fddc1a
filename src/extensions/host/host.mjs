// The extension host: one process per extension, started by the server (extension-process.ts)
// with a message channel on file descriptor 3 and a heap limit. It makes `loom/extension` resolvable from the
// extension's code (ESM and CommonJS), loads the extension, activates it, runs its commands,
// passes it events, and deactivates it and disposes what it registered when asked.
import Module, { register } from 'node:module';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { pathToFileURL, URL } from 'node:url';
import * as api from '../api/extension.mjs';
import { commands, describe, listeners, receive, registered, send, sendLast, settle, subscriptions } from './runtime.mjs';

const API_URL = new URL('../api/extension.mjs', import.meta.url).href;
const SPECIFIER = 'loom/extension';

// ESM: a resolve hook (in the loader's own thread, hence a data: URL) maps the specifier to
// this very module file, so the extension gets the instance the host uses.
const hooks = `let url; export async function initialize(data) { url = data.url; }
export async function resolve(specifier, context, next) {
  return specifier === ${JSON.stringify(SPECIFIER)} ? { url, shortCircuit: true } : next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { parentURL: import.meta.url, data: { url: API_URL } });
// CommonJS: require('loom/extension') answers the same module's exports.
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === SPECIFIER ? api : load.call(this, request, ...rest);
};

let extension;
let context;

/** A throw nobody caught, in the extension's own code: told to the server, then the process ends as Node would end it. */
function fatal(error) {
  process.exitCode = 1;
  // The message is flushed before the process ends; the timer is the guard should it not be.
  setTimeout(() => process.exit(1), 1000);
  sendLast({ type: 'fatal', message: describe(error) }, () => process.exit(1));
}
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

/** The extension object a module exports: a subclass of Extension (or any class), an instance, or `activate`/`deactivate` functions. */
function extensionOf(namespace) {
  const exported = namespace.default ?? namespace;
  if (typeof exported === 'function' && exported.prototype && typeof exported.prototype.activate === 'function') return new exported();
  if (exported && typeof exported.activate === 'function') return exported;
  if (typeof namespace.activate === 'function') return namespace;
  return undefined;
}

async function start(message) {
  try {
    const namespace = await import(pathToFileURL(message.main).href);
    extension = extensionOf(namespace);
    if (!extension)
      throw new Error('its main module exports no extension: `export default class extends Extension`, `module.exports = class …`, or an `activate` function');
    context = { subscriptions, extensionPath: message.dir, name: message.name };
    await extension.activate(context);
    send({ type: 'ready' });
  } catch (error) {
    send({ type: 'failed', message: describe(error) });
  }
}

async function run(message) {
  const handler = commands.get(message.command);
  if (!handler) return send({ type: 'result', id: message.id, ok: false, error: { message: `${message.command} is not registered (yet) by the extension` } });
  try {
    const value = await handler(...(Array.isArray(message.args) ? message.args : []));
    // The answer is JSON: what JSON cannot hold (undefined, functions) becomes null.
    const json = JSON.stringify(value ?? null);
    send({ type: 'result', id: message.id, ok: true, value: json === undefined ? null : JSON.parse(json) });
  } catch (error) {
    send({ type: 'result', id: message.id, ok: false, error: { message: describe(error) } });
  }
}

async function dispatch(event) {
  for (const { type, listener } of [...listeners]) {
    if (type !== '*' && type !== event.type) continue;
    try {
      await listener(event);
    } catch (error) {
      send({ type: 'log', message: `an event listener threw: ${describe(error)}` });
    }
  }
}

async function deactivate(message) {
  let error;
  try {
    await extension?.deactivate?.(context);
  } catch (thrown) {
    error = describe(thrown);
  }
  // What the extension registered goes, whatever deactivate did.
  for (const item of subscriptions.splice(0)) {
    try {
      item?.dispose?.();
    } catch {
      // One failing disposable must not keep the others.
    }
  }
  for (const handle of [...registered]) handle.dispose();
  send({ type: 'deactivated', id: message.id, ...(error ? { error } : {}) });
}

function dispatchMessage(message) {
  if (!message || typeof message !== 'object') return;
  switch (message.type) {
    case 'start':
      return void start(message);
    case 'run':
      return void run(message);
    case 'reply':
      return settle(message);
    case 'event':
      return void dispatch(message.event).finally(() => send({ type: 'event-done' }));
    case 'ping':
      return void send({ type: 'pong', id: message.id });
    case 'deactivate':
      return void deactivate(message);
    case 'memory':
      // Where the server cannot read the process's memory itself (no /proc): the whole process's resident set.
      return void send({ type: 'memory', id: message.id, rss: process.memoryUsage.rss() });
  }
}

// The server is gone when it closes the channel: nothing is left to serve.
receive(dispatchMessage, () => process.exit());
send({ type: 'hello' });
