// Properties over random files and random edits (fast-check, fixed seeds so a failure replays):
// a block made from an edit applies exactly that edit; the same block perturbed the way models
// perturb blocks applies the same edit (up to trailing whitespace, see sameEdit) or is refused,
// never anything else; a SEARCH that occurs twice is refused. Files are made of a few repeated lines at a few depths, so that near and
// exact repeats (the places a wrong match could happen) are everywhere.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { applyEdit, parseEditBlocks, type EditApplied } from '../../../../src/core/agents/edits/index.ts';

const BODIES = ['x();', 'return y;', '}', 'if (a) {', 'let b = 1;', '// note', 'foo(bar, baz);', 'end', ''];

interface Case {
  /** The file's lines (no endings). */
  lines: string[];
  finalNewline: boolean;
  tabs: boolean;
  /** Lines `start` to `end` (exclusive) become `added`. */
  start: number;
  end: number;
  added: string[];
}

const indentOf = (depth: number, tabs: boolean): string => (tabs ? '\t' : '  ').repeat(depth);

const line = (tabs: boolean) =>
  fc
    .record({
      depth: fc.integer({ min: 0, max: 3 }),
      body: fc.constantFrom(...BODIES),
      trailing: fc.constantFrom('', '', '', ' ', '\t'),
      blankSpace: fc.boolean(),
    })
    .map(({ depth, body, trailing, blankSpace }) =>
      // Blank lines are "" or, sometimes, indentation alone (as some editors leave them).
      body === '' ? (blankSpace ? indentOf(depth, tabs) : '') : indentOf(depth, tabs) + body + trailing,
    );

/** New lines, as a careful model writes them: the file's indentation style, no trailing whitespace. */
const newLine = (tabs: boolean) =>
  fc
    .record({ depth: fc.integer({ min: 0, max: 3 }), body: fc.constantFrom(...BODIES, 'added();', 'z = 2;') })
    .map(({ depth, body }) => (body === '' ? '' : indentOf(depth, tabs) + body));

const edits: fc.Arbitrary<Case> = fc.boolean().chain((tabs) =>
  fc
    .record({
      lines: fc.array(line(tabs), { minLength: 1, maxLength: 30 }),
      finalNewline: fc.boolean(),
      at: fc.nat(),
      length: fc.integer({ min: 0, max: 3 }),
      added: fc.array(newLine(tabs), { maxLength: 4 }),
    })
    .filter(({ lines }) => lines.some((text) => text.trim() !== ''))
    .map(({ lines, finalNewline, at, length, added }) => {
      const start = at % (lines.length + 1);
      // Without a final newline an empty last line would read as no line at all.
      return { lines, finalNewline: finalNewline || lines[lines.length - 1] === '', tabs, start, end: Math.min(lines.length, start + length), added };
    }),
);

const content = (lines: readonly string[], finalNewline: boolean): string => (lines.length === 0 ? '' : lines.join('\n') + (finalNewline ? '\n' : ''));
const text = (lines: readonly string[]): string => (lines.length === 0 ? '' : lines.join('\n') + '\n');

function expected(edit: Case): string {
  return content([...edit.lines.slice(0, edit.start), ...edit.added, ...edit.lines.slice(edit.end)], edit.finalNewline);
}

/**
 * Whether a perturbed block's result is the edit: the expected lines with the expected line
 * endings and indentation, up to trailing whitespace (and the whitespace of blank lines). Once
 * a model's whitespace is off, a new line equal to a copied one but for trailing whitespace
 * leaves open which of the two keeps the file's; either is this edit. Everything outside the
 * lines the applier says it replaced must be the file's, byte for byte.
 */
function sameEdit(file: string, result: EditApplied, wanted: string): boolean {
  const a = result.content.split('\n');
  const b = wanted.split('\n');
  if (a.length !== b.length) return false;
  const sameLines = a.every((line, i) => line.endsWith('\r') === b[i]!.endsWith('\r') && line.trimEnd() === b[i]!.trimEnd());
  let before = file.slice(0, offsetOfLine(file, result.replaced.start - 1));
  const after = file.slice(offsetOfLine(file, result.replaced.end));
  // Lines removed at the end of a file without a final newline: the line before loses its ending.
  if (after === '' && !file.endsWith('\n')) before = before.replace(/\r?\n$/, '');
  return sameLines && result.content.startsWith(before) && result.content.endsWith(after);
}

/** Where line `index` (0-based) of a content starts; its length past the last line. */
function offsetOfLine(content: string, index: number): number {
  let offset = 0;
  for (let i = 0; i < index; i++) {
    const next = content.indexOf('\n', offset);
    if (next === -1) return content.length;
    offset = next + 1;
  }
  return offset;
}

