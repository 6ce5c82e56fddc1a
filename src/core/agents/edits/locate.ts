// Where SEARCH's lines occur in a file, compared without the whitespace at either end of each
// line: the loosest view the applier has. Every line becomes a small integer (its trimmed
// text's id among SEARCH's lines, -1 for a line SEARCH does not have), and the ids are searched
// with Knuth–Morris–Pratt: linear in the file and SEARCH together, whatever the content, so a
// 1 MB file of identical lines costs what any 1 MB file costs.

export interface Located {
  /** 0-based first line of every place the lines occur, overlapping places included. */
  starts: number[];
  /** Each file line's id (-1: not one of SEARCH's lines). */
  fileKeys: Int32Array;
  /** Each SEARCH line's id. */
  searchKeys: Int32Array;
  /** How many lines of the file have each id. */
  counts: Int32Array;
}

/** Finds every place where `lines` occur in `fileLines`, each line compared trimmed. */
export function locate(fileLines: readonly string[], lines: readonly string[]): Located {
  const ids = new Map<string, number>();
  const searchKeys = new Int32Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const key = lines[i]!.trim();
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    searchKeys[i] = id;
  }
  // Only lengths SEARCH has need a lookup: most lines of a file are skipped without hashing.
  const lengths = new Set<number>();
  for (const key of ids.keys()) lengths.add(key.length);
  const fileKeys = new Int32Array(fileLines.length);
  const counts = new Int32Array(ids.size);
  for (let i = 0; i < fileLines.length; i++) {
    const line = fileLines[i]!;
    let from = 0;
    let to = line.length;
    while (from < to && isSpace(line.charCodeAt(from))) from++;
    while (to > from && isSpace(line.charCodeAt(to - 1))) to--;
    const id = lengths.has(to - from) ? ids.get(from === 0 && to === line.length ? line : line.slice(from, to)) : undefined;
    if (id === undefined) fileKeys[i] = -1;
    else {
      fileKeys[i] = id;
      counts[id]!++;
    }
  }
  return { starts: occurrences(fileKeys, searchKeys), fileKeys, searchKeys, counts };
}

/** Whether a character is whitespace as String.prototype.trim sees it (the same set as \s). */
function isSpace(code: number): boolean {
  if (code === 32 || (code >= 9 && code <= 13)) return true;
  return code > 127 && /\s/.test(String.fromCharCode(code));
}

/** Every start of `pattern` in `text` (Knuth–Morris–Pratt, overlaps included). */
export function occurrences(text: Int32Array, pattern: Int32Array): number[] {
  const m = pattern.length;
  const starts: number[] = [];
  if (m === 0 || m > text.length) return starts;
  // failure[i]: the length of the longest proper border of pattern[0..i].
  const failure = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = failure[k - 1]!;
    if (pattern[i] === pattern[k]) k++;
    failure[i] = k;
  }
  for (let i = 0, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== pattern[k]) k = failure[k - 1]!;
    if (text[i] === pattern[k]) k++;
    if (k === m) {
      starts.push(i - m + 1);
      k = failure[k - 1]!;
    }
  }
  return starts;
}
