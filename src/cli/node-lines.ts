// The Node lines Loom supports: package.json's `engines` says the same in semver, `.ci/run` runs
// the whole suite on each, README and `loom doctor` name them (test/cli/node-lines.test.ts
// keeps the four in step).

export interface NodeLine {
  major: number;
  /** The oldest release of the line that Loom's dependencies accept. */
  oldest: string;
  /** The day the line's maintenance ended, when it has. */
  endOfLife?: string;
}

/** Oldest line first. */
export const NODE_LINES: readonly NodeLine[] = [
  { major: 20, oldest: '20.19.0', endOfLife: '2026-04-30' },
  { major: 22, oldest: '22.13.0' },
  { major: 24, oldest: '24.0.0' },
];

/** `^20.19.0 || ^22.13.0 || >=24`: the lines as package.json's `engines.node`, the newest open-ended (later lines should work). */
export function enginesRange(lines: readonly NodeLine[] = NODE_LINES): string {
  return lines.map((line, i) => (i === lines.length - 1 ? `>=${line.major}` : `^${line.oldest}`)).join(' || ');
}

export type NodeSupport = { kind: 'tested'; line: NodeLine } | { kind: 'newer' } | { kind: 'too-old'; line: NodeLine } | { kind: 'unsupported' };

/**
 * Where a Node version stands: on a tested line (perhaps one past its end of life), newer than
 * any (it should work, untested), too old a release of a tested line, or not supported.
 *
 * @example nodeSupport('24.22.3') // { kind: 'tested', line: { major: 24, oldest: '24.0.0' } }
 */
export function nodeSupport(version: string, lines: readonly NodeLine[] = NODE_LINES): NodeSupport {
  const [major = 0] = version.split('.').map(Number);
  const line = lines.find((candidate) => candidate.major === major);
  if (line) return compare(version, line.oldest) >= 0 ? { kind: 'tested', line } : { kind: 'too-old', line };
  return major > lines[lines.length - 1]!.major ? { kind: 'newer' } : { kind: 'unsupported' };
}

/** The tested lines in words: `20, 22 and 24`. */
export function testedLines(lines: readonly NodeLine[] = NODE_LINES): string {
  const majors = lines.map((line) => String(line.major));
  return majors.length > 1 ? `${majors.slice(0, -1).join(', ')} and ${majors[majors.length - 1]}` : majors.join('');
}

function compare(a: string, b: string): number {
  const [x, y] = [a, b].map((version) => version.split('.').map(Number));
  for (let i = 0; i < 3; i++) if ((x![i] ?? 0) !== (y![i] ?? 0)) return (x![i] ?? 0) - (y![i] ?? 0);
  return 0;
}
