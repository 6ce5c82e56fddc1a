// The agent runtime's own cost, model time excluded, on a 5 MB workspace of real code (files of
// packages in node_modules), through the production wiring: AgentManager, the editor's
// documents, the workspace gate and a SQLite store in a temporary data dir (synchronous=FULL,
// as Loom runs it).
//
// (1) Cost per step: the model is an in-process stub that answers at once, so the time from its
//     answer to the next request is the runtime's: reading the answer, running the tools (read a
//     file, edit it through the documents with an atomic write, list a folder), recording the
//     step and the change in the store, the events, the next request. Beside it, in the same
//     process and on the same files, the anchor: the same reads and edits done bare
//     (readFileSync, applyEdit, writeFileAtomically), without checks, records or events.
// (2) From `run` to `agent:start`: the checks, the scope walk, the task's record, the event.
//     Anchor: inserting one task record alone.
// (3) Five tasks at once on the scripted OpenAI-compatible server (HTTP), each editing its own
//     file and all trying one shared file: all complete, every file written by one task only.
// (4) Prompt tokens on a 1,000-file repository with its code index and rules files: the first
//     turn (map + rules + task) against its budgets, and a whole task's tokens (first-turn.ts;
//     alone: npx tsx bench/agents/first-turn.ts). Anchor: the first turn without code intelligence.
//
//   npm run bench:agents      BENCH_STEPS: measured steps (default 400)
//                             BENCH_STARTS: measured starts (default 60)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EditorFiles } from '../../src/core/agents/files/agent-files.ts';
import { applyEdit } from '../../src/core/agents/edits/index.ts';
import { AgentManager } from '../../src/core/agents/manager.ts';
import type { AgentSettings } from '../../src/core/agents/settings.ts';
import type { ChatProvider, ChatRequest, ChatResult, ParsedToolCall } from '../../src/core/completion/chat.ts';
import { EventBus } from '../../src/core/events/bus.ts';
import { writeFileAtomically } from '../../src/core/files/write-atomically.ts';
import { OpenAiProvider } from '../../src/adapters/models/openai.ts';
import { Documents } from '../../src/core/workspace/documents.ts';
import { WorkspacePaths } from '../../src/core/workspace/paths.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { startFakeOpenAi, type ScriptedTurn } from '../../test/support/openai-fake.ts';
import { buildWorkspace, type Workspace } from '../completion/support-workspace.ts';
import { collectGarbage, percentile, readPositive } from '../support.ts';
import { firstTurnTokens } from './first-turn.ts';

const STEPS = Math.round(readPositive('BENCH_STEPS', 400));
const STARTS = Math.round(readPositive('BENCH_STARTS', 60));
const WARMUP = 20;
const GOAL_P99_MS = 5;
const SETTINGS: AgentSettings = {
  maxSteps: 100_000,
  maxTokens: 100_000_000,
  timeoutSeconds: 3600,
  commands: [],
  commandTimeoutSeconds: 60,
  approvalTimeoutSeconds: 60,
};

