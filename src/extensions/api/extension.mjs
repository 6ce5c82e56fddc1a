// `loom/extension`: the API an extension's code imports (`import { Extension, registerCommand }
// from 'loom/extension'`, or `require('loom/extension')`). It runs in the extension's own
// process; every call that reaches the editor goes over the message channel to the server,
// which applies the local API's checks. Types for authors: extension.d.mts.
import { commands, disposable, listeners, request, send } from '../host/runtime.mjs';

const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
const LEVELS = ['info', 'warning', 'error'];

/**
 * Registers a command: `POST /api/commands/:name`, `loom run-command` and the window's palette
 * run `handler(...args)` and answer its (JSON) result. Returns a disposable that unregisters it;
 * what an extension registered is disposed when it deactivates.
 *
 * @example
 *   registerCommand('wordCount.count', async () => (await editor.getText()).text.split(/\s+/).filter(Boolean).length);
 */
export function registerCommand(commandName, handler) {
  if (typeof commandName !== 'string' || !COMMAND_NAME.test(commandName))
    throw new TypeError(`registerCommand: ${JSON.stringify(commandName)} is not a command name (letters, digits, ".", "_", ":" or "-").`);
  if (typeof handler !== 'function') throw new TypeError('registerCommand: the handler must be a function.');
  if (commands.has(commandName)) throw new Error(`registerCommand: ${commandName} is already registered by this extension.`);
  commands.set(commandName, handler);
  send({ type: 'register', command: commandName });
  return disposable(() => {
    if (commands.get(commandName) !== handler) return;
    commands.delete(commandName);
    send({ type: 'unregister', command: commandName });
  });
}

/**
 * Shows a notification in the window (and as a `notification` event on `/events`).
 *
 * @example
 *   await showNotification('Saved 3 files', { level: 'info' });
 */
export function showNotification(text, options = {}) {
  const level = options.level ?? 'info';
  if (!LEVELS.includes(level)) return Promise.reject(new TypeError(`showNotification: level must be one of ${LEVELS.join(', ')}.`));
  return request('notify', { text: String(text), level });
}

/**
 * Runs a command by name (one of this extension, or of another), with JSON arguments.
 *
 * @example
 *   const words = await executeCommand('wordCount.count');
 */
export function executeCommand(commandName, ...args) {
  return request('executeCommand', { command: commandName, args });
}

/** The active document of the editor: read it, insert into it, replace a range of it. */
export const editor = {
  /** The active document's summary (`path`, `language`, `lineCount`, `cursor`, `version`, …), or null when none is open. */
  activeDocument() {
    return request('activeDocument');
  },
  /** `{path, text, version}` of the active document, or of the open document `path`. */
  getText(path) {
    return request('getText', path === undefined ? {} : { path });
  },
  /** Inserts `text` at `position` (`{line?, column?, path?}`; the cursor when left out). */
  insert(text, position = {}) {
    return request('insert', { ...position, text });
  },
  /** Replaces `range` (`{startLine, startColumn, endLine, endColumn, path?}`, end exclusive) with `text`. */
  replace(range, text) {
    return request('replace', { ...range, text });
  },
};

/** The server's events (those `/events` carries, notifications excepted). */
export const events = {
  /**
   * Calls `listener(event)` for each event of `type` (`file:save`, `git:commit`, … or `*`).
   *
   * @example
   *   events.on('file:save', (event) => console.log(event.data.path));
   */
  on(type, listener) {
    if (typeof type !== 'string' || typeof listener !== 'function') throw new TypeError('events.on(type, listener)');
    const entry = { type, listener };
    const first = listeners.size === 0;
    listeners.add(entry);
    if (first) send({ type: 'subscribe' });
    return disposable(() => {
      listeners.delete(entry);
      if (listeners.size === 0) send({ type: 'unsubscribe' });
    });
  },
};

/**
 * The base class of an extension: the module's default export (or `module.exports`) extends
 * it. `activate` runs when the extension starts, `deactivate` when it stops (reload, restart,
 * shutdown), time-limited; what it registered is disposed after.
 *
 * @example
 *   export default class WordCount extends Extension {
 *     activate() {
 *       this.registerCommand('wordCount.count', () => this.showNotification('…'));
 *     }
 *   }
 */
export class Extension {
  /** Called once when the extension starts; `context.subscriptions` takes disposables to dispose on deactivation. */
  activate(_context) {}

  /** Called once when the extension stops. */
  deactivate() {}

  /** registerCommand, for this extension. */
  registerCommand(commandName, handler) {
    return registerCommand(commandName, handler);
  }

  /** showNotification, from this extension. */
  showNotification(text, options) {
    return showNotification(text, options);
  }
}
