// What the language servers last reported, per file: the problems list. A report replaces the
// file's previous one (LSP's rule) and is told as a `diagnostics:change` event when it differs.
// A server decides how much it reports, so both the files and the diagnostics per file kept
// are capped: memory stays bounded whatever a server sends.
import type { CodeDiagnostic, DiagnosticSeverity, FileDiagnostics, Problems } from './types.ts';

/** Diagnostics kept per file; the rest are counted in `omitted`. */
export const MAX_DIAGNOSTICS_PER_FILE = 500;
/** Files with diagnostics kept; reports of further files are dropped until some are cleared. */
export const MAX_FILES_WITH_DIAGNOSTICS = 10_000;

const SEVERITY_ORDER: Record<DiagnosticSeverity, number> = { error: 0, warning: 1, information: 2, hint: 3 };

/**
 * The diagnostics of the workspace's files.
 *
 * @example
 *   const store = new DiagnosticsStore((report) => void bus.emit('diagnostics:change', { ...report }));
 *   store.report('typescript', 'src/a.ts', [{ range, severity: 'error', message: "Cannot find name 'x'." }]);
 *   store.problems().counts.error; // 1
 */
export class DiagnosticsStore {
  private readonly files = new Map<string, FileDiagnostics>();

  constructor(private readonly changed: (report: FileDiagnostics) => void = () => {}) {}

  /** Replaces what `server` reported for `path`; an empty list clears it. `unread` counts diagnostics the server sent that were not even read (over MAX_ENTRIES). */
  report(server: string, path: string, diagnostics: readonly CodeDiagnostic[], unread = 0): void {
    const previous = this.files.get(path);
    if (!previous && diagnostics.length === 0 && unread === 0) return;
    if (!previous && this.files.size >= MAX_FILES_WITH_DIAGNOSTICS) return;
    const kept = [...diagnostics].sort(bySeverityThenPlace).slice(0, MAX_DIAGNOSTICS_PER_FILE);
    const report: FileDiagnostics = { path, server, diagnostics: kept, omitted: diagnostics.length - kept.length + unread };
    if (previous && sameReport(previous, report)) return;
    if (kept.length === 0) this.files.delete(path);
    else this.files.set(path, report);
    this.changed(report);
  }

  /** Clears every file `server` reported (it was turned off, or its workspace changed under it); `keep` says which to leave. */
  clearServer(server: string, keep: (path: string) => boolean = () => false): void {
    for (const [path, report] of [...this.files]) if (report.server === server && !keep(path)) this.report(server, path, []);
  }

  /** What was last reported for `path`; no diagnostics when nothing was. */
  file(path: string): FileDiagnostics {
    return this.files.get(path) ?? { path, server: '', diagnostics: [], omitted: 0 };
  }

  /** Every file with diagnostics, those with errors first, then by path. */
  problems(): Problems {
    const counts: Record<DiagnosticSeverity, number> = { error: 0, warning: 0, information: 0, hint: 0 };
    const files = [...this.files.values()];
    for (const report of files) for (const diagnostic of report.diagnostics) counts[diagnostic.severity]++;
    files.sort((a, b) => worst(a) - worst(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files, counts };
  }
}

function worst(report: FileDiagnostics): number {
  return report.diagnostics.length === 0 ? 4 : SEVERITY_ORDER[report.diagnostics[0]!.severity];
}

function bySeverityThenPlace(a: CodeDiagnostic, b: CodeDiagnostic): number {
  return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column;
}

function sameReport(a: FileDiagnostics, b: FileDiagnostics): boolean {
  return a.server === b.server && a.omitted === b.omitted && JSON.stringify(a.diagnostics) === JSON.stringify(b.diagnostics);
}
