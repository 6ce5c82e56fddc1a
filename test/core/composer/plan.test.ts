// Plan mode's reading of the model's answer: its JSON object, or its text and list items, and
// what a plan may hold whatever the model sends (it is stored, answered and sent as one event).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readPlan } from '../../../src/core/composer/plan.ts';

describe('composer plans', () => {
  it('reads a JSON plan, or the text and its list items', () => {
    assert.deepEqual(readPlan('Sure: {"summary": "Rename add.", "steps": ["rename", 5], "files": ["src/a.ts"]}'), {
      summary: 'Rename add.',
      steps: ['rename'],
      files: ['src/a.ts'],
    });
    assert.deepEqual(readPlan('First this.\n- step one\n2. step two\n'), {
      summary: 'First this.\n- step one\n2. step two',
      steps: ['step one', 'step two'],
      files: [],
    });
  });

  it('holds at most 4,000 characters of summary, 200 steps of 1,000 and 200 files of 1,024, whatever the model sends', () => {
    // What fits an answer's 8 Mi characters.
    const huge = 'あ'.repeat(1_000_000);
    const many = (count: number, chars: number) => Array.from({ length: count }, () => huge.slice(0, chars));
    for (const plan of [
      readPlan(JSON.stringify({ summary: huge, steps: many(500, 10_000), files: many(500, 5000) })),
      readPlan(
        `${huge}\n${many(500, 10_000)
          .map((step) => `- ${step}`)
          .join('\n')}`,
      ),
    ]) {
      assert.ok(plan.summary.length <= 4000 + 40, `a summary of ${plan.summary.length} characters`);
      assert.ok(plan.steps.length <= 200 && plan.steps.every((step) => step.length <= 1000 + 40), 'steps');
      assert.ok(plan.files.length <= 200 && plan.files.every((file) => file.length <= 1024), 'files');
    }
  });
});