/** How many places `search` matches with each line trimmed and its blank ends ignored: an oracle written apart from the applier. */
function looseCount(file: readonly string[], search: readonly string[]): number {
  const core = search.map((s) => s.trim());
  while (core.length && core[0] === '') core.shift();
  while (core.length && core[core.length - 1] === '') core.pop();
  if (core.length === 0) return Infinity;
  let count = 0;
  for (let p = 0; p + core.length <= file.length; p++) if (core.every((key, i) => file[p + i]!.trim() === key)) count++;
  return count;
}

interface Block {
  search: string[];
  replace: string[];
  /** How many lines of context SEARCH (and REPLACE) start and end with. */
  above: number;
  below: number;
}

/** The block for an edit: its lines plus the least context (below first, then above) that makes SEARCH match one place. */
function blockFor(edit: Case): Block {
  let from = edit.start;
  let to = edit.end;
  for (let below = true; looseCount(edit.lines, edit.lines.slice(from, to)) !== 1; below = !below) {
    if ((below && to < edit.lines.length) || from === 0) to++;
    else from--;
  }
  return {
    search: edit.lines.slice(from, to),
    replace: [...edit.lines.slice(from, edit.start), ...edit.added, ...edit.lines.slice(edit.end, to)],
    above: edit.start - from,
    below: to - edit.end,
  };
}

/** Renders a block as a model might, to go through the parser too. */
function answer(path: string, search: readonly string[], replace: readonly string[], style: number): string {
  const body = ['<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE'];
  if (style === 0) return [path, ...body, ''].join('\n');
  if (style === 1) return ['Here is the edit.', '', path, '```', ...body, '```', ''].join('\n');
  if (style === 2) return ['```ts ' + path, ...body, '```', 'Done.'].join('\n');
  return ['`' + path + '`:', ...body].join('\n');
}

interface Perturbation {
  trailing: boolean;
  shift: 0 | 1 | 2 | 3;
  crlf: boolean;
  blankMore: 0 | 1 | 2 | 3;
  blankLess: 0 | 1 | 2 | 3;
  tabWidth: 0 | 2 | 4 | 8;
  seed: number;
}

const perturbations: fc.Arbitrary<Perturbation> = fc.record({
  trailing: fc.boolean(),
  shift: fc.constantFrom(0, 1, 2, 3),
  crlf: fc.boolean(),
  blankMore: fc.constantFrom(0, 1, 2, 3),
  blankLess: fc.constantFrom(0, 1, 2, 3),
  tabWidth: fc.constantFrom(0, 2, 4, 8),
  seed: fc.nat(),
});

const lead = (s: string): string => s.slice(0, s.length - s.trimStart().length);

