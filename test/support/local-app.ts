// Builds the local API app itself (buildLocalApp, the production builder, with every route of
// the table over real but idle services) around an empty workspace, plus routes of the test's
// own, listening on 127.0.0.1:0: for rules that need a route the product does not have (a
// public one, one whose answer the test holds back).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { openCodeIntel } from '../../src/compose/code-intel.ts';
import { createCompletionEngine } from '../../src/compose/completion.ts';
import { createLanguageService } from '../../src/compose/language-servers.ts';
import { defaultConnectionLimits, loadConfig, type ConnectionLimits } from '../../src/config/load.ts';
import { EditorFiles } from '../../src/core/agents/files/agent-files.ts';
import { AgentManager } from '../../src/core/agents/manager.ts';
import { agentSettings } from '../../src/core/agents/settings.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { BuiltinModel, BuiltinProvider } from '../../src/core/completion/builtin/index.ts';
import { EventBus } from '../../src/core/events/bus.ts';
import { WindowComposer } from '../../src/local/composer.ts';
import { createGitWorkspace } from '../../src/compose/git.ts';
import { WebhookOutbox } from '../../src/core/webhooks/index.ts';
import { Documents } from '../../src/core/workspace/documents.ts';
import { ExtensionHost } from '../../src/extensions/extension-host.ts';
import { WorkspacePaths } from '../../src/core/workspace/paths.ts';
import { buildLocalApp } from '../../src/local/app.ts';
import { DEFAULT_LOCAL_LIMITS } from '../../src/local/rate-limit.ts';
import { openStore } from '../../src/store/index.ts';

export interface TestLocalApp {
  app: FastifyInstance;
  port: number;
  token: string;
  /** A one-time sign-in code for the window, as `loom serve --open` mints one. */
  signInCode(): string;
  close(): Promise<void>;
}

export async function startTestLocalApp(options: { routes: (app: FastifyInstance) => void; http?: Partial<ConnectionLimits> }): Promise<TestLocalApp> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-ws-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-data-'));
  const clock = new ManualClock();
  const bus = new EventBus(clock);
  const store = await openStore({ dataDir });
  // The config folder is the empty data folder: defaults only, whatever this machine's user has set.
  const { completion, agents, extensions, codeIndex, languageServers } = loadConfig({ env: { LOOM_CONFIG_DIR: dataDir } });
  const engine = createCompletionEngine({ builtin: new BuiltinProvider(new BuiltinModel()), catalog: { models: [] }, modelsDir: dataDir }, () => completion);
  const token = 'loom_test_token_for_the_local_app_0123456789';
  const paths = new WorkspacePaths(workspace);
  const documents = new Documents(paths, bus);
  const agentManager = new AgentManager({
    files: new EditorFiles(paths, documents, bus),
    providers: engine.providers,
    events: bus,
    repository: store.agentTasks,
    settings: () => agentSettings(agents, undefined),
    secrets: () => [token],
    clock,
  });
  // The code index (never built here) and the language service (no server started: turned off).
  const code = openCodeIntel({ workspace, dataDir, settings: codeIndex });
  const languages = createLanguageService({
    paths,
    documents,
    events: bus,
    dataDir,
    settings: { ...languageServers, enabled: false },
    serverSettings: () => undefined,
    onSettingsChange: () => {},
    trusted: () => false,
    log: () => {},
    clock,
  });
  let port = 0;
  const { app, events, signIn } = await buildLocalApp({
    services: {
      version: '0.0.0-test',
      clock,
      startedAt: clock.now(),
      events: bus,
      documents,
      paths,
      git: createGitWorkspace({ root: workspace }),
      completion: engine,
      webhooks: new WebhookOutbox(store.webhooks, clock),
      agents: agentManager,
      // No extension folder exists here: the host finds none and starts nothing.
      extensions: new ExtensionHost({ configDir: dataDir, workspace, documents, events: bus, limits: extensions }),
      secrets: () => [token],
      code: code.index,
      languages,
      // No hosted API beside it: the composer routes answer 409 COMPOSER_UNAVAILABLE.
      composer: new WindowComposer(bus),
    },
    token: () => token,
    limits: () => DEFAULT_LOCAL_LIMITS,
    http: { ...defaultConnectionLimits(), ...options.http },
    port: () => port,
    logLevel: 'silent',
  });
  // Registered after the product's routes and before listening: the same hooks guard them.
  options.routes(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    port,
    token,
    signInCode: () => signIn.mintCode(),
    async close() {
      events.close();
      await app.close();
      await agentManager.close();
      await languages.close();
      await code.close();
      await engine.close();
      await store.close();
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
