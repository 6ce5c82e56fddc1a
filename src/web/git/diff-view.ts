// A changed file against HEAD, in the editor area: side by side (HEAD on the left, read-only)
// or unified, with @codemirror/merge. Both sides come from GET /api/git/diff; a side that is
// missing, binary or too large is said so in words instead of shown.
import { MergeView, unifiedMergeView } from '@codemirror/merge';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, lineNumbers } from '@codemirror/view';
import type { GitFileDiff, GitFileSide } from '../../contracts/local-resources.ts';
import { fill, h } from '../dom.ts';

export type DiffLayout = 'split' | 'unified';

export interface DiffActions {
  /** Opens the file in the editor (to change it). */
  open(path: string): void;
  /** Stages the file, then the view closes. */
  stage(path: string): Promise<void>;
}

/** Read-only, line numbers, no focus ring: a diff is looked at, edits go through the editor. */
const readOnly: Extension = [EditorState.readOnly.of(true), EditorView.editable.of(false), lineNumbers(), EditorView.lineWrapping];

/** Long unchanged stretches folded, a few lines of context kept around each change. */
const collapse = { margin: 3, minSize: 6 };

/** A button for one change of a unified diff: `type` says which, `action` is @codemirror/merge's own (accept moves it into the original). */
export type ChunkControl = (type: 'accept' | 'reject', action: (event: MouseEvent) => void) => HTMLElement;

/**
 * A read-only unified diff of two texts: `current` shown with what `original` had in its place,
 * unchanged stretches folded, named `label` for assistive technology. With `controls`, each
 * change carries the buttons they make (the agents panel's accept and reject); without, it is
 * only looked at (the git diff).
 *
 * @example
 *   const view = unifiedDiffEditor(host, 'a\nb\n', 'a\nB\n', { label: 'Changes to notes.txt' });
 *   view.destroy(); // when the diff is closed
 */
export function unifiedDiffEditor(parent: HTMLElement, original: string, current: string, options: { label: string; controls?: ChunkControl }): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: current,
      extensions: [
        readOnly,
        EditorView.contentAttributes.of({ 'aria-label': options.label }),
        unifiedMergeView({ original, mergeControls: options.controls ?? false, collapseUnchanged: collapse }),
      ],
    }),
  });
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

  constructor(private readonly actions: DiffActions) {
    this.element.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.close();
    });
  }

  get shownPath(): string | undefined {
    return this.element.isConnected ? this.diff?.path : undefined;
  }

  show(diff: GitFileDiff): void {
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
    if (this.layout === 'split') {
      const view = new MergeView({
        a: { doc: original, extensions: readOnly },
        b: { doc: current, extensions: readOnly },
        parent: body,
        collapseUnchanged: collapse,
      });
      this.destroy = () => view.destroy();
    } else {
      const view = unifiedDiffEditor(body, original, current, { label: `Changes to ${diff.path} against HEAD` });
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
