// The editors that show diffs, built on @codemirror/merge: the git diff's side-by-side and
// unified views and the agents' review. A chunk of their own (the window imports this module
// with `import()`, see loadMergeEditors in diff-view.ts): nobody pays for @codemirror/merge
// until a diff is first shown.
import { MergeView, unifiedMergeView } from '@codemirror/merge';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, lineNumbers } from '@codemirror/view';

// The agents' review counts a file's changes as the views do.
export { Chunk, getChunks } from '@codemirror/merge';

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
 * A read-only side-by-side diff: `original` on the left, `current` on the right, unchanged
 * stretches folded. Answers its destroyer.
 *
 * @example
 *   const destroy = splitDiffEditor(host, 'a\nb\n', 'a\nB\n');
 *   destroy(); // when the diff is closed
 */
export function splitDiffEditor(parent: HTMLElement, original: string, current: string): () => void {
  const view = new MergeView({
    a: { doc: original, extensions: readOnly },
    b: { doc: current, extensions: readOnly },
    parent,
    collapseUnchanged: collapse,
  });
  return () => view.destroy();
}
