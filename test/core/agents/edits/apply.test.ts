// Applying one block to one file: each tolerance, each refusal, line endings and the final
// newline kept, files created.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEdit, type EditApplied, type EditRefused } from '../../../../src/core/agents/edits/index.ts';

const lines = (...text: string[]): string => text.join('\n') + '\n';

function applied(content: string | null, search: string, replace: string): EditApplied {
  const result = applyEdit(content, { search, replace });
  assert.ok(result.ok, `refused: ${!result.ok && result.message}`);
  return result;
}

function refused(content: string | null, search: string, replace: string): EditRefused {
  const result = applyEdit(content, { search, replace });
  assert.ok(!result.ok, `applied: ${result.ok && JSON.stringify(result.content)}`);
  return result;
}

const SOURCE = lines(
  'import { load } from "./load.ts";',
  '',
  'export function total(items) {',
  '  let sum = 0;',
  '  for (const item of items) {',
  '    sum += item.price;',
  '  }',
  '  return sum;',
  '}',
  '',
  'export function count(items) {',
  '  return items.length;',
  '}',
);

describe('applyEdit: matching', () => {
  it('replaces the exact lines and keeps everything else byte for byte', () => {
    const result = applied(SOURCE, '    sum += item.price;\n', '    sum += item.price * item.quantity;\n');
    assert.equal(result.content, SOURCE.replace('item.price;', 'item.price * item.quantity;'));
    assert.deepEqual(result.tolerances, []);
    assert.deepEqual(result.replaced, { start: 6, end: 6 });
    assert.deepEqual(result.lines, { start: 6, end: 6 });
    assert.equal(result.changed, true);
    assert.equal(result.created, false);
  });

  it('inserts, deletes, and says when SEARCH and REPLACE are the same', () => {
    const inserted = applied(SOURCE, '  let sum = 0;\n', '  let sum = 0;\n  if (!items) return 0;\n');
    assert.equal(inserted.content, SOURCE.replace('  let sum = 0;\n', '  let sum = 0;\n  if (!items) return 0;\n'));
    assert.deepEqual(inserted.lines, { start: 4, end: 5 });
    const deleted = applied(SOURCE, '\nexport function count(items) {\n  return items.length;\n}\n', '');
    assert.equal(deleted.content, SOURCE.slice(0, SOURCE.indexOf('\nexport function count')));
    assert.deepEqual(deleted.lines, { start: 10, end: 9 });
    const same = applied(SOURCE, '  return sum;\n', '  return sum;\n');
    assert.equal(same.changed, false);
    assert.equal(same.content, SOURCE);
  });

  it('tolerates trailing whitespace the model added, dropping it from its new lines too', () => {
    const result = applied(SOURCE, '  let sum = 0;  \n  for (const item of items) { \n', '  let sum = 0;  \n  let n = 0; \n  for (const item of items) { \n');
    assert.equal(result.content, SOURCE.replace('  let sum = 0;\n', '  let sum = 0;\n  let n = 0;\n'));
    assert.deepEqual(result.tolerances, ['trailing_whitespace']);
  });

  it("tolerates trailing whitespace the model left out, keeping the file's on the lines it copies", () => {
    const file = 'a = 1   \nb = 2\t\nc = 3\n';
    const result = applied(file, 'a = 1\nb = 2\n', 'a = 1\nx = 9\nb = 2\n');
    assert.equal(result.content, 'a = 1   \nx = 9\nb = 2\t\nc = 3\n');
    assert.deepEqual(result.tolerances, ['trailing_whitespace']);
  });

  it('tolerates indentation shifted as a whole, both ways, and shifts the new lines the same', () => {
    // The model dropped the function's indentation (a snippet pasted at column 0).
    const dedented = applied(
      SOURCE,
      'for (const item of items) {\n  sum += item.price;\n}\n',
      'for (const item of items) {\n  if (item.free) continue;\n  sum += item.price;\n}\n',
    );
    assert.equal(dedented.content, SOURCE.replace('  for (const item of items) {\n', '  for (const item of items) {\n    if (item.free) continue;\n'));
    assert.deepEqual(dedented.tolerances, ['indentation']);
    // The model indented it one level too deep.
    const deeper = applied(SOURCE, '    return items.length;\n', '    return items.length + 1;\n');
    assert.equal(deeper.content, SOURCE.replace('  return items.length;', '  return items.length + 1;'));
    assert.deepEqual(deeper.tolerances, ['indentation']);
  });

  it("keeps a re-indentation REPLACE means (wrapping lines in a block), relative to the file's", () => {
    // The snippet is written at column 0 (shifted by 2); REPLACE wraps its line in an `if`.
    const result = applied(SOURCE, 'return items.length;\n', 'if (items) {\n  return items.length;\n}\nreturn 0;\n');
    assert.equal(result.content, SOURCE.replace('  return items.length;\n', '  if (items) {\n    return items.length;\n  }\n  return 0;\n'));
    assert.deepEqual(result.tolerances, ['indentation']);
  });

  it('refuses a REPLACE line indented less than the shift it has to lose', () => {
    const result = refused(SOURCE, '      return items.length;\n', '      return items.length;\n  extra();\n');
    assert.equal(result.reason, 'indentation');
    assert.match(
      result.message,
      /SEARCH matches lines 12–12 of the file indented 4 spaces more than the file, but line 2 of REPLACE is indented less than that, so where it belongs cannot be told/,
    );
  });

  it('tolerates spaces where the file has tabs, writing new lines with tabs (and the reverse)', () => {
    const tabbed = 'func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n';
    const result = applied(tabbed, '    if ok {\n        run()\n    }\n', '    if ok {\n        run()\n        stop()\n    }\n');
    assert.equal(result.content, 'func main() {\n\tif ok {\n\t\trun()\n\t\tstop()\n\t}\n}\n');
    assert.deepEqual(result.tolerances, ['tabs']);
    const spaced = 'def f():\n    if ok:\n        run()\n';
    const back = applied(spaced, '\tif ok:\n\t\trun()\n', '\tif ok:\n\t\trun()\n\t\tstop()\n');
    assert.equal(back.content, 'def f():\n    if ok:\n        run()\n        stop()\n');
    assert.deepEqual(back.tolerances, ['tabs']);
  });

  it("refuses tabs for spaces where the file's own indentation mixes them", () => {
    const mixed = 'a:\n\tb\n    c\n';
    const result = refused(mixed, '  b\n  c\n', '  b\n  d\n');
    assert.equal(result.reason, 'indentation');
  });

  it('refuses indentation that differs line by line, showing the lines', () => {
    const result = refused(SOURCE, 'for (const item of items) {\nsum += item.price;\n}\n', 'x\n');
    assert.equal(result.reason, 'indentation');
    assert.match(
      result.message,
      /SEARCH matches lines 5–7 of the file except for indentation, which is not the file's shifted as a whole: SEARCH line 1 has no indentation where line 5 of the file has 2 spaces/,
    );
    assert.deepEqual(
      result.nearest?.map(({ line }) => line),
      [5, 6, 7],
    );
  });

  it('tolerates a blank line more at either end of SEARCH, and drops it from REPLACE too', () => {
    const result = applied(SOURCE, '\n  let sum = 0;\n\n', '\n  let sum = 1;\n\n');
    assert.equal(result.content, SOURCE.replace('sum = 0', 'sum = 1'));
    assert.deepEqual(result.tolerances, ['blank_lines']);
    // A blank line the file does have there is part of the match, and stays.
    const kept = applied(SOURCE, '}\n\nexport function count(items) {\n', '}\n\nexport function size(items) {\n');
    assert.equal(kept.content, SOURCE.replace('count', 'size'));
    assert.deepEqual(kept.tolerances, []);
  });

  it('applies a SEARCH whose last line has no newline, to a file whose last line has none', () => {
    const file = 'a\nb\nc';
    assert.equal(applied(file, 'c', 'C').content, 'a\nb\nC');
    assert.equal(applied(file, 'c\n', 'C\nD\n').content, 'a\nb\nC\nD');
    assert.equal(applied(file, 'b\nc\n', '').content, 'a');
    assert.equal(applied(file, 'a\n', 'A\n').content, 'A\nb\nc');
    assert.equal(applied(file, 'c', 'c\nd').content, 'a\nb\nc\nd');
    assert.equal(applied('a\nb\n', 'b', 'B').content, 'a\nB\n');
    assert.equal(applied('only', 'only', '').content, '');
  });
});

