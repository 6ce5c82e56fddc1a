// The agent runtime's small parts on their own: the loop detector, the change log, keeping the
// conversation within its budget, the time estimate, and the settings in force.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, ChatResult } from '../../../src/core/completion/chat.ts';
import { boundedDiffs, cutDiff, STATUS_DIFF_CHARS, STATUS_DIFFS_CHARS } from '../../../src/core/agents/diffs.ts';
import { ModelSpeeds } from '../../../src/core/agents/estimate.ts';
import { ChangeLog } from '../../../src/core/agents/files/change-log.ts';
import { compactConversation } from '../../../src/core/agents/loop/conversation.ts';
import { LoopDetector } from '../../../src/core/agents/loop/loop-detector.ts';
import { agentSettings, resolveBudgets } from '../../../src/core/agents/settings.ts';

describe('LoopDetector', () => {
  it('redirects on the third same action with the same result, then stops on the next repeat', () => {
    const detector = new LoopDetector();
    const read = { name: 'read_file', arguments: '{"path": "a.ts"}', result: 'x' };
    assert.equal(detector.record([read]), 'ok');
    assert.equal(detector.record([{ ...read, arguments: '{ "path":"a.ts" }' }]), 'ok', 'the same arguments, written otherwise');
    assert.equal(detector.record([{ ...read, result: 'y' }]), 'ok', 'another result is progress');
    assert.equal(detector.record([read]), 'redirect');
    assert.equal(detector.record([{ name: 'list_files', arguments: '{}', result: 'a.ts' }]), 'ok');
    assert.equal(detector.record([read]), 'stop');
  });
});

describe('ChangeLog', () => {
  it('keeps one entry per file through edits, renames, deletion and re-creation', () => {
    const log = new ChangeLog();
    log.wrote('a.ts', 'a1', 'a2');
    log.wrote('a.ts', 'a2', 'a3');
    log.renamed('a.ts', 'b.ts', 'a3');
    log.wrote('b.ts', 'a3', 'a4');
    log.removed('c.ts', 'c1');
    log.wrote('c.ts', null, 'c2');
    log.wrote('n.ts', null, 'n1');
    log.removed('n.ts', 'n1');
    assert.deepEqual(log.all(), [
      { id: 1, path: 'b.ts', origin: 'a.ts', before: 'a1', after: 'a4' },
      { id: 2, path: 'c.ts', origin: 'c.ts', before: 'c1', after: 'c2' },
    ]);
    assert.deepEqual(
      log.changes().map(({ file, action, from }) => [file, action, from]),
      [
        ['b.ts', 'renamed', 'a.ts'],
        ['c.ts', 'modified', undefined],
      ],
    );
    log.renamed('b.ts', 'a.ts', 'a4');
    log.wrote('a.ts', 'a4', 'a1');
    assert.deepEqual(
      log.changes().map((change) => change.file),
      ['c.ts'],
      'renamed and written back: no change',
    );
  });
});

describe('compactConversation', () => {
  it('elides the oldest tool results first, never the system prompt, the task or the last turns', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 's'.repeat(100) },
      { role: 'user', content: 'u'.repeat(100) },
    ];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, name: 'read_file', argumentsText: '{}' }] });
      messages.push({ role: 'tool', toolCallId: `c${i}`, content: String(i).repeat(1000) });
    }
    compactConversation(messages, 4000);
    const tools = messages.filter((message) => message.role === 'tool').map((message) => message.content.length);
    assert.deepEqual(
      tools.map((length) => length === 1000),
      [false, false, false, true, true, true],
    );
    assert.equal(messages[0]!.content.length, 100);
    assert.match(messages[3]!.content, /^\[This result was left out/);
  });
});

describe('ModelSpeeds', () => {
  const budgets = { maxSteps: 40, maxTokens: 500_000, timeoutSeconds: 900 };
  const turn = (prompt: number, completion: number, firstTokenMs: number, totalMs: number) =>
    ({ usage: { promptTokens: prompt, completionTokens: completion, source: 'server' }, timing: { firstTokenMs, totalMs } }) as ChatResult;

  it('estimates from default speeds, then from the model’s measured ones, within the time budget', () => {
    const speeds = new ModelSpeeds();
    assert.equal(speeds.estimate('m', { files: 1, bytes: 4000 }, budgets), 65);
    // 1,000 prompt tokens in 1 s, 100 generated in 1 s: 1000 and 100 tokens/s.
    speeds.observe('m', turn(1000, 100, 1000, 2000));
    assert.equal(speeds.estimate('m', { files: 1, bytes: 4000 }, budgets), Math.ceil(3000 / 1000 + 1000 / 100));
    assert.equal(speeds.estimate('other', { files: 1, bytes: 4000 }, budgets), 65, 'per model');
    assert.equal(speeds.estimate('slow', { files: 50, bytes: 50_000_000 }, { ...budgets, timeoutSeconds: 120 }), 120);
    speeds.observe('m', turn(10, 0, 0, 5));
    assert.equal(speeds.estimate('m', { files: 1, bytes: 4000 }, budgets), 13, 'a turn without timing teaches nothing');
  });
});

describe('agent settings', () => {
  it('takes settings.json over the configuration, and a request’s budgets over both', () => {
    const settings = agentSettings(
      { maxSteps: 40, maxTokens: 500_000, timeoutSeconds: 900, commandTimeoutSeconds: 300, approvalTimeoutSeconds: 300 },
      { maxSteps: 10, commands: ['npm test'] },
    );
    assert.deepEqual(settings, {
      maxSteps: 10,
      maxTokens: 500_000,
      timeoutSeconds: 900,
      commandTimeoutSeconds: 300,
      approvalTimeoutSeconds: 300,
      commands: ['npm test'],
    });
    assert.deepEqual(resolveBudgets(settings, { timeoutSeconds: 30 }), { maxSteps: 10, maxTokens: 500_000, timeoutSeconds: 30 });
    assert.throws(() => resolveBudgets(settings, { maxSteps: 0 }), { code: 'validation_error' });
    assert.throws(() => resolveBudgets(settings, { maxTokens: 1.5 }), { code: 'validation_error' });
  });
});

describe('diffs in the status', () => {
  it('cuts a diff at the last line end within its limit, with a line saying so; a short one is left as it is', () => {
    const diff = '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n';
    assert.equal(cutDiff(diff, diff.length), diff);
    assert.equal(cutDiff(diff, 20), `--- a/x\n+++ b/x\n\\ diff too large: ${diff.length} characters, the first 16 shown\n`);
    assert.equal(cutDiff(diff, 3), `\\ diff too large: ${diff.length} characters, the first 0 shown\n`);
  });

  it('bounds each change’s diff, and all of them together', () => {
    const line = `+${'y'.repeat(99)}\n`;
    const changes = Array.from({ length: 30 }, (_, i) => ({ file: `f${i}`, action: 'created' as const, diff: line.repeat(1000) }));
    const bounded = boundedDiffs(changes);
    assert.deepEqual(
      bounded.map((change) => change.file),
      changes.map((change) => change.file),
    );
    for (const change of bounded) assert.ok(change.diff.length <= STATUS_DIFF_CHARS + 80, `${change.diff.length}`);
    const total = bounded.reduce((sum, change) => sum + change.diff.length, 0);
    assert.ok(total <= STATUS_DIFFS_CHARS + 30 * 80, `${total}`);
    assert.match(bounded.at(-1)!.diff, /^\\ diff too large: 101000 characters, the first 0 shown\n$/);
    assert.equal(boundedDiffs(changes.slice(0, 1).map((change) => ({ ...change, diff: line })))[0]!.diff, line);
  });
});
