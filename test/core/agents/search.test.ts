// The agents' search and list tools on input from the model: a regular expression that makes a
// backtracking engine run for ever, one RE2 refuses, a query of 100,000 characters, a glob
// whose stars backtrack, an over-long path. Each answers the model at once, in a few words; the
// task goes on and ends as the model ends it. A search stops between files when the task ends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { FolderFiles } from '../../../src/core/agents/files/agent-files.ts';
import type { TaskFiles } from '../../../src/core/agents/files/task-files.ts';
import { runLoop, TaskStop } from '../../../src/core/agents/loop/run-loop.ts';
import { search } from '../../../src/core/agents/tools/read-tools.ts';
import { Toolbox } from '../../../src/core/agents/tools/index.ts';
import type { ChatProvider } from '../../../src/core/completion/chat.ts';
import { systemClock } from '../../../src/core/clock.ts';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';
import { agentHarness, calls, chatRequest, MATH, says } from './support.ts';

/** Lines on which `^(a+)+$` backtracks: for minutes (64 a's), for ever (3,999). */
const CATASTROPHIC = `${'a'.repeat(64)}!\n${'a'.repeat(3999)}!\naaaa\n`;

/** The tool results the model was sent, in order; one echoing a huge input shown by its start and length, so that a failure stays readable. */
function toolResults(h: Awaited<ReturnType<typeof agentHarness>>, request: number): string[] {
  return chatRequest(h.fake, request)
    .filter((message) => message.role === 'tool')
    .map((message) => message.content!)
    .map((text) => (text.length > 1000 ? `${text.slice(0, 100)}… (${text.length} characters)` : text));
}

describe('agent tools on hostile patterns', () => {
  it('search answers ^(a+)+$ at once: no match on the lines that backtrack, the line that matches found', async (t) => {
    const h = await agentHarness(t, { files: { 'src/math.ts': MATH, 'data/a.txt': CATASTROPHIC, 'data/long.txt': `${'a'.repeat(5000)}\n` } });
    h.fake.chat.queue(calls(['search', { query: '^(a+)+$', regex: true }], ['search', { query: '(?:a|b)*a(?:a|b){999}c', regex: true }]), says('Searched.'));
    const { taskId } = await h.agents.run({ task: 'Find the lines of a', files: ['src/**'] });
    await h.completed(taskId);
    const [nested, large] = toolResults(h, 1);
    assert.equal(nested, 'data/a.txt:3: aaaa\n(1 line longer than 4000 characters was not searched.)');
    // A large pattern searches shorter lines: one line's match stays short.
    assert.match(
      large!,
      /^No line matches "\(\?:a\|b\)\*a\(\?:a\|b\)\{999\}c"\.\n\(2 lines longer than 1\d\d characters were not searched: a smaller regular expression searches longer lines\.\)$/,
    );
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason], ['completed', 'done']);
  });

  it('search refuses ^((a+)\\2?)+$ with the reason, and the task goes on', async (t) => {
    const h = await agentHarness(t, { files: { 'src/math.ts': MATH, 'data/a.txt': `${'a'.repeat(28)}!\n` } });
    h.fake.chat.queue(calls(['search', { query: '^((a+)\\2?)+$', regex: true }]), calls(['search', { query: '^a+$', regex: true }]), says('Searched.'));
    const { taskId } = await h.agents.run({ task: 'Find the lines of a', files: ['src/**'] });
    await h.completed(taskId);
    assert.deepEqual(toolResults(h, 1), [
      'The regular expression cannot be used: invalid escape sequence `\\2`. Backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time.',
    ]);
    assert.deepEqual(toolResults(h, 2).slice(1), ['No line matches "^a+$".']);
    const steps = await h.agents.steps(taskId, { after: 0, limit: 10 });
    assert.deepEqual(
      steps.filter((step) => step.kind === 'tool').map((step) => step.ok),
      [false, true],
    );
    assert.equal((await h.agents.status(taskId)).reason, 'done');
  });

  it('a query of 100,000 characters is a failure told to the model in a few words; the task ends as the model ends it', async (t) => {
    const h = await agentHarness(t);
    for (const regex of [false, true]) h.fake.chat.queue(calls(['search', { query: '('.repeat(100_000), regex }]));
    h.fake.chat.queue(says('The query was too long.'));
    const { taskId } = await h.agents.run({ task: 'Search', files: ['src/**'] });
    await h.completed(taskId);
    const told = toolResults(h, 2);
    assert.deepEqual(told, [
      'The query is 100000 characters long; at most 1000 are searched for. Search for a shorter, distinctive part of it.',
      'The query is 100000 characters long; at most 1000 are searched for. Search for a shorter, distinctive part of it.',
    ]);
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason, status.error], ['completed', 'done', undefined]);
    const steps = await h.agents.steps(taskId, { after: 0, limit: 10 });
    for (const step of steps.filter((step) => step.kind === 'tool')) assert.ok(step.ok === false && step.text.length < 200, step.text.slice(0, 300));
  });

  it('a glob whose stars backtrack is matched in linear time, in list_files and in search', async (t) => {
    // `*a*a…*b` against a name of 60 a's: a backtracking matcher tries every way to place the stars.
    const glob = `${'*a'.repeat(40)}*b`;
    const h = await agentHarness(t, { files: { 'src/math.ts': MATH, [`${'a'.repeat(60)}`]: 'x\n', [`${'a'.repeat(59)}b`]: 'x\n' } });
    h.fake.chat.queue(calls(['list_files', { pattern: glob }], ['search', { query: 'x', pattern: glob }]), says('Listed.'));
    const { taskId } = await h.agents.run({ task: 'List', files: ['src/**'] });
    await h.completed(taskId);
    const [listed, searched] = toolResults(h, 1);
    assert.equal(listed, `1 file matches ${glob} ("read-only": outside the files this task may change):\n${'a'.repeat(59)}b  (read-only)`);
    assert.equal(searched, `${'a'.repeat(59)}b:1: x`);
  });

  it('a path of 100,000 characters is refused without being echoed', async (t) => {
    const h = await agentHarness(t);
    const long = `src/${'x'.repeat(100_000)}.ts`;
    h.fake.chat.queue(
      calls(['read_file', { path: long }], ['create_file', { path: long, content: 'x' }], ['rename_file', { from: 'src/math.ts', to: long }]),
      says('Done.'),
    );
    const { taskId } = await h.agents.run({ task: 'Read', files: ['src/**'] });
    await h.completed(taskId);
    assert.deepEqual(toolResults(h, 1), [
      'read_file: "path" is 100007 characters long; a path has at most 1024.',
      'create_file: "path" is 100007 characters long; a path has at most 1024.',
      'rename_file: "to" is 100007 characters long; a path has at most 1024.',
    ]);
  });
});

