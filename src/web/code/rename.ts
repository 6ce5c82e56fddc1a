// Rename symbol (F2), in two steps as VS Code's preview does it: an inline box at the symbol
// for the new name, then a dialog listing every file and its edits (the diff the server's
// workspace edit makes) before anything changes. Apply sends the preview back
// (`POST /api/code/rename/apply`): open documents change as unsaved edits, other files on disk,
// and a file changed since the preview refuses the whole rename (409) rather than half of it.
import { StateEffect, StateField } from '@codemirror/state';
import { showTooltip, type EditorView, type Tooltip } from '@codemirror/view';
import type { CodeAppliedEdit, CodeEditPreview } from '../../contracts/code-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';

const openBox = StateEffect.define<{ pos: number; name: string; submit: (name: string) => void } | null>();

/** The inline box's tooltip, while it is open (any edit of the document closes it). */
const renameBox = StateField.define<Tooltip | null>({
  create: () => null,
  update(tooltip, tr) {
    for (const effect of tr.effects) if (effect.is(openBox)) return effect.value ? boxTooltip(effect.value.pos, effect.value.name, effect.value.submit) : null;
    return tr.docChanged ? null : tooltip;
  },
  provide: (field) => showTooltip.from(field),
});

function boxTooltip(pos: number, name: string, submit: (name: string) => void): Tooltip {
  return {
    pos,
    above: true,
    create: (view) => {
      const input = h('input', { class: 'rename-input', value: name, 'aria-label': `New name for ${name}`, spellcheck: 'false', autocomplete: 'off' });
      const close = () => {
        if (view.state.field(renameBox, false)) view.dispatch({ effects: openBox.of(null) });
      };
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') {
          const next = input.value.trim();
          close();
          view.focus();
          if (next && next !== name) submit(next);
        } else if (event.key === 'Escape') {
          close();
          view.focus();
        } else return;
        event.preventDefault();
        event.stopPropagation();
      });
      input.addEventListener('blur', () => setTimeout(close, 0));
      const dom = h('div', { class: 'rename-box', role: 'dialog', 'aria-label': 'Rename symbol' }, input, h('span', { class: 'muted' }, 'Enter to preview'));
      return {
        dom,
        mount: () => {
          input.focus();
          input.select();
        },
      };
    },
  };
}

/** The editor's part of rename: the inline box (in every document's extensions). */
export const renameExtension = renameBox;

/**
 * Opens the inline box over the symbol at `from`..`to`; `submit` gets the new name.
 *
 * @example
 *   openRenameBox(view, word.from, 'add', (name) => void preview(name));
 */
export function openRenameBox(view: EditorView, from: number, name: string, submit: (name: string) => void): void {
  view.dispatch({ effects: openBox.of({ pos: from, name, submit }) });
}

/**
 * The preview dialog: shows what a rename changes and applies it when asked.
 *
 * @example
 *   const dialog = new RenamePreview(notify);
 *   document.body.append(dialog.element);
 *   await dialog.show({ from: 'add', to: 'plus' }, preview);
 */
export class RenamePreview {
  readonly element = h('div', { class: 'palette-backdrop rename-preview', hidden: true });
  private readonly dialog = h('div', { class: 'palette rename-dialog', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'rename-title' });
  private back: HTMLElement | null = null;

  constructor(private readonly notify: (text: string, level?: 'info' | 'warning' | 'error') => void) {
    this.element.append(this.dialog);
    this.element.addEventListener('mousedown', (event) => {
      if (event.target === this.element) this.close();
    });
    this.element.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      this.close();
    });
  }

  /** Shows the preview; resolves once it is applied (true) or dismissed (false). */
  show(names: { from: string; to: string }, preview: CodeEditPreview): Promise<boolean> {
    this.back = document.activeElement as HTMLElement | null;
    const edits = preview.files.reduce((sum, file) => sum + file.edits.length, 0);
    return new Promise((resolve) => {
      this.settle = resolve;
      const apply = h('button', { class: 'primary', id: 'rename-apply', onclick: () => void this.apply(preview) }, 'Apply');
      fill(
        this.dialog,
        h(
          'h2',
          { id: 'rename-title', class: 'rename-title' },
          `Rename ${names.from} to ${names.to}: ${edits} edit${edits === 1 ? '' : 's'} in ${preview.files.length} file${preview.files.length === 1 ? '' : 's'}`,
        ),
        h(
          'ul',
          { class: 'rename-files', 'aria-label': 'Files the rename changes', tabindex: 0 },
          ...preview.files.map((file) =>
            h(
              'li',
              { class: 'rename-file', 'data-path': file.path },
              h(
                'div',
                { class: 'code-list-heading' },
                h('span', { class: 'code-list-name' }, file.path),
                h(
                  'span',
                  { class: 'muted' },
                  `${file.edits.length} edit${file.edits.length === 1 ? '' : 's'}${file.base.kind === 'document' ? ' (open: unsaved)' : ''}`,
                ),
              ),
              diffLines(file.diff ?? ''),
            ),
          ),
        ),
        h('div', { class: 'rename-actions' }, apply, h('button', { id: 'rename-cancel', onclick: () => this.close() }, 'Cancel')),
      );
      this.element.hidden = false;
      apply.focus();
    });
  }

  private settle: (applied: boolean) => void = () => {};

  private async apply(preview: CodeEditPreview): Promise<void> {
    try {
      const applied = await api<CodeAppliedEdit>('POST', '/api/code/rename/apply', preview);
      const open = applied.files.filter((file) => file.to === 'document').length;
      this.notify(`Renamed in ${applied.files.length} file${applied.files.length === 1 ? '' : 's'}${open ? ` (${open} open, not saved yet)` : ''}.`);
      this.close(true);
    } catch (error) {
      this.notify(
        error instanceof ApiError && error.code === 'VERSION_CONFLICT'
          ? 'A file changed since the preview: nothing was renamed. Press F2 again.'
          : `Rename: ${inWords(error)}`,
        'warning',
      );
      this.close();
    }
  }

  private close(applied = false): void {
    if (this.element.hidden) return;
    this.element.hidden = true;
    this.settle(applied);
    this.back?.focus();
  }
}

/** A unified diff as lines coloured by what they do (built from text, never markup). */
function diffLines(diff: string): HTMLElement {
  const lines = diff.split('\n').filter((line) => !line.startsWith('---') && !line.startsWith('+++') && line !== '');
  return h(
    'pre',
    { class: 'rename-diff' },
    ...lines.map((line) =>
      h('span', { class: line.startsWith('+') ? 'added' : line.startsWith('-') ? 'removed' : line.startsWith('@@') ? 'hunk' : '' }, `${line}\n`),
    ),
  );
}
