// The terminal panel: xterm.js views of shells on the local server, one tab each. It owns the
// container it is mounted in (shown and hidden with the panel), themes itself from CSS
// variables, fits its views to the container's size and tells the server the size. A terminal
// lives as long as its socket: closing its tab, or the window, ends the shell on the server.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import { TerminalConnection } from './connection.ts';
import './terminal.css';
import { fontFrom, themeFrom, watchTheme } from './theme.ts';

export interface TerminalPanelOptions {
  /** Tells the user something went wrong (the window's notifications). */
  notify?: (text: string, level: 'info' | 'warning' | 'error') => void;
  /** A key that shows and hides the panel from anywhere in the window (default Ctrl+`; null for none). */
  toggleKey?: { key: string; ctrlKey: boolean } | null;
}

export interface TerminalPanel {
  /** Whether the panel is shown. */
  readonly visible: boolean;
  /** Shows the panel (opening a terminal when it has none) and focuses the active terminal. */
  show(): Promise<void>;
  hide(): void;
  toggle(): Promise<void>;
  /** Opens one more terminal and shows it. */
  newTerminal(): Promise<void>;
  /** Closes every terminal and removes the panel. */
  dispose(): void;
}

interface Tab {
  id: number;
  terminal: Terminal;
  fit: FitAddon;
  connection: TerminalConnection;
  view: HTMLElement;
  tab: HTMLElement;
  title: HTMLElement;
  ended: boolean;
}

/**
 * Mounts the terminal panel in `container` (hidden until shown).
 *
 * @example
 *   const bottom = h('div', { class: 'bottom-panel' });
 *   const terminal = mountTerminal(bottom, { notify });
 *   await terminal.show(); // Ctrl+` does the same
 */
