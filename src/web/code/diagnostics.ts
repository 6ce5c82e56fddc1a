// The workspace's problems as the window holds them: every file's last report from its
// language server, read once (`GET /api/code/problems`) and then kept current by
// `diagnostics:change` events (read again after a gap in the event stream). The active
// editor's squiggles (@codemirror/lint's diagnostics), the problems panel and the status bar's
// counts all come from here.
import { setDiagnostics, type Diagnostic as EditorDiagnostic } from '@codemirror/lint';
import type { Text } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import type { CodeFileDiagnostics, CodeProblems } from '../../contracts/code-resources.ts';
import { api } from '../api.ts';
import type { EventStream } from '../events.ts';

export type FileDiagnostics = Omit<CodeFileDiagnostics, 'current'>;
export type Diagnostic = FileDiagnostics['diagnostics'][number];
export type Severity = Diagnostic['severity'];
export type Counts = Record<Severity, number>;

const SEVERITY_ORDER: Severity[] = ['error', 'warning', 'information', 'hint'];

/**
 * Every file's diagnostics.
 *
 * @example
 *   const problems = new ProblemsStore(events);
 *   problems.onChange = (path) => { if (path === active) problems.show(view, path); };
 *   await problems.refresh();
 */
export class ProblemsStore {
  private readonly files = new Map<string, FileDiagnostics>();
  /** A file's diagnostics changed (undefined: all of them were read again). */
  onChange: (path: string | undefined) => void = () => {};

  constructor(events: EventStream) {
    events.on('diagnostics:change', (event) => {
      const report = event.data as unknown as FileDiagnostics;
      if (typeof report.path !== 'string' || !Array.isArray(report.diagnostics)) return;
      this.set(report);
      this.onChange(report.path);
    });
    events.onResync(() => void this.refresh());
  }

  /** Reads every file's problems again. */
  async refresh(): Promise<void> {
    let problems: CodeProblems;
    try {
      problems = await api<CodeProblems>('GET', '/api/code/problems');
    } catch {
      // No language service to ask (an older server, or it is restarting): nothing to list.
      return;
    }
    this.files.clear();
    for (const file of problems.files) this.set(file);
    this.onChange(undefined);
  }

  /** A file's diagnostics (none when it has no report). */
  file(path: string): Diagnostic[] {
    return this.files.get(path)?.diagnostics ?? [];
  }

  /** Every file with diagnostics, the ones with errors first, then by path. */
  list(): FileDiagnostics[] {
    const rank = (file: FileDiagnostics) => Math.min(...file.diagnostics.map((diagnostic) => SEVERITY_ORDER.indexOf(diagnostic.severity)));
    return [...this.files.values()].sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
  }

  counts(): Counts {
    const counts: Counts = { error: 0, warning: 0, information: 0, hint: 0 };
    for (const file of this.files.values()) for (const diagnostic of file.diagnostics) counts[diagnostic.severity]++;
    return counts;
  }

  /** Puts a file's diagnostics in the editor as squiggles (the view must show that file). */
  show(view: EditorView, path: string): void {
    view.dispatch(
      setDiagnostics(
        view.state,
        this.file(path).map((diagnostic) => toEditor(view.state.doc, diagnostic)),
      ),
    );
  }

  private set(report: FileDiagnostics): void {
    if (report.diagnostics.length === 0) this.files.delete(report.path);
    else this.files.set(report.path, { ...report, diagnostics: [...report.diagnostics].sort(bySeverityThenPlace) });
  }
}

function bySeverityThenPlace(a: Diagnostic, b: Diagnostic): number {
  return (
    SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
    a.range.start.line - b.range.start.line ||
    a.range.start.column - b.range.start.column
  );
}

/**
 * An offset of the document for a 1-based line and column (UTF-16, as CodeMirror counts),
 * kept inside the document: a report made for text a keystroke older may point past its end.
 */
export function offsetAt(doc: Text, line: number, column: number): number {
  if (line > doc.lines) return doc.length;
  const at = doc.line(Math.max(1, line));
  return Math.min(at.to, at.from + Math.max(0, column - 1));
}

/** The 1-based line and column of an offset. */
export function positionAt(doc: Text, offset: number): { line: number; column: number } {
  const line = doc.lineAt(offset);
  return { line: line.number, column: offset - line.from + 1 };
}

function toEditor(doc: Text, diagnostic: Diagnostic): EditorDiagnostic {
  const from = offsetAt(doc, diagnostic.range.start.line, diagnostic.range.start.column);
  const to = Math.max(from, offsetAt(doc, diagnostic.range.end.line, diagnostic.range.end.column));
  return {
    from,
    to,
    severity: diagnostic.severity === 'information' ? 'info' : diagnostic.severity,
    message: diagnostic.message,
    ...(diagnostic.source ? { source: diagnostic.code ? `${diagnostic.source}(${diagnostic.code})` : diagnostic.source } : {}),
    ...(diagnostic.tags?.includes('unnecessary') ? { markClass: 'cm-unnecessary' } : {}),
  };
}

/** "2 errors, 1 warning" (what the status bar's button says to a screen reader). */
export function countsInWords(counts: Counts): string {
  const words = [plural(counts.error, 'error'), plural(counts.warning, 'warning')];
  if (counts.information) words.push(`${counts.information} info`);
  return words.join(', ');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
