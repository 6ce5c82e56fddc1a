// The parser pool: jobs of every language sent at once to few threads are all answered, each
// with its own file's outline (a thread answers in order, whatever each grammar takes to load);
// threads replaced as they go (recycled) lose no job; a closed pool refuses and rejects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParserPool } from '../../../src/adapters/code/parser-pool.ts';
import type { IndexedLanguage } from '../../../src/core/code/model.ts';

const SOURCES: [IndexedLanguage, string, string][] = [
  ['javascript', 'function jsOne() {}\n', 'jsOne'],
  ['typescript', 'export function tsOne(): void {}\n', 'tsOne'],
  ['text', 'plain words\n', ''],
  ['python', 'def py_one():\n    pass\n', 'py_one'],
  ['go', 'package a\nfunc GoOne() {}\n', 'GoOne'],
  ['rust', 'fn rust_one() {}\n', 'rust_one'],
  ['java', 'class JavaOne {}\n', 'JavaOne'],
];

async function parseAll(pool: ParserPool, rounds: number): Promise<void> {
  const jobs = [];
  for (let round = 0; round < rounds; round++) {
    for (const [language, source, name] of SOURCES) {
      jobs.push(pool.parse(Buffer.from(source), language).then((content) => ({ content, name })));
    }
  }
  for (const { content, name } of await Promise.all(jobs)) {
    assert.deepEqual(
      content.definitions.map((definition) => definition.name),
      name ? [name] : [],
    );
  }
}

describe('parser pool', () => {
  it('answers every job, in any mix of languages, with the outline of its own file', async () => {
    const pool = new ParserPool({ size: 2 });
    try {
      await parseAll(pool, 5);
    } finally {
      await pool.close();
    }
  });

  it('threads recycled after every few bytes lose no job', async () => {
    const pool = new ParserPool({ size: 1, recycleAfterBytes: 64 });
    try {
      await parseAll(pool, 2);
    } finally {
      await pool.close();
    }
  });

  it('a closed pool rejects what waits and refuses more', async () => {
    const pool = new ParserPool({ size: 1 });
    const settled = Promise.allSettled(Array.from({ length: 10 }, () => pool.parse(Buffer.from('function f() {}\n'), 'javascript')));
    await pool.close();
    assert.ok((await settled).some((result) => result.status === 'rejected'));
    await assert.rejects(pool.parse(Buffer.from('x'), 'javascript'), /closed/);
  });
});
