// An agent manager over a real workspace (a temporary folder), the editor's documents, a real
// SQLite store and the openai provider talking to the scripted OpenAI-compatible server: what
// the desktop app wires, minus HTTP. Events are collected; helpers script tool calls.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { EditorFiles } from '../../../src/core/agents/files/agent-files.ts';
import { AgentManager } from '../../../src/core/agents/manager.ts';
import type { AgentTaskRepository } from '../../../src/core/agents/records.ts';
import type { AgentSettings } from '../../../src/core/agents/settings.ts';
import type { Clock } from '../../../src/core/clock.ts';
import { BuiltinModel, BuiltinProvider } from '../../../src/core/completion/builtin/index.ts';
import { ProviderSet } from '../../../src/core/completion/providers.ts';
import { EventBus, type LoomEvent } from '../../../src/core/events/bus.ts';
import { GgufProvider } from '../../../src/adapters/models/gguf.ts';
import { OpenAiProvider } from '../../../src/adapters/models/openai.ts';
import { Documents } from '../../../src/core/workspace/documents.ts';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';
import type { Store, StoreOptions } from '../../../src/store/index.ts';
import { startFakeOpenAi, type FakeOpenAi, type ScriptedTurn } from '../../support/openai-fake.ts';
import { openTestStore } from '../../support/store.ts';
import { waitFor } from '../../support/wait.ts';

export const SETTINGS: AgentSettings = {
  maxSteps: 20,
  maxTokens: 1_000_000,
  timeoutSeconds: 600,
  commands: [],
  commandTimeoutSeconds: 60,
  approvalTimeoutSeconds: 60,
};

export interface Harness {
  root: string;
  fake: FakeOpenAi;
  store: Store;
  bus: EventBus;
  documents: Documents;
  events: LoomEvent[];
  /** What the manager told the server's log. */
  logged: { message: string; cause: unknown }[];
  agents: AgentManager;
  settings: AgentSettings;
  /** A file of the workspace, or null when missing. */
  file(relative: string): string | null;
  write(relative: string, text: string): void;
  /** Resolves with the task's agent:complete event (`limitMs`: the guard against a hang). */
  completed(taskId: string, limitMs?: number): Promise<LoomEvent>;
  /** A new manager on the same workspace, store and server (a restart). */
  restart(): Promise<AgentManager>;
}

export interface HarnessOptions {
  files?: Record<string, string>;
  settings?: Partial<AgentSettings>;
  clock?: Clock;
  /** The default completion provider (builtin: agents must pick the openai one anyway). */
  provider?: 'builtin' | 'openai';
  /** No openai provider at all: only builtin. */
  noChatModel?: boolean;
  /** A gguf model file (the tiny random-weight ones), served as the default provider `tiny`. */
  gguf?: string;
  /** The store (a STORE_DIALECTS one); a fresh SQLite one without. */
  store?: StoreOptions;
  /** Stands between the manager and the store's repository (to make writes fail). */
  repository?: (stored: AgentTaskRepository) => AgentTaskRepository;
}

export async function agentHarness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-agent-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-agent-data-'));
  t.after(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  for (const [relative, text] of Object.entries(options.files ?? { 'src/math.ts': MATH })) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  }
  const fake = await startFakeOpenAi();
  t.after(() => fake.close());
  const store = await openTestStore(t, options.store ?? { dataDir });
  const paths = new WorkspacePaths(root);
  const bus = new EventBus();
  const events: LoomEvent[] = [];
  const logged: Harness['logged'] = [];
  bus.subscribe((event) => void events.push(event));
  const documents = new Documents(paths, bus);
  const providers = new ProviderSet(
    new BuiltinProvider(new BuiltinModel()),
    {
      gguf: (settings) =>
        new GgufProvider({ file: settings.model, name: 'tiny', gpu: 'off', contextSize: 512, threads: 1, sequences: 1, chatContextSize: settings.contextSize }),
      openai: (settings) => new OpenAiProvider(settings),
    },
    {
      provider: options.provider ?? (options.gguf ? 'gguf' : 'openai'),
      ...(options.gguf ? { gguf: { model: options.gguf, gpu: 'off' as const, contextSize: 8192 } } : {}),
      timeoutMs: 10_000,
      maxTokens: 64,
      prefixChars: 8192,
      suffixChars: 2048,
      ...(options.noChatModel ? {} : { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' as const, apiKey: 'sk-provider-secret-123' } }),
    },
  );
  t.after(() => providers.close());
  const settings = { ...SETTINGS, ...options.settings };
  const make = async () => {
    const manager = new AgentManager({
      files: new EditorFiles(paths, documents, bus),
      providers,
      events: bus,
      repository: options.repository ? options.repository(store.agentTasks) : store.agentTasks,
      settings: () => settings,
      secrets: () => ['sk-provider-secret-123', 'loom_local_api_token_0123456789'],
      // As settings.json's list in the app: an approval `always` adds to it.
      rememberCommand: (command) => {
        if (!settings.commands.includes(command)) settings.commands = [...settings.commands, command];
      },
      log: { error: (message, cause) => void logged.push({ message, cause }) },
      ...(options.clock ? { clock: options.clock } : {}),
    });
    await manager.start();
    t.after(() => manager.close());
    return manager;
  };
  const agents = await make();
  const completed = async (taskId: string, limitMs?: number) => {
    let found: LoomEvent | undefined;
    await waitFor(
      () => (found = events.find((event) => event.type === 'agent:complete' && event.data.taskId === taskId)) !== undefined,
      limitMs,
      `agent:complete of ${taskId}`,
    );
    return found!;
  };
  return {
    root,
    fake,
    store,
    bus,
    documents,
    events,
    logged,
    agents,
    settings,
    file: (relative) => (fs.existsSync(path.join(root, relative)) ? fs.readFileSync(path.join(root, relative), 'utf8') : null),
    write: (relative, text) => {
      fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
      fs.writeFileSync(path.join(root, relative), text);
    },
    completed,
    restart: make,
  };
}

export const MATH =
  'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n';

let callNumber = 0;

/** A turn of native tool calls: [name, arguments object or raw text]. */
export function calls(...list: [string, Record<string, unknown> | string][]): Extract<ScriptedTurn, { kind: 'tools' }> {
  return {
    kind: 'tools',
    calls: list.map(([name, args]) => ({ id: `call_${++callNumber}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) })),
    usage: { prompt: 1000, completion: 50 },
  };
}

/** A turn of plain text (the model's last words, or search/replace blocks). */
export function says(text: string): Extract<ScriptedTurn, { kind: 'text' }> {
  return { kind: 'text', text, usage: { prompt: 1000, completion: 50 } };
}

/** The messages of the chat request number `n` (0-based) the server received. */
export function chatRequest(fake: FakeOpenAi, n: number): { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[] {
  const chats = fake.requests.filter((request) => request.path === '/v1/chat/completions');
  return chats[n]!.body.messages;
}