describe('a search when the task ends', () => {
  /** A workspace of three files whose reads are counted; reading the second ends the task. */
  function endingWorkspace(t: TestContext, controller: AbortController) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-search-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    for (const name of ['a.ts', 'b.ts', 'c.ts']) fs.writeFileSync(path.join(root, name), 'const x = 1;\n');
    const reads: string[] = [];
    class EndingFiles extends FolderFiles {
      override read(key: string): string | null {
        reads.push(key);
        if (key === 'b.ts') controller.abort(new TaskStop('cancelled'));
        return super.read(key);
      }
    }
    return { workspace: new EndingFiles(new WorkspacePaths(root)), reads };
  }

  it('stops between files and answers that the task is ending', async (t) => {
    const controller = new AbortController();
    const { workspace, reads } = endingWorkspace(t, controller);
    const outcome = await search.run({ query: 'const' }, { files: {} as TaskFiles, workspace, signal: controller.signal });
    assert.deepEqual(outcome, { ok: false, text: 'Stopped: the task is ending.' });
    assert.deepEqual(reads, ['a.ts', 'b.ts']);
  });

  it('a task cancelled during a search ends cancelled, not as a failure of Loom', async (t) => {
    const controller = new AbortController();
    const { workspace } = endingWorkspace(t, controller);
    const provider: ChatProvider = {
      name: 'scripted',
      chat: async () => ({
        text: '',
        toolCalls: [{ id: 'call_1', name: 'search', argumentsText: '{"query":"const"}', arguments: { query: 'const' } }],
        finishReason: 'tool_calls',
        usage: { promptTokens: 10, completionTokens: 5, source: 'server' },
        toolMode: 'native',
        timing: { totalMs: 1, firstTokenMs: 1 },
        model: 'scripted',
      }),
    };
    const steps: { kind: string; text?: string }[] = [];
    const end = await runLoop({
      provider,
      conversation: 'task_1',
      toolbox: new Toolbox(),
      context: { files: {} as TaskFiles, workspace },
      messages: [{ role: 'user', content: 'Search' }],
      budgets: { maxSteps: 5, maxTokens: 100_000, timeoutSeconds: 600 },
      clock: systemClock,
      startedAt: systemClock.now(),
      signal: controller.signal,
      record: async (step) => void steps.push(step),
    });
    assert.equal(end.reason, 'cancelled');
    assert.deepEqual(
      steps.map((step) => [step.kind, step.text]),
      [
        ['model', ''],
        ['tool', 'Stopped: the task is ending.'],
      ],
    );
  });
});