export function mountTerminal(container: HTMLElement, options: TerminalPanelOptions = {}): TerminalPanel {
  const tabs: Tab[] = [];
  let active: Tab | undefined;
  // The tabs alone form the tablist (its buttons stand beside it); empty, it is hidden, since a tablist must hold tabs.
  const tabList = h('div', { class: 'loom-terminal-tablist', role: 'tablist', 'aria-label': 'Terminals' });
  const tabStrip = h('div', { class: 'loom-terminal-tabs' });
  const views = h('div', { class: 'loom-terminal-views' });
  const message = h('div', { class: 'loom-terminal-message', role: 'status' });
  const addButton = h(
    'button',
    { type: 'button', class: 'loom-terminal-add', title: 'New terminal', 'aria-label': 'New terminal', onclick: () => void panel.newTerminal() },
    '+',
  );
  const hideButton = h(
    'button',
    { type: 'button', class: 'loom-terminal-hide', title: 'Hide the panel (Ctrl+`)', 'aria-label': 'Hide the terminal panel', onclick: () => panel.hide() },
    '×',
  );
  const root = h('section', { class: 'loom-terminal', 'aria-label': 'Terminal' }, tabStrip, views);
  container.replaceChildren(root);
  container.hidden = true;

  const applyTheme = () => {
    const theme = themeFrom(root);
    for (const tab of tabs) tab.terminal.options.theme = theme;
  };
  const stopWatchingTheme = watchTheme(applyTheme);
  // The views follow the container's size; a hidden view has none and is fitted when shown.
  const resizes = new ResizeObserver(() => active && fitTab(active));
  resizes.observe(views);

  const renderTabs = () => {
    fill(tabList, ...tabs.map((tab) => tab.tab));
    tabList.hidden = tabs.length === 0;
    fill(tabStrip, tabList, addButton, h('span', { class: 'spacer' }), hideButton);
    for (const tab of tabs) {
      tab.tab.classList.toggle('active', tab === active);
      tab.tab.setAttribute('aria-selected', String(tab === active));
      tab.view.hidden = tab !== active;
    }
    if (tabs.length === 0) views.replaceChildren(message);
  };

  const activate = (tab: Tab) => {
    active = tab;
    renderTabs();
    fitTab(tab);
    tab.terminal.focus();
  };

  const closeTab = (tab: Tab) => {
    tab.connection.close();
    tab.terminal.dispose();
    tab.view.remove();
    tabs.splice(tabs.indexOf(tab), 1);
    if (active === tab) active = tabs.at(-1);
    message.textContent = 'No terminal is open. + opens one.';
    message.classList.remove('error');
    renderTabs();
    if (active) activate(active);
  };

  const openTab = async () => {
    // The lowest number no open terminal has: closing "bash 1" frees 1.
    let id = 1;
    while (tabs.some((tab) => tab.id === id)) id += 1;
    const terminal = new Terminal({
      cursorBlink: true,
      fontFamily: fontFrom(root),
      fontSize: 13,
      scrollback: 5000,
      theme: themeFrom(root),
      screenReaderMode: false,
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    const view = h('div', { class: 'loom-terminal-view', role: 'tabpanel', 'data-terminal': id });
    const title = h('span', { class: 'loom-terminal-title' }, `Terminal ${id}`);
    const tabElement = h(
      'span',
      { class: 'loom-terminal-tab', role: 'tab' },
      title,
      h('button', { type: 'button', title: 'Close the terminal', 'aria-label': `Close terminal ${id}`, onclick: () => closeTab(tab) }, '×'),
    );
    const connection = new TerminalConnection({
      output: (bytes) => terminal.write(bytes),
      ready: (shell) => {
        title.textContent = `${shell} ${id}`;
        connection.resize(terminal.cols, terminal.rows);
      },
      closed: (reason) => {
        tab.ended = true;
        tabElement.classList.add('ended');
        // Said in the terminal itself, dimmed, where the user was looking.
        terminal.write(`\r\n\x1b[2m${reason}\x1b[0m\r\n`);
      },
    });
    const tab: Tab = { id, terminal, fit, connection, view, tab: tabElement, title, ended: false };
    tabElement.addEventListener('click', (event) => {
      if (!(event.target instanceof HTMLButtonElement)) activate(tab);
    });
    terminal.onData((data) => connection.input(data));
    terminal.onResize(({ cols, rows }) => connection.resize(cols, rows));
    if (tabs.length === 0) views.replaceChildren();
    views.append(view);
    tabs.push(tab);
    terminal.open(view);
    activate(tab);
    try {
      await connection.open();
    } catch (error) {
      closeTab(tab);
      message.textContent = `The terminal did not open: ${inWords(error)}`;
      message.classList.add('error');
      options.notify?.(message.textContent, 'error');
    }
  };

  const fitTab = (tab: Tab) => {
    if (container.hidden || tab.view.hidden) return;
    try {
      tab.fit.fit();
    } catch {
      // Not laid out yet: the next resize fits it.
    }
  };

  const toggleKey = options.toggleKey === undefined ? { key: '`', ctrlKey: true } : options.toggleKey;
  const onKey = (event: KeyboardEvent) => {
    if (!toggleKey || event.key !== toggleKey.key || event.ctrlKey !== toggleKey.ctrlKey || event.altKey || event.metaKey) return;
    event.preventDefault();
    event.stopPropagation();
    void panel.toggle();
  };
  // In the capture phase: the editor, or a terminal holding the focus, never sees it first.
  document.addEventListener('keydown', onKey, true);

  const panel: TerminalPanel = {
    get visible() {
      return !container.hidden;
    },
    async show() {
      container.hidden = false;
      if (tabs.length === 0) await openTab();
      else if (active) activate(active);
    },
    hide() {
      container.hidden = true;
    },
    async toggle() {
      if (container.hidden) await panel.show();
      else panel.hide();
    },
    async newTerminal() {
      container.hidden = false;
      await openTab();
    },
    dispose() {
      document.removeEventListener('keydown', onKey, true);
      resizes.disconnect();
      stopWatchingTheme();
      for (const tab of [...tabs]) closeTab(tab);
      root.remove();
    },
  };
  renderTabs();
  // The window going away ends its shells at once (the server would when the sockets drop, too).
  addEventListener('pagehide', () => {
    for (const tab of tabs) tab.connection.close();
  });
  return panel;
}
