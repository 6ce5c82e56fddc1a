// Resident memory of a process and of the processes it started (typescript-language-server runs
// tsserver, where the memory is), read from Linux's /proc. Elsewhere there is no /proc: the
// answer is undefined and the memory limit is not watched (docs/code-intelligence.md says so).
import fs from 'node:fs';

/**
 * The resident set size in bytes of `pid` and its descendants, or undefined when /proc cannot
 * tell (not Linux, or the process is gone).
 *
 * @example
 *   treeRss(child.pid); // 734003200
 */
export function treeRss(pid: number): number | undefined {
  const own = rssOf(pid);
  if (own === undefined) return undefined;
  let total = own;
  const seen = new Set([pid]);
  const pending = childrenOf(pid);
  while (pending.length > 0 && seen.size < 1000) {
    const child = pending.pop()!;
    if (seen.has(child)) continue;
    seen.add(child);
    total += rssOf(child) ?? 0;
    pending.push(...childrenOf(child));
  }
  return total;
}

/** VmRSS of /proc/<pid>/status, in bytes. */
function rssOf(pid: number): number | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  // A zombie has no VmRSS line: it holds no memory.
  return match ? Number(match[1]) * 1024 : 0;
}

/** The children of every thread of `pid` (/proc/<pid>/task/<tid>/children). */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const task of tasks) {
    try {
      for (const word of fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ')) if (word.trim() !== '') children.push(Number(word));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return children;
}
