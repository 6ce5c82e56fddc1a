// The lines of a file most like a SEARCH that matched nowhere, to show the model what is there.
// Each file line that equals (trimmed) a SEARCH line votes for the window that would put the two
// side by side, weighted by how rare the line is in the file (a `}` says little, a signature a
// lot). Linear in the file. When only lines SEARCH repeats too often to vote are in the file,
// the rarest of them anchors the window; when no line is equal, the most similar single line by
// character pairs does.
import type { Located } from './locate.ts';

/** A SEARCH line repeated more than this often votes no more: such lines (`}`, `end`) tell nothing. */
const MAX_REPEATS = 16;
/** Below this similarity (Dice coefficient of character pairs) a line is not shown as "nearest". */
const MIN_SIMILARITY = 0.4;

/**
 * The 0-based file line where SEARCH (`lines`, as located by `locate`) fits best, and the
 * 0-based SEARCH line it is aligned with there; null when nothing in the file resembles it.
 * The window starts at `fileLine - searchLine` (maybe before the file's first line).
 */
export function nearestAnchor(fileLines: readonly string[], lines: readonly string[], located: Located): { fileLine: number; searchLine: number } | null {
  const { fileKeys, searchKeys, counts } = located;
  const m = lines.length;
  const positions: number[][] = Array.from({ length: counts.length }, () => []);
  for (let i = 0; i < m; i++) if (lines[i]!.trim() !== '') positions[searchKeys[i]!]!.push(i);
  // votes[s + m]: the weight for a window starting at file line s (s from -m + 1).
  const votes = new Float64Array(fileLines.length + m);
  let best = -1;
  let bestVotes = 0;
  for (let p = 0; p < fileKeys.length; p++) {
    const id = fileKeys[p]!;
    if (id < 0) continue;
    const at = positions[id]!;
    if (at.length === 0 || at.length > MAX_REPEATS) continue;
    const weight = 1 / counts[id]!;
    for (const i of at) {
      const slot = p - i + m;
      const total = (votes[slot] = votes[slot]! + weight);
      if (total > bestVotes || (total === bestVotes && slot < best)) {
        bestVotes = total;
        best = slot;
      }
    }
  }
  if (best >= 0) {
    const start = best - m;
    // Align on the first SEARCH line that is equal there, so the caller's window shows it.
    for (let i = 0; i < m; i++)
      if (start + i >= 0 && start + i < fileKeys.length && fileKeys[start + i] === searchKeys[i] && lines[i]!.trim() !== '')
        return { fileLine: start + i, searchLine: i };
    return { fileLine: Math.max(0, start), searchLine: Math.max(0, -start) };
  }
  // Only lines SEARCH repeats too often to vote are in the file: the rarest one anchors.
  let rarest = -1;
  for (let i = 0; i < m; i++) {
    const id = searchKeys[i]!;
    if (counts[id]! > 0 && lines[i]!.trim() !== '' && (rarest < 0 || counts[id]! < counts[searchKeys[rarest]!]!)) rarest = i;
  }
  if (rarest >= 0) return { fileLine: fileKeys.indexOf(searchKeys[rarest]!), searchLine: rarest };
  return mostSimilarLine(fileLines, lines);
}

/** Character pairs are counted in this many buckets (a pair's hash): typed arrays, no Map per line. */
const BUCKETS = 4096;
const bucket = (text: string, c: number): number => (text.charCodeAt(c) * 31 + text.charCodeAt(c + 1)) & (BUCKETS - 1);
const isSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13);

/**
 * The file line most like one of SEARCH's three longest lines: the Dice coefficient of their
 * character pairs (hashed into buckets; a rare collision only flatters a line a little). One
 * pass over the file, lines too long or too short to beat the best so far skipped unread.
 */
function mostSimilarLine(fileLines: readonly string[], lines: readonly string[]): { fileLine: number; searchLine: number } | null {
  const seen = new Set<string>();
  const candidates = lines
    .map((line, index) => ({ text: line.trim(), index }))
    .filter(({ text }) => text.length >= 4 && !seen.has(text) && seen.add(text))
    .sort((a, b) => b.text.length - a.text.length)
    .slice(0, 3)
    .map(({ text, index }) => {
      const wanted = new Int32Array(BUCKETS);
      for (let c = 0; c + 1 < text.length; c++) wanted[bucket(text, c)]!++;
      return { length: text.length, index, wanted };
    });
  let best: { fileLine: number; searchLine: number } | null = null;
  let bestScore = MIN_SIMILARITY;
  // used[b] counts pairs of the current line in bucket b; stamp[b] says for which line it does.
  const used = new Int32Array(BUCKETS);
  const stamp = new Int32Array(BUCKETS);
  let line = 0;
  for (let p = 0; p < fileLines.length; p++) {
    const text = fileLines[p]!;
    let from = 0;
    let to = text.length;
    while (from < to && isSpace(text.charCodeAt(from))) from++;
    while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
    const length = to - from;
    if (length < 2) continue;
    for (const candidate of candidates) {
      // Dice cannot reach the best so far when one line is much longer than the other.
      if (2 * Math.min(length, candidate.length) < bestScore * (length + candidate.length)) continue;
      line++;
      let common = 0;
      for (let c = from; c + 1 < to; c++) {
        const b = bucket(text, c);
        if (stamp[b] !== line) {
          stamp[b] = line;
          used[b] = 0;
        }
        if (used[b]! < candidate.wanted[b]!) {
          used[b]!++;
          common++;
        }
      }
      const score = (2 * common) / (candidate.length - 1 + length - 1);
      if (score > bestScore) {
        bestScore = score;
        best = { fileLine: p, searchLine: candidate.index };
      }
    }
  }
  return best;
}
