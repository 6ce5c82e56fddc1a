// A task's conversation rebuilt from its step log for a follow-up: each model turn with its calls
// and their results, what Loom said of its edit blocks and its notes, the user's messages in full;
// and bounded, however long the log: older tool results are left out first, then whole older
// turns, and no more of the log is read than fits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ELIDED } from '../../../src/core/agents/loop/conversation.ts';
import { HISTORY_CHARS, joinUserMessages, rebuildHistory, type HistorySource } from '../../../src/core/agents/loop/history.ts';
import type { AgentStep } from '../../../src/core/agents/types.ts';

/** A log in memory, counting the steps read. */
function log(steps: Omit<AgentStep, 'index' | 'at'>[]): HistorySource & { read: number; last: number } {
  const all: AgentStep[] = steps.map((step, i) => ({ ...step, index: i + 1, at: '2026-01-01T00:00:00.000Z' }));
  const source = {
    read: 0,
    last: all.length,
    stepsBefore: async (before: number, limit: number) => {
      const page = all
        .filter((step) => step.index < before)
        .reverse()
        .slice(0, limit);
      source.read += page.length;
      return page;
    },
  };
  return source;
}

describe('rebuildHistory', () => {
  it('makes each turn what the model saw: its calls and results, its edit blocks’ results and Loom’s notes, the user’s messages in full', async () => {
    const long = `Please also ${'x'.repeat(5000)}`;
    const source = log([
      { kind: 'model', turn: 1, text: 'Reading first.' },
      { kind: 'tool', turn: 1, tool: 'read_file', arguments: '{"path":"a.ts"}', ok: true, text: '1\tconst a = 1;' },
      { kind: 'tool', turn: 1, tool: 'edit_file', arguments: '{"path":"a.ts"}', ok: true, text: 'Applied block 1.', block: true },
      { kind: 'notice', turn: 1, text: 'Not applied: Block 2 has no file path.' },
      { kind: 'model', turn: 2, text: 'Done.' },
      { kind: 'user', turn: 3, text: long.slice(0, 4000) },
      { kind: 'model', turn: 3, text: '<tool_call>{"name":"list_files","arguments":{}}</tool_call>' },
      { kind: 'tool', turn: 3, tool: 'list_files', arguments: '{}', ok: true, text: 'a.ts' },
    ]);
    const history = await rebuildHistory(source, { before: source.last + 1, messages: new Map([[6, long]]) });
    assert.deepEqual(history, [
      { role: 'assistant', content: 'Reading first.', toolCalls: [{ id: 'call_2', name: 'read_file', argumentsText: '{"path":"a.ts"}' }] },
      { role: 'tool', toolCallId: 'call_2', content: '1\tconst a = 1;' },
      { role: 'user', content: 'Your edit blocks:\nApplied block 1.\nNot applied: Block 2 has no file path.' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: long },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_8', name: 'list_files', argumentsText: '{}' }] },
      { role: 'tool', toolCallId: 'call_8', content: 'a.ts' },
    ]);
  });

  it('stays within its budget however long the log: older results left out first, then older turns, reading no more than fits', async () => {
    const turns = 2000;
    const steps: Omit<AgentStep, 'index' | 'at'>[] = [];
    for (let turn = 1; turn <= turns; turn++) {
      steps.push({ kind: 'model', turn, text: `Turn ${turn}.` });
      steps.push({ kind: 'tool', turn, tool: 'read_file', arguments: `{"path":"f${turn}.ts"}`, ok: true, text: `result ${turn} `.padEnd(4000, 'r') });
    }
    const source = log(steps);
    const history = await rebuildHistory(source, { before: source.last + 1, messages: new Map() });
    const calls = (message: (typeof history)[number]) =>
      message.role === 'assistant' ? (message.toolCalls ?? []).reduce((sum, call) => sum + call.name.length + call.argumentsText.length, 0) : 0;
    const note = history[0]!.content.length;
    const size = history.reduce((sum, message) => sum + message.content.length + calls(message), 0) - note;
    assert.ok(size <= HISTORY_CHARS, `${size} characters`);
    assert.match(history[0]!.content, /^\[The earlier part of this conversation was left out to save room\./);
    // The latest turn whole; older results left out before older turns are.
    assert.equal(history.at(-2)!.content, `Turn ${turns}.`);
    assert.match(history.at(-1)!.content, new RegExp(`^result ${turns} `));
    const results = history.filter((message) => message.role === 'tool').map((message) => message.content);
    assert.ok(results.filter((content) => content === ELIDED).length > results.length / 2, 'most kept results are left out');
    assert.ok(results.length > 20, `${results.length} turns kept`);
    assert.ok(source.read < steps.length / 2, `read ${source.read} of ${steps.length} steps`);
  });

  it('joins consecutive user messages (chat templates want turns to alternate)', () => {
    assert.deepEqual(
      joinUserMessages([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: 'c' },
        { role: 'user', content: 'd' },
      ]),
      [
        { role: 'user', content: 'a\n\nb' },
        { role: 'assistant', content: 'c' },
        { role: 'user', content: 'd' },
      ],
    );
  });
});
