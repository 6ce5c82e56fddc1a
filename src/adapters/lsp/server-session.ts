// One running language server process, seen from Loom: spawned in a process group of its own,
// spoken to in JSON-RPC over stdio (vscode-jsonrpc's connection over a capped reader),
// initialized, asked requests each under a time limit, and stopped. Whatever it does — exit,
// hang, flood, send more than the cap, stop reading its input — ends here as a rejected promise
// and one `ended` call with the reason in words; nothing it sends is trusted.
import { spawn, type ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { CancellationTokenSource, createMessageConnection, ResponseError, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node.js';
import { LoomError } from '../../core/errors.ts';
import { CappedMessageReader } from './message-reader.ts';
import { treeRss } from './process-memory.ts';
import type { Launch } from './server-specs.ts';

/** Bytes of the server's stderr kept to tell why it died. */
const STDERR_TAIL = 4 * 1024;
/** Messages to the server not yet taken by it; past this, it is not reading its input. */
const MAX_UNWRITTEN = 1000;
/** Time `shutdown` may take before the process is killed. */
const SHUTDOWN_GRACE_MS = 2000;

export interface SessionOptions {
  /** The server's name, for messages. */
  name: string;
  workspace: string;
  launch: Launch;
  env: NodeJS.ProcessEnv;
  maxMessageBytes: number;
  /** Time `initialize` may take. */
  startTimeoutMs: number;
  /** `textDocument/publishDiagnostics` and the like: notifications Loom listens to. */
  onNotification(method: string, params: unknown): void;
  /** The process ended or was stopped, unless `stop()` asked for it; said once. */
  ended(reason: string): void;
}

/**
 * Starts a language server and initializes it.
 *
 * @example
 *   const session = await ServerSession.start({ name: 'python', workspace, launch, env, maxMessageBytes, startTimeoutMs: 30_000, onNotification, ended });
 *   const hover = await session.request('textDocument/hover', params, 10_000);
 *   await session.stop();
 */
export class ServerSession {
  private stopping = false;
  private over = false;
  private stderrTail = '';
  private unwritten = 0;
  readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly connection: MessageConnection,
    private readonly options: SessionOptions,
  ) {
    // A process that could not be spawned has no pid, and may never say 'exit'.
    this.exited = new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => child.pid === undefined && resolve());
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(options: SessionOptions): Promise<ServerSession> {
    const { launch } = options;
    const child = spawn(launch.command, launch.args, {
      cwd: options.workspace,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group: stopping it stops what it started (tsserver, a build it ran).
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    const reader = new CappedMessageReader(child.stdout!, options.maxMessageBytes);
    const connection = createMessageConnection(reader, new StreamMessageWriter(forgivingInput(child.stdin!)));
    const session = new ServerSession(child, connection, options);
    session.wire(reader);
    connection.listen();
    try {
      await session.initialize();
    } catch (error) {
      // Its caller hears of it through the throw, not through `ended` as well.
      session.stopping = true;
      session.kill(error instanceof LoomError ? error.message : String(error));
      throw error;
    }
    return session;
  }

  private wire(reader: CappedMessageReader): void {
    const { child, connection, options } = this;
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL)));
    child.on('error', (error) => this.end(`could not start: ${error.message}`));
    child.on('exit', (code, signal) => this.end(signal ? `was stopped by ${signal}` : `exited with code ${code}`));
    // A pipe's error (EPIPE once the process is gone) is the exit's to tell.
    child.stdin!.on('error', () => {});
    reader.onError((error) => this.kill(error.message));
    connection.onError(() => {});
    connection.onNotification((method, params) => {
      if (!this.over) options.onNotification(method, params);
    });
    connection.onRequest((method, params) => this.answer(method, params));
  }

  /** What Loom answers a server's own requests (LSP's client side); anything else is refused. */
  private answer(method: string, params: unknown): unknown {
    switch (method) {
      case 'workspace/configuration': {
        const items = (params as { items?: { section?: string }[] } | undefined)?.items;
        return Array.isArray(items) ? items.slice(0, 100).map((item) => this.options.launch.configuration?.(item?.section) ?? null) : [];
      }
      case 'workspace/workspaceFolders':
        return [{ uri: pathToFileURL(this.options.workspace).href, name: 'workspace' }];
      case 'client/registerCapability':
      case 'client/unregisterCapability':
      case 'window/workDoneProgress/create':
      case 'window/showMessageRequest':
      case 'workspace/diagnostic/refresh':
      case 'workspace/semanticTokens/refresh':
      case 'workspace/inlayHint/refresh':
      case 'workspace/codeLens/refresh':
        return null;
      case 'workspace/applyEdit':
        // Edits reach the workspace only after a preview, through the editor's documents.
        return { applied: false, failureReason: 'Loom applies edits only after they are previewed.' };
      case 'window/showDocument':
        return { success: false };
      default:
        return new ResponseError(-32601, `Loom does not serve ${method.slice(0, 100)}.`);
    }
  }

  private async initialize(): Promise<void> {
    const root = pathToFileURL(this.options.workspace).href;
    const params = {
      processId: process.pid,
      clientInfo: { name: 'loom' },
      rootUri: root,
      rootPath: this.options.workspace,
      workspaceFolders: [{ uri: root, name: 'workspace' }],
      initializationOptions: this.options.launch.initializationOptions ?? {},
      capabilities: {
        general: { positionEncodings: ['utf-16'] },
        workspace: {
          configuration: true,
          workspaceFolders: true,
          applyEdit: false,
          workspaceEdit: { documentChanges: true },
          // Loom follows the workspace's files and tells the server; servers then watch nothing themselves.
          didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: false },
        },
        textDocument: {
          synchronization: { didSave: false, dynamicRegistration: false },
          publishDiagnostics: { versionSupport: true, tagSupport: { valueSet: [1, 2] } },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          definition: { linkSupport: true },
          references: {},
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          rename: { prepareSupport: false },
        },
        window: { workDoneProgress: false },
      },
    };
    const answer = (await this.request('initialize', params, this.options.startTimeoutMs)) as { capabilities?: unknown } | null;
    if (typeof answer !== 'object' || answer === null)
      throw new LoomError('language_server_failed', `The ${this.options.name} language server answered initialize with no capabilities.`);
    await this.notify('initialized', {});
  }

  /**
   * A request, failed with LoomError language_server_timeout past `timeoutMs` (the server is
   * told to cancel it), language_server_failed when the server answers with an error or ends.
   */
  async request(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    if (this.over) throw this.endedError();
    signal?.throwIfAborted();
    const cancel = new CancellationTokenSource();
    let stop!: (error: unknown) => void;
    const limits = new Promise<never>((_, reject) => (stop = reject));
    limits.catch(() => undefined); // settled after the answer won, or never raced at all: nobody's to hear
    const timer = setTimeout(() => {
      cancel.cancel();
      stop(
        new LoomError(
          'language_server_timeout',
          `The ${this.options.name} language server did not answer ${method} within ${timeoutMs} ms.`,
          'Ask again; a server that stopped answering is restarted.',
        ),
      );
    }, timeoutMs);
    const onAbort = () => {
      cancel.cancel();
      stop(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    this.endWaiters.add(stop);
    try {
      const sent = this.connection.sendRequest(method, params, cancel.token);
      sent.catch(() => undefined); // its late failure, once the limits won, is nobody's
      return await Promise.race([sent, limits]);
    } catch (error) {
      if (error instanceof ResponseError) {
        throw new LoomError(
          'language_server_failed',
          `The ${this.options.name} language server could not answer ${method}: ${String(error.message).slice(0, 500)}`,
        );
      }
      if (error instanceof LoomError || error === signal?.reason) throw error;
      throw this.over
        ? this.endedError()
        : new LoomError('language_server_failed', `The ${this.options.name} language server failed on ${method}: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      this.endWaiters.delete(stop);
      cancel.dispose();
    }
  }

  /** The pending requests' rejections: an ending server fails them at once. */
  private readonly endWaiters = new Set<(error: unknown) => void>();

  /** A notification; a server that has not taken MAX_UNWRITTEN of them is not reading, and is stopped. */
  notify(method: string, params: unknown): Promise<void> {
    if (this.over) return Promise.resolve();
    if (++this.unwritten > MAX_UNWRITTEN) {
      this.kill(`took none of the last ${MAX_UNWRITTEN} messages sent to it (it stopped reading its input)`);
      return Promise.resolve();
    }
    return this.connection.sendNotification(method, params).then(
      () => void this.unwritten--,
      () => void this.unwritten--,
    );
  }

  /** Whether the server still answers anything: a request for a method nobody serves, which any live JSON-RPC peer answers (with an error). */
  async answers(timeoutMs: number): Promise<boolean> {
    try {
      await this.request('$/loom/ping', null, timeoutMs);
      return true;
    } catch (error) {
      return error instanceof LoomError && error.code === 'language_server_failed' && !this.over;
    }
  }

  /** Resident memory of the server and what it started, when /proc tells. */
  rss(): number | undefined {
    return this.child.pid === undefined || this.over ? undefined : treeRss(this.child.pid);
  }

  /** Stops it (`shutdown`, `exit`, then the process group is killed): said to nobody through `ended`. */
  async stop(): Promise<void> {
    if (this.over) return;
    this.stopping = true;
    const graceful = (async () => {
      await this.request('shutdown', null, SHUTDOWN_GRACE_MS);
      await this.notify('exit', null);
      await this.exited;
    })().catch(() => undefined);
    await Promise.race([graceful, new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
    this.killGroup();
    await this.exited;
  }

  /** Stops it at once for `reason` (hung, over a limit): `ended` hears the reason. */
  kill(reason: string): void {
    if (this.over) return;
    this.end(reason);
    this.killGroup();
  }

  private killGroup(): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') this.child.kill('SIGKILL');
      else process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }

  private end(reason: string): void {
    if (this.over) return;
    this.over = true;
    const error = new LoomError('language_server_failed', `The ${this.options.name} language server ${reason}.`);
    this.reason = reason;
    for (const waiter of this.endWaiters) waiter(error);
    this.endWaiters.clear();
    this.connection.dispose();
    this.killGroup();
    if (!this.stopping) {
      const tail = this.stderrTail.trim().split('\n').slice(-5).join(' | ');
      this.options.ended(tail ? `${reason} (its last words: ${tail.slice(-500)})` : reason);
    }
  }

  private reason = '';

  private endedError(): LoomError {
    return new LoomError('language_server_failed', `The ${this.options.name} language server ${this.reason || 'stopped'}.`, 'It is restarted; ask again.');
  }
}

/**
 * The server's stdin as the connection writes to it: a write completes when the server has
 * taken it, and completes without an error once the server is gone. vscode-jsonrpc rethrows a
 * failed write of a request where nobody can catch it (an unhandled rejection); a server that
 * died is told by its exit instead.
 */
function forgivingInput(stdin: Writable): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (stdin.destroyed || !stdin.writable) return done();
      stdin.write(chunk, () => done());
    },
  });
}