/** A manager over `root`, a fresh SQLite store in `parent` and the given model. */
async function managerFor(
  root: string,
  provider: ChatProvider & { name: string },
  parent = os.tmpdir(),
): Promise<{ agents: AgentManager; bus: EventBus; store: Store; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(parent, 'loom-bench-agents-data-'));
  const store = await openStore({ dataDir });
  const paths = new WorkspacePaths(root);
  const bus = new EventBus();
  const agents = new AgentManager({
    files: new EditorFiles(paths, new Documents(paths, bus), bus),
    providers: { selectChat: () => provider },
    events: bus,
    repository: store.agentTasks,
    settings: () => SETTINGS,
    secrets: () => [],
  });
  await agents.start();
  return {
    agents,
    bus,
    store,
    close: async () => {
      await agents.close();
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A model that answers at once from a script, timing the runtime between its answers. */
class StubModel implements ChatProvider {
  readonly name = 'stub';
  private answeredAt: number | undefined;
  private answeredCpu: NodeJS.CpuUsage | undefined;
  /** Milliseconds from each answer to the next request: the runtime's work on the turn. */
  readonly gaps: number[] = [];
  /**
   * The CPU time the process spent in each gap (all its threads: file system work, GC), in
   * milliseconds: unlike the wall time, not inflated by waiting for a CPU on a busy machine.
   */
  readonly cpu: number[] = [];

  constructor(private readonly next: (request: ChatRequest) => { text?: string; calls?: [string, Record<string, unknown>][] }) {}

  async chat(request: ChatRequest): Promise<ChatResult> {
    const asked = performance.now();
    if (this.answeredAt !== undefined) this.gaps.push(asked - this.answeredAt);
    if (this.answeredCpu !== undefined) {
      const used = process.cpuUsage(this.answeredCpu);
      this.cpu.push((used.user + used.system) / 1000);
    }
    const { text = '', calls = [] } = this.next(request);
    const toolCalls: ParsedToolCall[] = calls.map(([name, args], index) => ({
      id: `call_${request.messages.length}_${index}`,
      name,
      argumentsText: JSON.stringify(args),
      arguments: args,
    }));
    this.answeredAt = performance.now();
    this.answeredCpu = process.cpuUsage();
    return {
      text,
      toolCalls,
      finishReason: toolCalls.length ? 'tool_calls' : 'stop',
      usage: { promptTokens: 100, completionTokens: 10, source: 'server' },
      toolMode: 'native',
      timing: { totalMs: 1 },
      model: this.name,
    };
  }

  /** The next task's first request is not a gap. */
  reset(): void {
    this.answeredAt = undefined;
    this.answeredCpu = undefined;
  }
}

/** A line of `text` that occurs once (trimmed), not blank, to anchor an edit on. */
function uniqueLine(text: string): string | undefined {
  const lines = text.split('\n');
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line.trim(), (counts.get(line.trim()) ?? 0) + 1);
  return lines.find((line, i) => i < lines.length - 1 && line.trim().length > 8 && counts.get(line.trim()) === 1 && !line.includes('\r'));
}

interface StepPlan {
  file: string;
  line: string;
}

/** The files and lines the measured steps read and edit: every file with a line to anchor on, in order. */
function plan(workspace: Workspace, count: number): StepPlan[] {
  const out: StepPlan[] = [];
  for (const file of workspace.files) {
    const line = uniqueLine(file.text);
    if (line !== undefined) out.push({ file: file.path, line });
    if (out.length === count) break;
  }
  return out;
}

function summary(samples: readonly number[]): { p50: number; p99: number; max: number } {
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), max: Math.max(...samples) };
}

const ms = (value: number) => `${value.toFixed(value < 1 ? 3 : 2)} ms`;

/**
 * (1) Runtime cost per step, against bare reads and edits of the same files; the workspace and
 * the store in `parent` (the disk's temporary folder, or memory: what is left is CPU).
 */
