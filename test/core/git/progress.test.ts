// git's --progress output as data: lines split on \r and \n (only finished lines kept for
// error messages), each line parsed, and the gate that bounds how many reach the event stream.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GitProgress } from '../../../src/contracts/local-resources.ts';
import { parseProgress, progressLines, ProgressGate } from '../../../src/core/git/progress.ts';

describe('progress lines', () => {
  it('gives every line to the listener and keeps only finished ones, across chunk boundaries', () => {
    const seen: string[] = [];
    let kept = '';
    const lines = progressLines(
      (line) => seen.push(line),
      (text) => (kept += text),
    );
    lines.write('Writing objects:  50% (1/2)\rWriting obj');
    lines.write('ects: 100% (2/2), done.\nerror: failed to push some refs\n');
    lines.write('tail without end');
    lines.end();
    assert.deepEqual(seen, ['Writing objects:  50% (1/2)', 'Writing objects: 100% (2/2), done.', 'error: failed to push some refs', 'tail without end']);
    assert.equal(kept, 'Writing objects: 100% (2/2), done.\nerror: failed to push some refs\ntail without end');
  });

  it('survives a listener that throws', () => {
    let kept = '';
    const lines = progressLines(
      () => {
        throw new Error('listener failed');
      },
      (text) => (kept += text),
    );
    lines.write('fatal: x\n');
    assert.equal(kept, 'fatal: x\n');
  });

  it('parses phases, percentages and counts, and masks credentials', () => {
    assert.deepEqual(parseProgress('push', 'Writing objects:  40% (2/5), 1.20 KiB | 1.20 MiB/s'), {
      operation: 'push',
      phase: 'Writing objects',
      text: 'Writing objects:  40% (2/5), 1.20 KiB | 1.20 MiB/s',
      percent: 40,
      done: 2,
      total: 5,
    });
    assert.equal(parseProgress('pull', 'remote: Counting objects: 100% (3/3), done.').phase, 'Counting objects');
    assert.equal(parseProgress('pull', 'remote: hello from the hook').phase, 'remote');
    assert.equal(parseProgress('push', 'To https://user:secret@example.com/r.git').text, 'To https://***@example.com/r.git');
    assert.ok(parseProgress('push', 'x'.repeat(10_000)).text.length <= 300);
  });
});

describe('the progress gate', () => {
  const record = (phase: string, percent: number | null): GitProgress => ({
    operation: 'push',
    phase,
    text: `${phase}: ${percent}%`,
    percent,
    done: null,
    total: null,
  });

  it('passes one record per interval, holding the latest back and sending it on flush', () => {
    let now = 0;
    const sent: GitProgress[] = [];
    const gate = new ProgressGate(
      (p) => sent.push(p),
      200,
      () => now,
    );
    gate.push(record('Writing objects', 1));
    for (let percent = 2; percent < 50; percent++) gate.push(record('Writing objects', percent));
    assert.equal(sent.length, 1);
    now = 250;
    gate.push(record('Writing objects', 60));
    assert.equal(sent.at(-1)!.percent, 60);
    gate.push(record('Writing objects', 70));
    gate.flush();
    assert.equal(sent.at(-1)!.percent, 70);
  });

  it('lets a new phase through sooner, keeps the latest of each phase, and never floods', () => {
    let now = 0;
    const sent: GitProgress[] = [];
    const gate = new ProgressGate(
      (p) => sent.push(p),
      200,
      () => now,
    );
    // A remote printing a new "phase" on every line, 1,000 lines within 200 ms.
    for (let i = 0; i < 1000; i++) {
      now = i * 0.2;
      gate.push(record(`phase ${i}`, null));
    }
    gate.flush();
    assert.ok(sent.length <= 9, `${sent.length} sent`);
  });

  it('never loses a phase that came and went within one interval', () => {
    let now = 0;
    const sent: GitProgress[] = [];
    const gate = new ProgressGate(
      (p) => sent.push(p),
      200,
      () => now,
    );
    gate.push(record('Enumerating objects', 100));
    now = 10;
    gate.push(record('Counting objects', 100));
    gate.push(record('Writing objects', 50));
    gate.push(record('Writing objects', 100));
    gate.flush();
    assert.deepEqual(
      sent.map((p) => `${p.phase} ${p.percent}`),
      ['Enumerating objects 100', 'Counting objects 100', 'Writing objects 100'],
    );
  });
});