function commonPrefix(strings: readonly string[]): string {
  if (strings.length === 0) return '';
  let prefix = strings[0]!;
  for (const s of strings) while (!s.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/** The block as a sloppy model writes it: the same edit, in other whitespace. */
function perturb(block: Block, tabs: boolean, p: Perturbation): { search: string; replace: string } {
  let search = [...block.search];
  let replace = [...block.replace];
  let state = p.seed;
  const next = (): number => (state = (state * 1103515245 + 12345) & 0x7fffffff);
  const both = (f: (s: string) => string): void => {
    search = search.map((s) => (s.trim() === '' ? s : f(s)));
    replace = replace.map((s) => (s.trim() === '' ? s : f(s)));
  };
  if (p.tabWidth && tabs && search.some((s) => s.trim() !== '' && lead(s) !== '')) {
    both((s) => ' '.repeat(p.tabWidth * lead(s).length) + s.trimStart());
  }
  if (p.shift === 1) both((s) => '  ' + s);
  if (p.shift === 2) both((s) => '\t' + s);
  if (p.shift === 3) {
    const prefix = commonPrefix([...search, ...replace].filter((s) => s.trim() !== '').map(lead));
    if (prefix) both((s) => s.slice(prefix.length));
  }
  // A blank line of context left out: the same line on both sides.
  if (p.blankLess & 1 && block.above > 0 && search[0]!.trim() === '') {
    search.shift();
    replace.shift();
  }
  if (p.blankLess & 2 && block.below > 0 && search.at(-1)!.trim() === '' && search.length > 1) {
    search.pop();
    replace.pop();
  }
  if (p.blankMore & 1) {
    search.unshift('');
    replace.unshift('');
  }
  if (p.blankMore & 2) {
    search.push('');
    replace.push('');
  }
  if (p.trailing) {
    // At least one line of SEARCH with text (blank ones at its ends may not count), then
    // others of both sides at random: new lines have trailing whitespace only from a model
    // that shows it adds some.
    const spaces = [' ', '  ', '\t', ' \t'];
    const texts = search.flatMap((s, i) => (s.trim() === '' ? [] : [i]));
    search[texts[next() % texts.length]!] += spaces[next() % spaces.length]!;
    search = search.map((s) => (next() % 3 === 0 ? s + spaces[next() % spaces.length]! : s));
    replace = replace.map((s) => (next() % 3 === 0 ? s + spaces[next() % spaces.length]! : s));
  }
  const eol = p.crlf ? '\r\n' : '\n';
  const join = (lines: readonly string[]): string => (lines.length === 0 ? '' : lines.join(eol) + eol);
  return { search: join(search), replace: join(replace) };
}

describe('edit blocks: properties', () => {
  it('a block made from an edit, with the least unique context, applies exactly that edit (through the parser too)', () => {
    fc.assert(
      fc.property(edits, fc.integer({ min: 0, max: 3 }), (edit, style) => {
        const block = blockFor(edit);
        const parsed = parseEditBlocks(answer('src/file.ts', block.search, block.replace, style));
        assert.deepEqual(parsed.problems, []);
        assert.equal(parsed.blocks.length, 1);
        assert.deepEqual(
          { search: parsed.blocks[0]!.search, replace: parsed.blocks[0]!.replace },
          { search: text(block.search), replace: text(block.replace) },
        );
        const result = applyEdit(content(edit.lines, edit.finalNewline), parsed.blocks[0]!);
        assert.ok(result.ok, !result.ok ? result.message : '');
        assert.equal(result.content, expected(edit));
        assert.deepEqual(result.tolerances, []);
      }),
      { seed: 1, numRuns: 1500 },
    );
  });

  it('a perturbed block (whitespace, indentation, tabs, CRLF, blank lines) applies the same edit or is refused, never anything else', () => {
    // Spaces for tabs and a shift together are two indentation mistakes at once: SEARCH often
    // cannot tell them apart, and such blocks are mostly refused. The others must mostly apply:
    // refusing everything would pass the property.
    let applied = 0;
    let runs = 0;
    fc.assert(
      fc.property(edits, perturbations, (edit, p) => {
        const single = !(edit.tabs && p.tabWidth && p.shift);
        if (single) runs++;
        const file = content(edit.lines, edit.finalNewline);
        const result = applyEdit(file, perturb(blockFor(edit), edit.tabs, p));
        if (!result.ok) return;
        if (single) applied++;
        assert.ok(sameEdit(file, result, expected(edit)), `${JSON.stringify(result.content)} is not ${JSON.stringify(expected(edit))}`);
      }),
      { seed: 2, numRuns: 3000 },
    );
    assert.ok(applied / runs > 0.95, `only ${applied} of ${runs} applied`);
  });

  it('the same, on a CRLF file: the result keeps CRLF', () => {
    fc.assert(
      fc.property(edits, perturbations, (edit, p) => {
        const file = content(edit.lines, edit.finalNewline).replaceAll('\n', '\r\n');
        const result = applyEdit(file, perturb(blockFor(edit), edit.tabs, p));
        // (A file without any line ending gives new lines "\n".)
        const wanted = expected(edit).replaceAll('\n', '\r\n');
        if (result.ok && file.includes('\r\n')) assert.ok(sameEdit(file, result, wanted), `${JSON.stringify(result.content)} is not ${JSON.stringify(wanted)}`);
      }),
      { seed: 3, numRuns: 1000 },
    );
  });

  it('a SEARCH that occurs twice, even once at another indentation or with other trailing whitespace, is refused', () => {
    fc.assert(
      fc.property(
        edits,
        fc.array(line(false), { minLength: 1, maxLength: 4 }).filter((lines) => lines.some((s) => s.trim() !== '')),
        fc.constantFrom('', '  ', '\t'),
        fc.boolean(),
        fc.nat(),
        (edit, twice, shift, trailing, at) => {
          const lines = [...edit.lines];
          const other = twice.map((s) => (s.trim() === '' ? s : shift + s + (trailing ? ' ' : '')));
          const first = at % (lines.length + 1);
          lines.splice(first, 0, ...twice);
          // Anywhere but inside the first copy.
          let second = (at >>> 3) % (lines.length + 1);
          if (second > first && second < first + twice.length) second = first;
          lines.splice(second, 0, ...other);
          const result = applyEdit(content(lines, true), { search: text(twice), replace: 'changed();\n' });
          assert.ok(!result.ok && result.reason === 'ambiguous', result.ok ? `applied at ${JSON.stringify(result.replaced)}` : result.reason);
          assert.ok(result.count! >= 2);
        },
      ),
      { seed: 4, numRuns: 1500 },
    );
  });
});