async function stepCost(workspace: Workspace, parent: string, label: string): Promise<void> {
  const edits = plan(workspace, Math.ceil((STEPS + WARMUP) / 3) + 1);
  // Turn k: read the next file, edit it, list it by a glob over its folder, in turn; then done.
  let turn = 0;
  const stub = new StubModel(() => {
    const k = turn++;
    const step = edits[Math.floor(k / 3)];
    if (!step || k >= STEPS + WARMUP) return { text: 'Done.' };
    if (k % 3 === 0) return { calls: [['read_file', { path: step.file }]] };
    if (k % 3 === 1) return { calls: [['edit_file', { path: step.file, search: `${step.line}\n`, replace: `${step.line} // agent\n` }]] };
    // Each listing names its file, so that no two are the same call with the same result (a loop).
    return { calls: [['list_files', { pattern: `${path.posix.dirname(step.file)}/*${path.posix.basename(step.file)}` }]] };
  });
  const { agents, bus, close } = await managerFor(workspace.root, stub, parent);
  const done = new Promise<void>((resolve) => bus.subscribe((event) => (event.type === 'agent:complete' ? resolve() : undefined)));
  collectGarbage();
  const { taskId } = await agents.run({ task: 'Comment lines', files: ['**'] });
  await done;
  const status = await agents.status(taskId);
  await close();
  if (status.reason !== 'done') throw new Error(`the task ended ${status.reason}: ${status.error ?? ''}`);
  const gaps = stub.gaps.slice(WARMUP);
  const byKind = (kind: number) =>
    stub.gaps
      .map((gap, i) => ({ gap, i }))
      .filter(({ i }) => i >= WARMUP && i % 3 === kind)
      .map(({ gap }) => gap);

  // The anchor: the same reads and edits, bare, on a fresh copy of the same files.
  const anchor: number[] = [];
  const anchorRoot = fs.mkdtempSync(path.join(parent, 'loom-bench-agents-anchor-'));
  for (const step of edits) {
    fs.mkdirSync(path.join(anchorRoot, path.dirname(step.file)), { recursive: true });
    fs.copyFileSync(path.join(workspace.root, step.file), path.join(anchorRoot, step.file));
  }
  collectGarbage();
  for (const step of edits.slice(0, Math.floor((STEPS + WARMUP) / 3))) {
    const file = path.join(anchorRoot, step.file);
    let started = performance.now();
    const text = fs.readFileSync(file, 'utf8');
    anchor.push(performance.now() - started);
    started = performance.now();
    const result = applyEdit(text, { search: `${step.line} // agent\n`, replace: `${step.line} // again\n` });
    if (!result.ok) throw new Error(`anchor edit refused in ${step.file}: ${result.message}`);
    writeFileAtomically(file, result.content);
    anchor.push(performance.now() - started);
    started = performance.now();
    fs.readdirSync(path.dirname(file));
    anchor.push(performance.now() - started);
  }
  fs.rmSync(anchorRoot, { recursive: true, force: true });
  const loom = summary(gaps);
  const cpu = summary(stub.cpu.slice(WARMUP));
  const bare = summary(anchor.slice(WARMUP));
  console.log(
    `\n(1) Runtime cost per step, model time excluded: ${gaps.length} steps on ${(workspace.bytes / 1024 / 1024).toFixed(1)} MB (${workspace.files.length} files); files and store ${label}`,
  );
  console.log(
    `    all steps          p50 ${ms(loom.p50)}   p99 ${ms(loom.p99)}   max ${ms(loom.max)}   goal p99 < ${GOAL_P99_MS} ms: ${loom.p99 < GOAL_P99_MS ? 'met' : 'NOT met'}`,
  );
  console.log(`    CPU time per step  p50 ${ms(cpu.p50)}   p99 ${ms(cpu.p99)}   (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs)`);
  for (const [kind, name] of [
    [0, 'read_file'],
    [1, 'edit_file'],
    [2, 'list_files'],
  ] as const) {
    const figures = summary(byKind(kind));
    console.log(`    ${name.padEnd(18)} p50 ${ms(figures.p50)}   p99 ${ms(figures.p99)}`);
  }
  console.log(
    `    anchor (bare read, edit + atomic write, readdir): p50 ${ms(bare.p50)}   p99 ${ms(bare.p99)}   loom/anchor: p50 ${(loom.p50 / bare.p50).toFixed(1)}x, p99 ${(loom.p99 / bare.p99).toFixed(1)}x`,
  );
}

/** (2) From run to agent:start, against one bare insert of a task record. */
async function startLatency(workspace: Workspace): Promise<void> {
  const stub = new StubModel(() => ({ text: 'Done.' }));
  const { agents, bus, store, close } = await managerFor(workspace.root, stub);
  let startedAt = 0;
  const latencies: number[] = [];
  let ended: () => void = () => {};
  bus.subscribe((event) => {
    if (event.type === 'agent:start') latencies.push(performance.now() - startedAt);
    if (event.type === 'agent:complete') ended();
  });
  for (let i = 0; i < STARTS + 5; i++) {
    const complete = new Promise<void>((resolve) => (ended = resolve));
    stub.reset();
    startedAt = performance.now();
    await agents.run({ task: `Task ${i}`, files: ['src1*/**/*.js'] });
    await complete;
  }
  const anchor: number[] = [];
  const template = await store.agentTasks.get((await store.agentTasks.list({ limit: 1 }))[0]!.id);
  for (let i = 0; i < STARTS + 5; i++) {
    const started = performance.now();
    await store.agentTasks.create({ ...template!, id: `anchor_${i}` });
    anchor.push(performance.now() - started);
  }
  await close();
  const loom = summary(latencies.slice(5));
  const bare = summary(anchor.slice(5));
  console.log(`\n(2) run → agent:start (${STARTS} tasks, scope src1*/**/*.js)`);
  console.log(`    p50 ${ms(loom.p50)}   p99 ${ms(loom.p99)}   max ${ms(loom.max)}`);
  console.log(`    anchor (one task record inserted): p50 ${ms(bare.p50)}   p99 ${ms(bare.p99)}   loom/anchor: p50 ${(loom.p50 / bare.p50).toFixed(1)}x`);
}

