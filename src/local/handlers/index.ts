// The local routes' handlers: typed input in, typed output out, no framework objects. Each
// area's handlers are in a file of their own; routes.ts mounts them from the route table.
import type { AnyLocalRoute, HttpLocalRoute, LocalRouteInput, LocalRouteOutput, LocalTag } from '../../contracts/local-routes.ts';
import type { OpenApiDocument } from '../../contracts/local-resources.ts';
import type { AgentManager } from '../../core/agents/manager.ts';
import type { Clock } from '../../core/clock.ts';
import type { CodeIntel } from '../../core/code/service.ts';
import type { CompletionEngine } from '../../core/completion/engine.ts';
import type { EventBus } from '../../core/events/bus.ts';
import type { GitWorkspace } from '../../core/git/index.ts';
import type { LanguageService } from '../../core/language/service.ts';
import type { WebhookOutbox } from '../../core/webhooks/index.ts';
import type { Documents } from '../../core/workspace/documents.ts';
import type { WorkspacePaths } from '../../core/workspace/paths.ts';
import type { ExtensionHost } from '../../extensions/extension-host.ts';
import type { WindowComposer } from '../composer.ts';
import type { Terminals } from '../terminal/terminals.ts';
import type { TicketBook } from '../tickets.ts';
import type { WindowSignIn } from '../window/sign-in.ts';
import { agentHandlers } from './agents.ts';
import { aiHandlers } from './ai.ts';
import { codeHandlers } from './code.ts';
import { composerHandlers } from './composer.ts';
import { editorHandlers } from './editor.ts';
import { extensionHandlers } from './extensions.ts';
import { fileHandlers } from './files.ts';
import { eventHandlers } from './events.ts';
import { gitHandlers } from './git.ts';
import { serviceHandlers } from './service.ts';
import { terminalHandlers } from './terminal.ts';
import { webhookHandlers } from './webhooks.ts';
import { windowHandlers } from './window.ts';

/** What the local API works on: the composition root (server.ts) builds these. */
export interface LocalServices {
  version: string;
  clock: Clock;
  /** When the server started, on `clock`. */
  startedAt: number;
  /** Where the routes' events go: to /events clients and, durably, to the webhook outbox. */
  events: EventBus;
  documents: Documents;
  /** The workspace's one gate for paths (the window's file tree lists through it). */
  paths: WorkspacePaths;
  git: GitWorkspace;
  completion: CompletionEngine;
  webhooks: WebhookOutbox;
  agents: AgentManager;
  /** The extensions and their processes. */
  extensions: ExtensionHost;
  /** Values no process Loom starts for the user may see in its environment (the token, a provider's key). */
  secrets: () => readonly string[];
  /** The workspace's code index (docs/code-intelligence.md). */
  code: CodeIntel;
  /** The language servers: definition, references, hover, diagnostics, rename. */
  languages: LanguageService;
  /** The window's composer sessions, once `loom up` hands over the hosted API's (else 409 COMPOSER_UNAVAILABLE). */
  composer: WindowComposer;
}

/** What the app itself adds for its own routes: the event tickets, the token, the OpenAPI document. */
export interface LocalAppParts {
  tickets: TicketBook;
  token: () => string;
  openApi: () => OpenApiDocument;
  /** The window's sign-in codes and sessions. */
  signIn: WindowSignIn;
  /** The window's terminals. */
  terminals: Terminals;
  /** The port listened on (a sign-in link names it). */
  port: () => number;
}

export interface LocalHandlerContext {
  /** Aborted when the client goes away before the answer (long-running handlers stop then). */
  readonly signal: AbortSignal;
  /** The window's session cookie: the id the request carried, and setting (or, with null, clearing) it on the answer. */
  readonly cookie: { readonly session: string | undefined; set(id: string | null): void };
}

type Handler<R extends AnyLocalRoute> = (input: LocalRouteInput<R>, context: LocalHandlerContext) => Promise<LocalRouteOutput<R>>;

/** One handler per HTTP route of the table, by route id. */
export type LocalHandlers = { [R in HttpLocalRoute as R['id']]: Handler<R> };

/** The handlers of one area (tag) of the table. */
export type LocalHandlersOf<Tag extends LocalTag> = { [R in Extract<HttpLocalRoute, { tag: Tag }> as R['id']]: Handler<R> };

/**
 * Every handler of the table, over the given services.
 *
 * @example
 *   const handlers = createLocalHandlers(services, { tickets, token, openApi });
 *   await handlers.openDocument({ params: undefined, query: undefined, body: { path: 'src/a.ts' } }, { signal });
 */
export function createLocalHandlers(services: LocalServices, app: LocalAppParts): LocalHandlers {
  return {
    ...serviceHandlers(services, app),
    ...editorHandlers(services),
    ...aiHandlers(services),
    ...agentHandlers(services),
    ...gitHandlers(services),
    ...eventHandlers(app),
    ...webhookHandlers(services),
    ...windowHandlers(services, app),
    ...fileHandlers(services),
    ...extensionHandlers(services, app),
    ...terminalHandlers(app),
    ...codeHandlers(services),
    ...composerHandlers(services),
  };
}