describe('applyEdit: line endings', () => {
  it("keeps a CRLF file's endings, whatever the block's", () => {
    const crlf = SOURCE.replaceAll('\n', '\r\n');
    const result = applied(crlf, '  let sum = 0;\n', '  let sum = 0;\n  let n = 0;\n');
    assert.equal(result.content, crlf.replace('  let sum = 0;\r\n', '  let sum = 0;\r\n  let n = 0;\r\n'));
    assert.deepEqual(result.tolerances, ['line_endings']);
    assert.equal(applied(crlf, '  let sum = 0;\r\n', '  let sum = 0;\r\n  let n = 0;\r\n').content, result.content);
  });

  it("keeps an LF file's endings when the block has CRLF", () => {
    const result = applied(SOURCE, '  let sum = 0;\r\n  for (const item of items) {\r\n', '  let sum = 1;\r\n  for (const item of items) {\r\n');
    assert.equal(result.content, SOURCE.replace('sum = 0', 'sum = 1'));
    assert.deepEqual(result.tolerances, ['line_endings']);
  });

  it('keeps each untouched line ending of a file that mixes them, new lines taking the most common', () => {
    const mixed = 'a\r\nb\nc\r\nd\r\n';
    assert.equal(applied(mixed, 'b\n', 'b\nb2\n').content, 'a\r\nb\nb2\r\nc\r\nd\r\n');
    assert.equal(applied(mixed, 'c\n', 'C\n').content, 'a\r\nb\nC\r\nd\r\n');
  });
});