/** (3) Five tasks at once on the scripted server over HTTP. */
async function concurrentTasks(): Promise<void> {
  const TASKS = 5;
  const EDITS = 6;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-agents-five-'));
  const lines = Array.from({ length: EDITS }, (_, i) => `export const line${i} = ${i};`);
  for (let n = 0; n < TASKS; n++) {
    fs.mkdirSync(path.join(root, 'own'), { recursive: true });
    fs.writeFileSync(path.join(root, `own/${n}.ts`), `${lines.join('\n')}\n`);
  }
  fs.writeFileSync(path.join(root, 'shared.ts'), 'export const shared = 0;\n');
  const fake = await startFakeOpenAi();
  // Each conversation is answered by what it holds: its task number and how many turns it had.
  fake.chat.respondWith((body): ScriptedTurn => {
    const n = Number(/Task: task (\d+)/.exec(body.messages[1].content)?.[1]);
    const turn = body.messages.filter((message: { role: string }) => message.role === 'assistant').length;
    const call = (name: string, args: Record<string, unknown>) => ({ id: `call_${n}_${turn}_${name}`, name, arguments: JSON.stringify(args) });
    if (turn < EDITS) {
      const own = call('edit_file', { path: `own/${n}.ts`, search: `${lines[turn]}\n`, replace: `${lines[turn]} // task ${n}\n` });
      const shared =
        turn === 0
          ? [call('read_file', { path: 'shared.ts' })]
          : turn === 1
            ? [call('edit_file', { path: 'shared.ts', search: 'export const shared = 0;\n', replace: `export const shared = ${n + 1};\n` })]
            : [];
      return { kind: 'tools', calls: [own, ...shared], usage: { prompt: 500, completion: 40 } };
    }
    return { kind: 'text', text: `Task ${n} done.`, usage: { prompt: 500, completion: 10 } };
  });
  const provider = new OpenAiProvider({ baseUrl: fake.baseUrl, model: 'scripted', fim: 'off' });
  const { agents, store, close } = await managerFor(root, provider);
  const started = performance.now();
  const ids = await Promise.all(
    Array.from({ length: TASKS }, (_, n) => agents.run({ task: `task ${n}`, files: [`own/${n}.ts`, 'shared.ts'] }).then((task) => task.taskId)),
  );
  const statuses = await Promise.all(
    ids.map(async (id) => {
      for (;;) {
        const status = await agents.status(id);
        if (status.status !== 'running') return status;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }),
  );
  const elapsed = performance.now() - started;
  // Which task wrote which file, from the step logs: a file written by two tasks would be an interleaving.
  const writers = new Map<string, Set<string>>();
  for (const id of ids) {
    for (const step of await store.agentTasks.steps(id, { after: 0, limit: 1000 })) {
      if (step.tool !== 'edit_file' || !step.ok) continue;
      const file = JSON.parse(step.arguments!).path as string;
      writers.set(file, (writers.get(file) ?? new Set()).add(id));
    }
  }
  const ownComplete = Array.from(
    { length: TASKS },
    (_, n) => fs.readFileSync(path.join(root, `own/${n}.ts`), 'utf8') === `${lines.map((line) => `${line} // task ${n}`).join('\n')}\n`,
  );
  const sharedWriters = writers.get('shared.ts')?.size ?? 0;
  const interleaved = [...writers.values()].filter((tasks) => tasks.size > 1).length;
  await close();
  await fake.close();
  fs.rmSync(root, { recursive: true, force: true });
  const completed = statuses.filter((status) => status.status === 'completed').length;
  console.log(`\n(3) ${TASKS} tasks at once on the scripted server (HTTP): ${EDITS} turns each, every task editing its own file and trying one shared file`);
  console.log(
    `    completed ${completed}/${TASKS} in ${ms(elapsed)}; own files complete: ${ownComplete.filter(Boolean).length}/${TASKS}; shared file written by ${sharedWriters} task (the others were refused: it was held); files written by more than one task: ${interleaved}`,
  );
  if (completed !== TASKS || !ownComplete.every(Boolean) || sharedWriters !== 1 || interleaved !== 0) throw new Error('five concurrent tasks: not as expected');
}

/** The workspace copied into memory (/dev/shm), where there is one. */
function inMemory(workspace: Workspace): Workspace | undefined {
  if (!fs.existsSync('/dev/shm')) return undefined;
  const root = fs.mkdtempSync('/dev/shm/loom-bench-agents-');
  fs.cpSync(workspace.root, root, { recursive: true });
  return { ...workspace, root, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}

const workspace = buildWorkspace(5);
const memory = inMemory(workspace);
try {
  console.log(`Agents runtime benchmark (node ${process.version}, ${os.cpus().length} CPUs)`);
  await stepCost(workspace, os.tmpdir(), `on disk (${os.tmpdir()}: every edit and change record is fsynced)`);
  if (memory) await stepCost(memory, '/dev/shm', 'in memory (/dev/shm: fsync is free, what is left is CPU)');
  await startLatency(workspace);
  await concurrentTasks();
  await firstTurnTokens();
} finally {
  workspace.remove();
  memory?.remove();
}
