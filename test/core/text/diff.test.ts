// Line diffs: the edit script is a shortest one (checked against the longest common
// subsequence computed the slow way on thousands of random pairs), it rebuilds both texts, and
// the unified diff it prints is one `git apply` takes and that turns the old file into the new.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { diffLines, splitLines, unifiedDiff } from '../../../src/core/text/diff.ts';
import { seeded } from '../../support/random.ts';

/** The length of the longest common subsequence, by dynamic programming. */
function lcs(a: readonly string[], b: readonly string[]): number {
  let row = new Array<number>(b.length + 1).fill(0);
  for (const line of a) {
    const next = [0];
    for (let j = 0; j < b.length; j++) next.push(line === b[j] ? row[j]! + 1 : Math.max(row[j + 1]!, next[j]!));
    row = next;
  }
  return row[b.length]!;
}

function randomLines(random: () => number, count: number, alphabet: number): string[] {
  return Array.from({ length: count }, () => `${String.fromCharCode(97 + Math.floor(random() * alphabet))}\n`);
}

describe('diffLines', () => {
  it('finds a shortest edit script that rebuilds both sides, on 3,000 random pairs', () => {
    const random = seeded(11);
    for (let round = 0; round < 3000; round++) {
      const a = randomLines(random, Math.floor(random() * 30), 1 + Math.floor(random() * 5));
      const b =
        random() < 0.3 ? a.map((line) => (random() < 0.2 ? 'z\n' : line)) : randomLines(random, Math.floor(random() * 30), 1 + Math.floor(random() * 5));
      const ops = diffLines(a, b);
      assert.deepEqual(
        ops.filter((op) => op.kind !== 'add').map((op) => op.line),
        a,
      );
      assert.deepEqual(
        ops.filter((op) => op.kind !== 'remove').map((op) => op.line),
        b,
      );
      const edits = ops.filter((op) => op.kind !== 'keep').length;
      assert.equal(edits, a.length + b.length - 2 * lcs(a, b), `round ${round}: ${JSON.stringify({ a, b })}`);
    }
  });

  it('compares lines with their endings', () => {
    assert.deepEqual(splitLines('a\r\nb\nc'), ['a\r\n', 'b\n', 'c']);
    assert.deepEqual(
      diffLines(splitLines('a\r\nb\n'), splitLines('a\nb')).map((op) => op.kind),
      ['remove', 'remove', 'add', 'add'],
    );
  });

  it('shows a rewrite of thousands of differing lines as removed then added, without searching', () => {
    const a = Array.from({ length: 5000 }, (_, i) => `old ${i}\n`);
    const b = Array.from({ length: 5000 }, (_, i) => (i % 2 ? `old ${i}\n` : `new ${i}\n`));
    const ops = diffLines(a, b);
    assert.deepEqual(
      ops.filter((op) => op.kind !== 'add').map((op) => op.line),
      a,
    );
    assert.deepEqual(
      ops.filter((op) => op.kind !== 'remove').map((op) => op.line),
      b,
    );
  });
});

describe('unifiedDiff', () => {
  it('prints hunks with three lines of context, merging close changes, as diff -u does', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n';
    const after = 'a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nM\nn\n';
    assert.equal(
      unifiedDiff(before, after, { from: 'src/x.ts', to: 'src/x.ts' }),
      [
        '--- a/src/x.ts',
        '+++ b/src/x.ts',
        '@@ -1,5 +1,5 @@',
        ' a',
        '-b',
        '+B',
        ' c',
        ' d',
        ' e',
        '@@ -10,5 +10,5 @@',
        ' j',
        ' k',
        ' l',
        '-m',
        '+M',
        ' n',
        '',
      ].join('\n'),
    );
    const close = unifiedDiff('a\nb\nc\nd\ne\nf\ng\n', 'A\nb\nc\nd\ne\nf\nG\n', { from: 'x', to: 'x' });
    assert.equal(close.match(/^@@/gm)?.length, 1, 'changes 6 lines apart share a hunk');
  });

  it('names created and deleted files /dev/null, and marks a last line without a newline', () => {
    assert.equal(unifiedDiff(null, 'a\nb', { from: null, to: 'n.ts' }), '--- /dev/null\n+++ b/n.ts\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n');
    assert.equal(unifiedDiff('a\n', null, { from: 'n.ts', to: null }), '--- a/n.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n');
    assert.equal(unifiedDiff('same\n', 'same\n', { from: 'x', to: 'x' }), '');
    assert.equal(unifiedDiff('same\n', 'same\n', { from: 'old.ts', to: 'new.ts' }), '--- a/old.ts\n+++ b/new.ts\n', 'a rename without changes');
  });

  it('is a patch git applies, turning the old file into the new one (60 random files)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-diff-'));
    try {
      execFileSync('git', ['init', '-q'], { cwd: dir });
      const random = seeded(5);
      for (let round = 0; round < 60; round++) {
        const a = randomLines(random, 1 + Math.floor(random() * 40), 4).join('');
        let b = randomLines(random, 1 + Math.floor(random() * 40), 4).join('');
        if (random() < 0.3) b = b.slice(0, -1); // no final newline
        fs.writeFileSync(path.join(dir, 'f.txt'), a);
        fs.writeFileSync(path.join(dir, 'f.patch'), unifiedDiff(a, b, { from: 'f.txt', to: 'f.txt' }));
        execFileSync('git', ['apply', 'f.patch'], { cwd: dir });
        assert.equal(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8'), b, `round ${round}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