describe('applyEdit: creating files', () => {
  it('creates a file that does not exist from an empty SEARCH', () => {
    const result = applied(null, '', 'export const a = 1;\n');
    assert.equal(result.content, 'export const a = 1;\n');
    assert.equal(result.created, true);
    assert.equal(applied(null, '', 'no newline').content, 'no newline\n');
    assert.equal(applied(null, '', '').content, '');
  });

  it('fills an empty (or whitespace-only) file from an empty SEARCH', () => {
    const result = applied('', '', 'a\n');
    assert.equal(result.content, 'a\n');
    assert.equal(result.created, false);
    assert.equal(applied('\n  \n', '', 'a\n').content, 'a\n');
  });

  it('refuses an empty SEARCH on a file with content, and a SEARCH on a file that does not exist', () => {
    const exists = refused(SOURCE, '', 'x\n');
    assert.equal(exists.reason, 'file_not_empty');
    assert.match(exists.message, /this file already exists and has content. To change it, put the lines to replace in SEARCH/);
    const missing = refused(null, 'x\n', 'y\n');
    assert.equal(missing.reason, 'no_file');
    assert.match(missing.message, /The file does not exist\. Check its path; to create a new file, leave SEARCH empty/);
  });
});

describe('applyEdit: refusals', () => {
  it('refuses a SEARCH found nowhere, with the most similar lines and the first difference', () => {
    const result = refused(SOURCE, 'export function count(list) {\n  return items.length;\n}\n', 'x\n');
    assert.equal(result.reason, 'not_found');
    assert.deepEqual(
      result.nearest?.map(({ line }) => line),
      [9, 10, 11, 12, 13],
    );
    assert.deepEqual(result.nearest?.[2], { line: 11, text: 'export function count(items) {' });
    assert.match(
      result.message,
      /^SEARCH does not match the file, even ignoring indentation, trailing whitespace and blank lines at its ends\. The most similar lines are 9–13:\n 9\| }\n10\| \n11\| export function count\(items\) \{\n/,
    );
    assert.match(result.message, /There, SEARCH line 1 is "export function count\(list\) \{" but line 11 of the file is "export function count\(items\) \{"\./);
    assert.match(result.message, /Copy the lines exactly as they are in the file now/);
  });

  it('says when SEARCH, aligned on the lines the file has, would start before the file', () => {
    const result = refused('b();\nc();\n', 'a();\nb();\n', 'x\n');
    assert.deepEqual(result.nearest, [
      { line: 1, text: 'b();' },
      { line: 2, text: 'c();' },
    ]);
    assert.match(result.message, /There, SEARCH line 1 \("a\(\);"\) would be before the first line of the file\./);
  });

  it('finds the nearest lines by similarity when no SEARCH line is in the file at all', () => {
    const result = refused(SOURCE, '    total += item.price;\n', 'x\n');
    assert.deepEqual(
      result.nearest?.find(({ line }) => line === 6),
      { line: 6, text: '    sum += item.price;' },
    );
    assert.match(result.message, /There, SEARCH line 1 is "    total \+= item\.price;" but line 6 of the file is "    sum \+= item\.price;"/);
    const unrelated = refused(SOURCE, 'SELECT * FROM users;\n', 'x\n');
    assert.equal(unrelated.nearest, undefined);
    assert.match(unrelated.message, /no line of the file resembles its lines: is this the right file\?/);
  });

  it('says that SEARCH cannot skip lines when it has "..." in it', () => {
    const result = refused(SOURCE, 'export function total(items) {\n  // ... existing code ...\n  return sum;\n}\n', 'x\n');
    assert.match(result.message, /SEARCH cannot skip lines: a line like "\.\.\." or "\/\/ existing code" is looked for as it is written/);
  });

  it('refuses a SEARCH that matches several places, saying how many and where', () => {
    const result = refused(SOURCE, '}\n', '};\n');
    assert.equal(result.reason, 'ambiguous');
    assert.equal(result.count, 3);
    assert.deepEqual(result.places, [
      { start: 7, end: 7 },
      { start: 9, end: 9 },
      { start: 13, end: 13 },
    ]);
    assert.match(
      result.message,
      /^SEARCH matches 3 places in the file \(lines 7, 9 and 13\); indentation and blank lines do not tell places apart\. Add lines of context above or below/,
    );
    const many = refused('x\n'.repeat(30), 'x\n', 'y\n');
    assert.equal(many.count, 30);
    assert.equal(many.places?.length, 20);
    assert.match(many.message, /30 places in the file \(lines 1, 2, 3, 4, 5 and 25 more\)/);
  });

  it('refuses an exact match when the same lines at another indentation match too', () => {
    // The model may have meant either: a whole-block indentation slip is common.
    const file = lines('if (a) {', '  go();', '}', 'function f() {', '  if (a) {', '    go();', '  }', '}');
    const result = refused(file, 'if (a) {\n  go();\n}\n', 'if (b) {\n  go();\n}\n');
    assert.equal(result.reason, 'ambiguous');
    assert.deepEqual(result.places, [
      { start: 1, end: 3 },
      { start: 5, end: 7 },
    ]);
    // One line more of context is unique, and applies.
    assert.equal(applied(file, 'function f() {\n  if (a) {\n', 'function f() {\n  if (b) {\n').content, file.replace('  if (a)', '  if (b)'));
  });

  it('refuses a match that differs only in blank lines at its ends, when blank lines were what set it apart', () => {
    const file = lines('x();', '', 'x();', 'y();');
    const result = refused(file, 'x();\n\n', 'z();\n\n');
    assert.equal(result.reason, 'ambiguous');
  });

  it('refuses a SEARCH of blank lines only, and any SEARCH on an empty file', () => {
    assert.equal(refused(SOURCE, '\n  \n', 'x\n').reason, 'blank_search');
    const empty = refused('', 'x\n', 'y\n');
    assert.equal(empty.reason, 'not_found');
    assert.match(empty.message, /The file is empty/);
  });

  it('answers within the time limit on a 1 MB file of identical lines and a long SEARCH that almost matches', { timeout: 20_000 }, () => {
    // Knuth–Morris–Pratt keeps this linear; a naive scan would compare 30k × 2k lines.
    const file = '  x = x + 1;\n'.repeat(80_000);
    const search = '  x = x + 1;\n'.repeat(2000) + '  y();\n';
    const result = refused(file, search, '');
    assert.equal(result.reason, 'not_found');
    assert.equal(applied(file + 'end\n', '  x = x + 1;\nend\n', 'done\n').content, '  x = x + 1;\n'.repeat(79_999) + 'done\n');
  });
});
