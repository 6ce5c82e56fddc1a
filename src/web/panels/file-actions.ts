// What the file tree's file operations need besides the tree itself: a context menu (WAI-ARIA
// menu: arrows, Home/End, Enter/Space, Escape gives the focus back), a confirmation dialog
// (alertdialog: Escape or Cancel refuse, the focus stays inside while it shows), and the calls
// to the local API's Files routes (POST /api/files/create, /rename, /delete), which do every
// check: the window only puts their refusals in words.
import type { CreatedEntry, DeletedEntry, RenamedEntry } from '../../contracts/local-resources.ts';
import { api } from '../api.ts';
import { h } from '../dom.ts';
import './file-actions.css';

export interface MenuItem {
  label: string;
  /** The key that does the same, shown beside the label (F2, Delete). */
  shortcut?: string;
  /** Names the item for tests and assistive tools (`data-action`). */
  action: string;
  run: () => unknown;
}

/**
 * A context menu: shows at a point with its first item focused; choosing an item, Escape, a
 * click elsewhere or the window losing focus closes it, and the focus goes back where it was.
 *
 * @example
 *   contextMenu.show(event.clientX, event.clientY, [{ label: 'Rename', shortcut: 'F2', action: 'rename', run: rename }], item);
 */
export class ContextMenu {
  private element: HTMLElement | undefined;
  private returnFocus: HTMLElement | undefined;
  private readonly onOutside = (event: Event) => {
    if (this.element && !this.element.contains(event.target as Node)) this.close(false);
  };

  show(x: number, y: number, items: readonly MenuItem[], returnFocus: HTMLElement, label = 'File actions'): void {
    this.close(false);
    this.returnFocus = returnFocus;
    const buttons = items.map((item) =>
      h(
        'button',
        {
          class: 'context-menu-item',
          role: 'menuitem',
          tabindex: -1,
          'data-action': item.action,
          onclick: () => {
            this.close(true);
            void Promise.resolve(item.run());
          },
        },
        h('span', {}, item.label),
        item.shortcut ? h('kbd', { 'aria-hidden': 'true' }, item.shortcut) : null,
      ),
    );
    const menu = h('div', { class: 'context-menu', role: 'menu', 'aria-label': label }, ...buttons);
    menu.addEventListener('keydown', (event) => {
      const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
      const focus = (at: number) => buttons[(at + buttons.length) % buttons.length]?.focus();
      if (event.key === 'ArrowDown') focus(index + 1);
      else if (event.key === 'ArrowUp') focus(index - 1);
      else if (event.key === 'Home') focus(0);
      else if (event.key === 'End') focus(buttons.length - 1);
      else if (event.key === 'Escape' || event.key === 'Tab') this.close(true);
      else return;
      event.preventDefault();
      event.stopPropagation();
    });
    document.body.append(menu);
    this.element = menu;
    // Inside the window, whatever the point: flipped to the left or up when it would overflow.
    const { width, height } = menu.getBoundingClientRect();
    menu.style.left = `${Math.max(0, Math.min(x, window.innerWidth - width - 2))}px`;
    menu.style.top = `${Math.max(0, Math.min(y, window.innerHeight - height - 2))}px`;
    buttons[0]?.focus();
    document.addEventListener('mousedown', this.onOutside, true);
    window.addEventListener('blur', this.onOutside);
  }

  /** Whether the menu shows. */
  get open(): boolean {
    return this.element !== undefined;
  }

  close(restoreFocus: boolean): void {
    if (!this.element) return;
    this.element.remove();
    this.element = undefined;
    document.removeEventListener('mousedown', this.onOutside, true);
    window.removeEventListener('blur', this.onOutside);
    if (restoreFocus && this.returnFocus?.isConnected) this.returnFocus.focus();
  }
}

/**
 * Asks the user to confirm in a dialog of the window (not the browser's): answers true for
 * `confirmLabel`, false for Cancel or Escape. The focus starts on Cancel (nothing is lost by a
 * stray Enter) and goes back where it was.
 *
 * @example
 *   if (await confirmDialog('Delete src/a.ts?', 'It is deleted for good.', 'Delete')) await deleteEntry('src/a.ts');
 */
export function confirmDialog(question: string, detail: string, confirmLabel: string): Promise<boolean> {
  const returnFocus = document.activeElement as HTMLElement | null;
  return new Promise((resolve) => {
    const settle = (answer: boolean) => {
      backdrop.remove();
      if (returnFocus?.isConnected) returnFocus.focus();
      resolve(answer);
    };
    const cancel = h('button', { class: 'confirm-cancel', onclick: () => settle(false) }, 'Cancel');
    const confirm = h('button', { class: 'confirm-accept danger', onclick: () => settle(true) }, confirmLabel);
    const dialog = h(
      'div',
      { class: 'confirm-dialog', role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': 'confirm-question', 'aria-describedby': 'confirm-detail' },
      h('p', { id: 'confirm-question', class: 'confirm-question' }, question),
      h('p', { id: 'confirm-detail', class: 'confirm-detail' }, detail),
      h('div', { class: 'confirm-buttons' }, confirm, cancel),
    );
    const backdrop = h('div', { class: 'confirm-backdrop' }, dialog);
    backdrop.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') settle(false);
      else if (event.key === 'Tab') (document.activeElement === confirm ? cancel : confirm).focus();
      else return;
      event.preventDefault();
      event.stopPropagation();
    });
    backdrop.addEventListener('mousedown', (event) => {
      if (event.target === backdrop) event.preventDefault();
    });
    document.body.append(backdrop);
    cancel.focus();
  });
}

/** POST /api/files/create: a file (empty) or a folder at `path`. */
export function createEntry(path: string, kind: 'file' | 'folder'): Promise<CreatedEntry> {
  return api('POST', '/api/files/create', { path, kind });
}

/** POST /api/files/rename: `from` becomes `to`; open documents follow on the server. */
export function renameEntry(from: string, to: string): Promise<RenamedEntry> {
  return api('POST', '/api/files/rename', { from, to });
}

/** POST /api/files/delete: for good, with everything in a folder; `discard` drops unsaved edits of documents under it. */
export function deleteEntry(path: string, discard: boolean): Promise<DeletedEntry> {
  return api('POST', '/api/files/delete', { path, discard });
}

/** The folder part of a workspace path (`` for the workspace). */
export function folderOf(path: string): string {
  return path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
}

/** `name` in `folder`. */
export function joinPath(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name;
}

/** Whether `path` is `key` or lies in the folder `key`. */
export function isAtOrUnder(path: string, key: string): boolean {
  return path === key || path.startsWith(`${key}/`);
}
