// A changed file against HEAD, in the editor area: side by side (HEAD on the left, read-only)
// or unified, with @codemirror/merge (merge-editors.ts, loaded when a diff is first shown).
// Both sides come from GET /api/git/diff; a side that is missing, binary or too large is said
// so in words instead of shown.
import type { GitFileDiff, GitFileSide } from '../../contracts/local-resources.ts';
import { fill, h } from '../dom.ts';

type MergeEditors = typeof import('./merge-editors.ts');
let mergeEditors: Promise<MergeEditors> | undefined;

/**
 * The diff editors' module, loaded once (a chunk of its own: @codemirror/merge is not part of
 * the window's first script). A failed load is tried again on the next call.
 *
 * @example
 *   const { unifiedDiffEditor } = await loadMergeEditors();
 */
export function loadMergeEditors(): Promise<MergeEditors> {
  return (mergeEditors ??= import('./merge-editors.ts').catch((error: unknown) => {
    mergeEditors = undefined;
    throw error;
  }));
}

export type DiffLayout = 'split' | 'unified';

export interface DiffActions {
  /** Opens the file in the editor (to change it). */
  open(path: string): void;
  /** Stages the file, then the view closes. */
  stage(path: string): Promise<void>;
}

/**
 * The diff view. Mounted over the editor area (`.center`) when shown, removed when closed, so
 * the editor keeps its state underneath.
 *
 * @example
 *   const view = new DiffView({ open: (p) => workbench.open(p), stage: (p) => panel.stage(p) });
 *   view.show(await api<GitFileDiff>('GET', `/api/git/diff?path=${encodeURIComponent(path)}`));
 */
export class DiffView {
  readonly element = h('section', { class: 'git-diff', 'aria-label': 'Changes against HEAD', tabindex: -1 });
  private layout: DiffLayout = 'split';
  private diff: GitFileDiff | undefined;
  private destroy: (() => void) | undefined;
  private editors: MergeEditors | undefined;

  constructor(private readonly actions: DiffActions) {
    this.element.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.close();
    });
  }

  get shownPath(): string | undefined {
    return this.element.isConnected ? this.diff?.path : undefined;
  }

  /** Shows the diff (the first time, once the diff editors' chunk has loaded). */
  async show(diff: GitFileDiff): Promise<void> {
    this.editors = await loadMergeEditors();
    this.diff = diff;
    const area = document.querySelector('.center') ?? document.body;
    if (this.element.parentElement !== area) area.append(this.element);
    this.render();
    this.element.focus();
  }

  close(): void {
    this.destroy?.();
    this.destroy = undefined;
    this.element.remove();
  }

  private render(): void {
    const diff = this.diff!;
    const editors = this.editors!;
    this.destroy?.();
    this.destroy = undefined;
    const body = h('div', { class: 'git-diff-body' });
    const toggle = (layout: DiffLayout, label: string) =>
      h(
        'button',
        {
          class: this.layout === layout ? 'active' : '',
          'aria-pressed': String(this.layout === layout),
          id: `git-diff-${layout}`,
          onclick: () => {
            this.layout = layout;
            this.render();
          },
        },
        label,
      );
    const from = diff.originalPath ? `${diff.originalPath} → ` : '';
    fill(
      this.element,
      h(
        'header',
        { class: 'git-diff-header' },
        h('strong', { class: 'git-diff-path' }, `${from}${diff.path}`),
        h('span', { class: 'muted' }, ' against HEAD'),
        h('span', { class: 'spacer' }),
        toggle('split', 'Side by side'),
        toggle('unified', 'Unified'),
        h('button', { id: 'git-diff-open', onclick: () => this.actions.open(diff.path), disabled: !diff.workingTree.exists }, 'Open file'),
        h('button', { id: 'git-diff-stage', onclick: () => void this.actions.stage(diff.path).then(() => this.close()) }, 'Stage'),
        h('button', { id: 'git-diff-close', 'aria-label': 'Close the diff', onclick: () => this.close() }, 'Close'),
      ),
      body,
    );
    const unshown = whyNotShown('HEAD', diff.head) ?? whyNotShown('The working tree', diff.workingTree);
    if (unshown) {
      fill(body, h('p', { class: 'git-diff-note' }, unshown));
      return;
    }
    const original = diff.head.text ?? '';
    const current = diff.workingTree.text ?? '';
    if (this.layout === 'split') this.destroy = editors.splitDiffEditor(body, original, current);
    else {
      const view = editors.unifiedDiffEditor(body, original, current, { label: `Changes to ${diff.path} against HEAD` });
      this.destroy = () => view.destroy();
    }
  }
}

/** A side that cannot be shown as text, in words; undefined when both can (a missing side is empty text). */
function whyNotShown(which: string, side: GitFileSide): string | undefined {
  if (side.binary) return `${which} holds a binary file (${side.size ?? '?'} bytes); there is no text to compare.`;
  if (side.tooLarge) return `${which} holds a file too large to compare here (${side.size ?? 'over 1 MiB'} bytes).`;
  return undefined;
}
