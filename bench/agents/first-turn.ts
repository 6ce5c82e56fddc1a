// What an agent task's prompt costs in tokens on a 1,000-file repository of real code (files of
// packages in node_modules) with its code index built and rules files at the root and in a
// folder: the first turn's prompt (the system prompt with the rules, the task, the files in
// scope and the repository map, the tools' declarations) against its budgets (agents.mapTokens,
// agents.rulesTokens), and the tokens of a whole task (read, edit, summary) as its status and
// step log count them. The anchor, in the same process: the same task's first turn without code
// intelligence (the bare file list). Tokens are estimated as the code index counts them
// (src/core/code/token-count.ts); the stub model reports that count as the prompt's usage.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { agentIntel } from '../../src/compose/agent-intel.ts';
import { openCodeIntel } from '../../src/compose/code-intel.ts';
import { EditorFiles } from '../../src/core/agents/files/agent-files.ts';
import type { AgentIntel } from '../../src/core/agents/intel/intel.ts';
import { DEFAULT_MAP_TOKENS, DEFAULT_RULES_TOKENS } from '../../src/core/agents/intel/task-context.ts';
import { AgentManager } from '../../src/core/agents/manager.ts';
import type { AgentSettings } from '../../src/core/agents/settings.ts';
import { estimateTokens } from '../../src/core/code/token-count.ts';
import type { ChatProvider, ChatRequest, ChatResult } from '../../src/core/completion/chat.ts';
import { EventBus, type LoomEvent } from '../../src/core/events/bus.ts';
import { Documents } from '../../src/core/workspace/documents.ts';
import { WorkspacePaths } from '../../src/core/workspace/paths.ts';
import { openStore } from '../../src/store/index.ts';
import { buildWorkspace } from '../completion/support-workspace.ts';

const FILES = 1000;
const SETTINGS: AgentSettings = {
  maxSteps: 20,
  maxTokens: 10_000_000,
  timeoutSeconds: 600,
  commands: [],
  commandTimeoutSeconds: 60,
  approvalTimeoutSeconds: 60,
  mapTokens: DEFAULT_MAP_TOKENS,
  rulesTokens: DEFAULT_RULES_TOKENS,
};
const RULES = [
  '# Working on this repository',
  '',
  '- Code is JavaScript and TypeScript: keep the style of the file you change (semicolons, quotes, indentation).',
  '- Every exported function has a doc comment with an example; keep it true when you change the function.',
  '- Run `npm test` after a change; a change without a test for it is not done.',
  '- Never edit generated files (`dist/`, `*.min.js`); change their sources.',
  '- Errors are thrown as `Error` subclasses with a message that says what to do.',
].join('\n');

/** A model that answers at once from a script and counts each prompt's tokens as its usage. */
class CountingModel implements ChatProvider {
  readonly name = 'counting';
  readonly prompts: ChatRequest[] = [];
  private turn = 0;

  constructor(private readonly script: (turn: number) => { text?: string; call?: [string, Record<string, unknown>] }) {}

  async chat(request: ChatRequest): Promise<ChatResult> {
    // The loop goes on adding to its messages: what this turn was sent is a copy.
    this.prompts.push({ ...request, messages: [...request.messages] });
    const { text = '', call } = this.script(this.turn++);
    const prompt = promptTokens(request);
    return {
      text,
      toolCalls: call ? [{ id: `call_${this.turn}`, name: call[0], argumentsText: JSON.stringify(call[1]), arguments: call[1] }] : [],
      finishReason: call ? 'tool_calls' : 'stop',
      usage: { promptTokens: prompt, completionTokens: estimateTokens(text + JSON.stringify(call ?? '')), source: 'server' },
      toolMode: 'native',
      timing: { totalMs: 1 },
      model: this.name,
    };
  }
}

function promptTokens(request: ChatRequest): number {
  return estimateTokens(request.messages.map((message) => message.content).join('\n')) + estimateTokens(JSON.stringify(request.tools ?? []));
}

