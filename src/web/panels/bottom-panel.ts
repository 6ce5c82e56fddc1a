// The bottom panel under the editor: views side by side as tabs (the terminal mounts here), one
// shown at a time. A view is mounted the first time it is shown and stays mounted while hidden
// (a terminal keeps its screen); it is told when it shows, and when the panel's size changes,
// so it can fit itself.
import { fill, h } from '../dom.ts';
import { icon } from '../look/icons.ts';

export interface BottomView {
  /** An id for the DOM and tests (`bottom-tab-<id>`). */
  id: string;
  title: string;
  /**
   * Builds the view into `host` the first time it shows; what it answers is told when the view
   * shows again or the panel is resized (a terminal fits its rows and columns), and on dispose.
   */
  mount(host: HTMLElement): BottomViewHandle | void;
}

export interface BottomViewHandle {
  /** The view is on screen again, or its size changed. */
  resized?(): void;
  /** Focus goes to the view (the panel was opened from the keyboard). */
  focus?(): void;
  dispose?(): void;
}

interface Mounted {
  view: BottomView;
  host: HTMLElement;
  handle?: BottomViewHandle | void;
  tab: HTMLButtonElement;
}

/**
 * The panel and its tabs.
 *
 * @example
 *   const bottom = new BottomPanel(() => layout.show('bottom', false));
 *   bottom.add({ id: 'terminal', title: 'Terminal', mount: (host) => mountTerminal(host) });
 *   bottom.select('terminal');
 */
export class BottomPanel {
  readonly element: HTMLElement;
  private readonly tabs = h('div', { class: 'bottom-tabs', role: 'tablist', 'aria-label': 'Bottom panel' });
  private readonly body = h('div', { class: 'bottom-body' });
  private readonly empty = h('div', { class: 'bottom-empty muted' }, 'Nothing to show here yet.');
  private readonly views = new Map<string, Mounted>();
  private selected: string | undefined;
  /** Whether the panel is on screen (views mount only then: a terminal starts when first seen). */
  private visible = false;

  constructor(close: () => void) {
    this.element = h(
      'section',
      { class: 'bottom-panel', 'aria-label': 'Bottom panel' },
      h(
        'div',
        { class: 'bottom-header' },
        this.tabs,
        h('span', { class: 'spacer' }),
        h(
          'button',
          { class: 'icon-button', id: 'bottom-close', title: 'Close the panel (Ctrl+J)', 'aria-label': 'Close the panel', onclick: close },
          icon('close'),
        ),
      ),
      this.body,
    );
    fill(this.body, this.empty);
    new ResizeObserver(() => this.current()?.handle?.resized?.()).observe(this.body);
  }

  /** Adds a view (a tab); the first one added is selected. */
  add(view: BottomView): void {
    const tab = h(
      'button',
      { class: 'bottom-tab', id: `bottom-tab-${view.id}`, role: 'tab', 'aria-selected': 'false', onclick: () => this.select(view.id) },
      view.title,
    );
    const host = h('div', { class: 'bottom-view', id: `bottom-view-${view.id}`, role: 'tabpanel', 'aria-label': view.title, hidden: true });
    this.views.set(view.id, { view, host, tab });
    this.tabs.append(tab);
    this.body.append(host);
    this.empty.remove();
    if (!this.selected) this.select(view.id);
  }

  /** Shows a view (mounting it the first time); the panel itself shows it only when open. */
  select(id: string): void {
    const mounted = this.views.get(id);
    if (!mounted) return;
    this.selected = id;
    for (const other of this.views.values()) {
      other.host.hidden = other !== mounted;
      other.tab.setAttribute('aria-selected', String(other === mounted));
      other.tab.classList.toggle('active', other === mounted);
    }
    if (!this.visible) return;
    if (!('handle' in mounted)) mounted.handle = mounted.view.mount(mounted.host);
    mounted.handle?.resized?.();
  }

  /** Whether a view of this id was added. */
  has(id: string): boolean {
    return this.views.has(id);
  }

  /** The panel came on screen (or went): the view mounts or fits itself, and takes the focus when asked to. */
  setVisible(visible: boolean, focus = false): void {
    const was = this.visible;
    this.visible = visible;
    const mounted = this.current();
    if (!visible || !mounted) return;
    if (!was || !('handle' in mounted)) this.select(mounted.view.id);
    if (focus) mounted.handle?.focus?.();
  }

  private current(): Mounted | undefined {
    return this.selected ? this.views.get(this.selected) : undefined;
  }
}
