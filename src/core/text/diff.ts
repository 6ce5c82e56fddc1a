// Line diffs: Myers' O(ND) algorithm ("An O(ND) Difference Algorithm and Its Variations", 1986)
// over lines, and the unified format `diff -u` and `git diff` print. What an agent task changed
// is shown this way. Lines are compared with their endings, so a line that lost its final
// newline, or went from CRLF to LF, is a changed line.

/** One step from the old lines to the new: keep a line, remove an old one, add a new one. */
export type DiffOp = { kind: 'keep' | 'remove' | 'add'; line: string };

/**
 * Beyond this many differing lines (after the common start and end are set aside) the shortest
 * edit script is not searched for: the differing middle is shown as removed, then added. The
 * search costs O(D²) memory and time; such a diff is a rewrite, and reading it as one is as
 * useful.
 */
const MAX_EDIT_DISTANCE = 2000;

/** The lines of `text`, each with its ending ("\n" or "\r\n"); the last may have none. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', start)) {
    lines.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/**
 * The shortest sequence of keeps, removals and additions that turns `before` into `after`
 * (removals before additions where both are possible, as `diff` prints them).
 *
 * @example
 * diffLines(['a\n', 'b\n'], ['a\n', 'c\n']);
 * // [{kind: 'keep', line: 'a\n'}, {kind: 'remove', line: 'b\n'}, {kind: 'add', line: 'c\n'}]
 */
export function diffLines(before: readonly string[], after: readonly string[]): DiffOp[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const ops: DiffOp[] = before.slice(0, head).map((line) => ({ kind: 'keep', line }));
  const oldMiddle = before.slice(head, before.length - tail);
  const newMiddle = after.slice(head, after.length - tail);
  ops.push(...middle(oldMiddle, newMiddle));
  for (const line of before.slice(before.length - tail)) ops.push({ kind: 'keep', line });
  return ops;
}

/** Myers' greedy search on the middle (which starts and ends with a difference), then its path back. */
function middle(a: readonly string[], b: readonly string[]): DiffOp[] {
  const rewrite = (): DiffOp[] => [...a.map((line): DiffOp => ({ kind: 'remove', line })), ...b.map((line): DiffOp => ({ kind: 'add', line }))];
  if (a.length === 0 || b.length === 0) return rewrite();
  // Lines as small integers: comparing them is then one instruction, whatever their length.
  const ids = new Map<string, number>();
  const id = (line: string) => {
    let found = ids.get(line);
    if (found === undefined) ids.set(line, (found = ids.size));
    return found;
  };
  const x = a.map(id);
  const y = b.map(id);
  const n = x.length;
  const m = y.length;
  const limit = Math.min(n + m, MAX_EDIT_DISTANCE);
  // v[k + offset]: the furthest x reached on diagonal k (x - y = k); trace[d] keeps v's
  // diagonals -d..d after step d, for the path back.
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[k - 1 + offset]! < v[k + 1 + offset]!);
      let i = down ? v[k + 1 + offset]! : v[k - 1 + offset]! + 1;
      let j = i - k;
      while (i < n && j < m && x[i] === y[j]) {
        i++;
        j++;
      }
      v[k + offset] = i;
      if (i >= n && j >= m) {
        trace.push(v.slice(offset - d, offset + d + 1));
        return backtrack(trace, a, b);
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  return rewrite();
}

/** The edit script read backwards from the end through the furthest points of each step. */
function backtrack(trace: readonly Int32Array[], a: readonly string[], b: readonly string[]): DiffOp[] {
  const ops: DiffOp[] = [];
  let i = a.length;
  let j = b.length;
  for (let d = trace.length - 1; d > 0; d--) {
    const previous = trace[d - 1]!;
    const at = (k: number) => previous[k + d - 1]!;
    const k = i - j;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const startI = down ? at(k + 1) : at(k - 1);
    const startJ = startI - (down ? k + 1 : k - 1);
    while (i > (down ? startI : startI + 1) && j > (down ? startJ + 1 : startJ)) {
      ops.push({ kind: 'keep', line: a[--i]! });
      j--;
    }
    if (down) ops.push({ kind: 'add', line: b[--j]! });
    else ops.push({ kind: 'remove', line: a[--i]! });
  }
  while (i > 0) ops.push({ kind: 'keep', line: a[--i]! });
  return ops.reverse();
}

export interface UnifiedDiffOptions {
  /** Name of the old file in the header (`--- a/<name>`); null: the file did not exist. */
  from: string | null;
  /** Name of the new file (`+++ b/<name>`); null: the file was deleted. */
  to: string | null;
  /** Unchanged lines shown around each change (default 3). */
  context?: number;
}

/**
 * The unified diff (`diff -u`, `git diff`) from `before` to `after` (null: no file), or "" when
 * they are equal. Lines that lack a final newline are followed by `\ No newline at end of file`.
 *
 * @example
 * unifiedDiff('a\nb\n', 'a\nc\n', { from: 'x.ts', to: 'x.ts' });
 * // '--- a/x.ts\n+++ b/x.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n'
 */
export function unifiedDiff(before: string | null, after: string | null, options: UnifiedDiffOptions): string {
  if (before === after && options.from === options.to) return '';
  const context = options.context ?? 3;
  const ops = diffLines(splitLines(before ?? ''), splitLines(after ?? ''));
  const header = [`--- ${options.from === null ? '/dev/null' : `a/${options.from}`}`, `+++ ${options.to === null ? '/dev/null' : `b/${options.to}`}`];
  const hunks = hunksOf(ops, context);
  if (hunks.length === 0) return options.from === options.to ? '' : `${header.join('\n')}\n`;
  return `${[...header, ...hunks].join('\n')}\n`;
}

/** The hunks of an edit script: each change with `context` lines around, close changes merged. */
function hunksOf(ops: readonly DiffOp[], context: number): string[] {
  const changed = ops.flatMap((op, index) => (op.kind === 'keep' ? [] : [index]));
  const hunks: string[] = [];
  let next = 0;
  while (next < changed.length) {
    const start = Math.max(0, changed[next]! - context);
    let end = changed[next]! + 1;
    // Take the following changes whose context would touch or overlap this one's.
    while (next + 1 < changed.length && changed[next + 1]! - end <= 2 * context) end = changed[++next]! + 1;
    next++;
    end = Math.min(ops.length, end + context);
    hunks.push(hunk(ops, start, end));
  }
  return hunks;
}

function hunk(ops: readonly DiffOp[], start: number, end: number): string {
  // Line numbers (1-based) of the hunk's first line in the old and new file.
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops.slice(0, start)) {
    if (op.kind !== 'add') oldLine++;
    if (op.kind !== 'remove') newLine++;
  }
  const body: string[] = [];
  let oldCount = 0;
  let newCount = 0;
  for (const op of ops.slice(start, end)) {
    if (op.kind !== 'add') oldCount++;
    if (op.kind !== 'remove') newCount++;
    const sign = op.kind === 'keep' ? ' ' : op.kind === 'remove' ? '-' : '+';
    body.push(op.line.endsWith('\n') ? `${sign}${op.line.slice(0, -1)}` : `${sign}${op.line}\n\\ No newline at end of file`);
  }
  return [`@@ -${range(oldLine, oldCount)} +${range(newLine, newCount)} @@`, ...body].join('\n');
}

/** `start,count` as diff writes it: `,1` left out, and an empty range named by the line before it. */
function range(start: number, count: number): string {
  if (count === 1) return `${start}`;
  return `${count === 0 ? start - 1 : start},${count}`;
}