/** Runs one task to its end; answers its status and events. */
async function runTask(root: string, intel: AgentIntel | undefined, model: CountingModel, request: { task: string; files: string[] }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-first-turn-data-'));
  const store = await openStore({ dataDir });
  const paths = new WorkspacePaths(root);
  const bus = new EventBus();
  const events: LoomEvent[] = [];
  bus.subscribe((event) => void events.push(event));
  const agents = new AgentManager({
    files: new EditorFiles(paths, new Documents(paths, bus), bus),
    providers: { selectChat: () => model },
    events: bus,
    repository: store.agentTasks,
    settings: () => SETTINGS,
    secrets: () => [],
    ...(intel ? { intel: () => intel } : {}),
  });
  await agents.start();
  try {
    const { taskId } = await agents.run(request);
    while (!events.some((event) => event.type === 'agent:complete' && event.data['taskId'] === taskId)) await new Promise((resolve) => setTimeout(resolve, 10));
    return { status: await agents.status(taskId), steps: await agents.steps(taskId, { limit: 500 }) };
  } finally {
    await agents.close();
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Section (4) of `npm run bench:agents`.
 *
 * @example await firstTurnTokens();
 */
export async function firstTurnTokens(): Promise<void> {
  const workspace = buildWorkspace(12);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-first-turn-index-'));
  try {
    // Exactly FILES files: the rest of what was copied goes.
    for (const file of workspace.files.slice(FILES)) fs.rmSync(path.join(workspace.root, file.path));
    const files = workspace.files.slice(0, FILES);
    fs.writeFileSync(path.join(workspace.root, 'AGENTS.md'), `${RULES}\n`);
    fs.writeFileSync(path.join(workspace.root, 'src3', 'AGENTS.md'), 'In src3, keep every module free of side effects at import time.\n');
    const code = openCodeIntel({
      workspace: workspace.root,
      dataDir,
      settings: { maxFileBytes: 1024 * 1024, maxFiles: 100_000, dependencies: false, workers: 0, background: true },
      foreground: true,
    });
    try {
      const built = Date.now();
      await code.index.refresh();
      const indexed = code.index.status();
      // A task about one file of src3: its name, and a definition in it, in the task's words.
      const target = files.find((file) => file.path.startsWith('src3/') && /function \w{6,}/.test(file.text))!;
      const name = /function (\w{6,})/.exec(target.text)![1]!;
      const request = { task: `Make ${name} in ${path.basename(target.path)} reject an empty argument with a clear error.`, files: ['src3/**'] };
      const intel = agentIntel({ index: code.index, history: false });

      const withIntel = new CountingModel(() => ({ text: 'Nothing to do.' }));
      const mapped = await runTask(workspace.root, intel, withIntel, request);
      const bare = new CountingModel(() => ({ text: 'Nothing to do.' }));
      await runTask(workspace.root, undefined, bare, request);

      const first = withIntel.prompts[0]!;
      const system = estimateTokens(first.messages[0]!.content);
      const message = estimateTokens(first.messages[1]!.content);
      const tools = estimateTokens(JSON.stringify(first.tools ?? []));
      const context = mapped.steps.find((step) => step.context)?.context;
      const rules = context?.rules.reduce((sum, rule) => sum + rule.tokens, 0) ?? 0;
      const total = promptTokens(first);
      const anchor = promptTokens(bare.prompts[0]!);
      console.log(
        `\n(4) Prompt tokens on a ${FILES}-file repository (${indexed.parsed} files parsed, index built in ${Date.now() - built} ms); task on src3/** (100 files)`,
      );
      console.log(
        `    first turn          ${total} tokens: system prompt ${system} (rules ${rules} of ${SETTINGS.rulesTokens}), first message ${message} (map ${context?.map?.tokens ?? 0} of ${context?.map?.budget ?? 0}, ${context?.map?.files ?? 0} files), tools ${tools}`,
      );
      console.log(
        `    anchor (no intel)   ${anchor} tokens (the file list alone, no rules, no code tools)   first turn/anchor ${(total / anchor).toFixed(2)}x`,
      );
      const budget = SETTINGS.mapTokens! + SETTINGS.rulesTokens! + anchor;
      console.log(
        `    within budget       ${total <= budget ? 'yes' : 'NO'}: ${total} ≤ map ${SETTINGS.mapTokens} + rules ${SETTINGS.rulesTokens} + the anchor's ${anchor}`,
      );

      // A whole task: read the file, edit it, sum up; the tokens its status counts.
      const line = target.text.split('\n').find((text) => text.includes(`function ${name}`))!;
      const worker = new CountingModel((turn) =>
        turn === 0
          ? { call: ['read_file', { path: target.path }] }
          : turn === 1
            ? { call: ['edit_file', { path: target.path, search: line, replace: `${line} // checked` }] }
            : { text: `Made ${name} reject an empty argument.` },
      );
      const task = await runTask(workspace.root, intel, worker, request);
      const turns = worker.prompts.map(promptTokens);
      console.log(
        `    a task (read, edit, summary): ${task.status.steps} turns, ${task.status.tokens} tokens in its status (prompts ${turns.join(' + ')}, answers ${task.status.tokens - turns.reduce((a, b) => a + b, 0)}), ended ${task.status.reason}`,
      );
    } finally {
      await code.close();
    }
  } finally {
    workspace.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// Alone: npx tsx bench/agents/first-turn.ts
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await firstTurnTokens();
