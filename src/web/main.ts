// The window: signs in, then lays out the activity bar, the file tree, the editor, the side
// panels (search, git, agents, notifications), the bottom panel, the status bar and the command palette,
// all fed by the local API and the event stream. Built by esbuild into dist/web/window.js (src/local/window/bundle.ts).
import { gotoLine } from '@codemirror/search';
import './window.css';
import { api, useSession } from './api.ts';
import { fill, h } from './dom.ts';
import { Workbench } from './editor/workbench.ts';
import { EventStream } from './events.ts';
import { AgentsPanel } from './panels/agents-panel.ts';
import { ComposerPanel } from './panels/composer-view.ts';
import { Extensions } from './panels/extensions.ts';
import { FileTree } from './panels/file-tree.ts';
import { GitPanel } from './panels/git-panel.ts';
import { Notifications } from './panels/notifications.ts';
import { Palette, type PaletteCommand } from './panels/palette.ts';
import { signIn } from './session.ts';
import { icon, type IconName } from './look/icons.ts';
import { Layout } from './look/layout.ts';
import { ThemeSwitch } from './look/theme.ts';
import { LanguageFeatures } from './code/language-features.ts';
import { BottomPanel } from './panels/bottom-panel.ts';
import { QuickOpen, IndexedPaths } from './panels/quick-open.ts';
import { SearchView } from './panels/search-view.ts';
import type { TerminalPanel } from './terminal/index.ts';

type PanelName = 'search' | 'git' | 'agents' | 'notifications' | 'composer';

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  // Before anything shows (the sign-in form too): light or dark.
  const theme = new ThemeSwitch();
  const csrf = await signIn(root);
  useSession(csrf, () => {
    // The session ended (the token was rotated, the server restarted): sign in again.
    location.reload();
  });

  const events = new EventStream();
  const notifications = new Notifications(events);
  const notify = (text: string, level: 'info' | 'warning' | 'error' = 'info') => notifications.show(text, level, 'window');

  const position = h('span', { id: 'status-position' });
  const fileInfo = h('span', { id: 'status-file' }, 'No file');
  const connection = h('span', { id: 'status-events', class: 'offline' }, 'events: connecting');
  const completion = h('span', { id: 'status-completion' }, 'completion: –');
  // Built right after the workbench (whose documents' editors it extends): first used when a document loads.
  let features: LanguageFeatures | undefined;
  const workbench = new Workbench(
    {
      notify,
      onTiming: (timing) => {
        completion.textContent = `completion: ${timing.roundTripMs} ms (server ${timing.serverMs} ms, ${timing.model})`;
      },
      onActive: (active) => {
        fileInfo.textContent = active ? `${active.path} · ${active.language}${active.readOnly ? ' · read-only' : ''}` : 'No file';
        position.textContent = '';
        features?.activated(active);
      },
      onCursor: (line, column) => {
        position.textContent = `Ln ${line}, Col ${column}`;
      },
      documentExtensions: (document) => features?.extension(document) ?? [],
    },
    events,
  );
  features = new LanguageFeatures({
    workbench,
    events,
    notify,
    showBottom: (view) => {
      bottom.select(view);
      layout.show('bottom', true);
    },
  });
  events.onStatus = (connected) => {
    connection.textContent = connected ? 'events: live' : 'events: reconnecting';
    connection.className = connected ? 'online' : 'offline';
  };

  const tree = new FileTree(
    (path) => void workbench.open(path),
    (words) => notify(words, 'error'),
    events,
    workbench,
    () => layout.show('left', true),
  );
  const flushAll = async () => {
    // A commit takes what is on disk: save what the user typed first.
    const active = workbench.activeDocument;
    if (active?.dirty) await workbench.save(active);
  };
  const git = new GitPanel(notify, flushAll, events, (path) => void workbench.open(path));
  const agents = new AgentsPanel(notify, events, workbench);
  const composer = new ComposerPanel(notify, events);
  const extensions = new Extensions(notify, events);
  const search = new SearchView({ notify, reveal: (path, line, column, endColumn) => workbench.reveal(path, line, column, endColumn) });

  const side = h('aside', { class: 'side', 'aria-label': 'Side panel' });
  const panels: Record<PanelName, HTMLElement> = {
    search: search.element,
    git: git.element,
    agents: agents.element,
    composer: composer.element,
    notifications: notifications.element,
  };
  let shown: PanelName = 'git';
  const bottom = new BottomPanel(() => layout.show('bottom', false));
  // The terminal lives in the bottom panel: mounted (and its first shell opened) when the panel
  // first shows it. xterm is a third of the window's script: its chunk is loaded only then.
  let terminal: TerminalPanel | undefined;
  let terminalLoaded: Promise<TerminalPanel | undefined> | undefined;
  bottom.add({
    id: 'terminal',
    title: 'Terminal',
    mount: (host) => {
      let disposed = false;
      terminalLoaded = import('./terminal/index.ts').then(
        ({ mountTerminal }) => {
          if (disposed) return undefined;
          // A shell opens when asked for (Ctrl+`, the palette), not whenever the panel shows.
          return (terminal = mountTerminal(host, { notify, toggleKey: null }));
        },
        (error: unknown) => {
          notify(`The terminal could not be loaded: ${String(error)}`, 'error');
          return undefined;
        },
      );
      return {
        dispose: () => {
          disposed = true;
          terminal?.dispose();
        },
      };
    },
  });
  bottom.add(features.problems);
  bottom.add(features.references);
  /** Shows the bottom panel with the terminal in it; `fresh` opens one more shell. */
  const showTerminal = async (fresh: boolean) => {
    layout.show('bottom', true);
    // Shown for the first time, the panel has just begun loading the terminal.
    const terminal = await terminalLoaded;
    if (!terminal) return;
    if (fresh && terminal.visible) await terminal.newTerminal();
    else await terminal.show();
  };
  /** Ctrl+`: the terminal shown (a shell opened when there is none), or the panel hidden when the terminal is on screen. */
  const toggleTerminal = () => (terminal?.visible && layout.current?.bottom.shown ? layout.show('bottom', false) : void showTerminal(false));
  const activityButtons = new Map<string, HTMLButtonElement>();
  const activity = (id: string, label: string, name: IconName, onclick: () => void) => {
    const button = h('button', { class: 'activity', id, title: label, 'aria-label': label, 'aria-pressed': 'false', onclick }, icon(name));
    activityButtons.set(id, button);
    return button;
  };
  const press = (id: string, pressed: boolean) => {
    const button = activityButtons.get(id)!;
    button.classList.toggle('active', pressed);
    button.setAttribute('aria-pressed', String(pressed));
  };
  /** Shows a panel in the right side bar; the shown one's button closes the bar. */
  const showPanel = (name: PanelName, toggle = false) => {
    if (toggle && shown === name && layout.current?.right.shown) return layout.show('right', false);
    shown = name;
    fill(side, panels[name]);
    layout.show('right', true);
    if (name === 'git') void git.refresh();
    if (name === 'agents') void agents.refreshList();
    if (name === 'composer') void composer.refreshList();
  };
  /** Ctrl+Shift+F (Ctrl+Shift+H with replace): the Search view, its query the editor's selection (or the word at the cursor). */
  const openSearch = (replace: boolean) => {
    showPanel('search');
    search.open({ replace, text: workbench.activeDocument ? selectedText(workbench.editorView) : undefined });
  };
  const notificationsBadge = h('span', { class: 'badge', hidden: true });
  const notificationsButton = activity('panel-notifications', 'Notifications', 'bell', () => showPanel('notifications', true));
  // Named by its content, the hidden word and the count the badge shows (axe: a name must hold the visible text).
  notificationsButton.removeAttribute('aria-label');
  notificationsButton.append(h('span', { class: 'visually-hidden' }, 'Notifications '), notificationsBadge);
  notifications.onCount = (count) => {
    notificationsBadge.textContent = String(count);
    notificationsBadge.hidden = count === 0;
    notificationsButton.title = count ? `Notifications (${count} new)` : 'Notifications';
  };
  const themeButton = activity('theme-toggle', 'Theme', 'theme', () => theme.cycle());
  theme.onChange = (preference, applied) => {
    const words = `Theme: ${preference === 'system' ? `system (${applied})` : applied}`;
    themeButton.title = words;
    themeButton.setAttribute('aria-label', words);
  };
  theme.onChange(theme.current.preference, theme.current.applied);
  const activityBar = h(
    'nav',
    { class: 'activity-bar', 'aria-label': 'Views' },
    activity('activity-files', 'Files (Ctrl+B)', 'files', () => layout.toggle('left')),
    activity('panel-search', 'Search (Ctrl+Shift+F)', 'search', () => showPanel('search', true)),
    activity('panel-git', 'Git', 'git', () => showPanel('git', true)),
    activity('panel-agents', 'Agents', 'agents', () => showPanel('agents', true)),
    activity('panel-composer', 'Composer', 'composer', () => showPanel('composer', true)),
    notificationsButton,
    h('span', { class: 'spacer' }),
    activity('activity-bottom', 'Panel (Ctrl+J)', 'panel', () => layout.toggle('bottom')),
    themeButton,
  );

  const palette = new Palette(() => builtInCommands(), notify);
  const quickOpen = new QuickOpen(
    (path) => workbench.open(path),
    new IndexedPaths(events),
    () => tree.knownFiles(),
    notify,
  );
  const builtInCommands = (): PaletteCommand[] => [
    { name: 'loom.quickOpen', title: 'Go to File… (Ctrl+P)', source: 'loom', run: () => quickOpen.open() },
    { name: 'loom.save', title: 'File: Save', source: 'loom', run: () => workbench.save() },
    { name: 'loom.reload', title: 'File: Reload from disk', source: 'loom', run: () => workbench.reload() },
    { name: 'loom.close', title: 'File: Close tab (Ctrl+W)', source: 'loom', run: () => workbench.close() },
    { name: 'loom.reopenClosed', title: 'File: Reopen Closed Tab (Ctrl+Shift+T)', source: 'loom', run: () => workbench.reopenClosed() },
    { name: 'loom.goToLine', title: 'Go to Line… (Ctrl+G)', source: 'loom', run: () => workbench.activeDocument && gotoLine(workbench.editorView) },
    { name: 'loom.wordWrap', title: 'View: Toggle Word Wrap (Alt+Z)', source: 'loom', run: () => workbench.toggleWrap() },
    ...tree.knownFiles().map((path) => ({ name: `open:${path}`, title: `Open ${path}`, source: 'loom', run: () => workbench.open(path) })),
    { name: 'loom.files.refresh', title: 'Files: Refresh the tree', source: 'loom', run: () => tree.refresh() },
    ...tree.paletteCommands(() => workbench.activeDocument?.path),
    { name: 'loom.view.files', title: 'View: Toggle Files', source: 'loom', run: () => layout.toggle('left') },
    { name: 'loom.view.panel', title: 'View: Toggle Panel', source: 'loom', run: () => layout.toggle('bottom') },
    { name: 'loom.search', title: 'Search: Find in Files (Ctrl+Shift+F)', source: 'loom', run: () => openSearch(false) },
    { name: 'loom.replaceInFiles', title: 'Search: Replace in Files (Ctrl+Shift+H)', source: 'loom', run: () => openSearch(true) },
    { name: 'loom.git', title: 'View: Git', source: 'loom', run: () => showPanel('git') },
    { name: 'loom.agents', title: 'View: Agents', source: 'loom', run: () => showPanel('agents') },
    { name: 'loom.composer', title: 'View: Composer', source: 'loom', run: () => showPanel('composer') },
    { name: 'loom.notifications', title: 'View: Notifications', source: 'loom', run: () => showPanel('notifications') },
    { name: 'loom.theme.light', title: 'Preferences: Light Theme', source: 'loom', run: () => theme.set('light') },
    { name: 'loom.theme.dark', title: 'Preferences: Dark Theme', source: 'loom', run: () => theme.set('dark') },
    { name: 'loom.theme.system', title: 'Preferences: Theme Follows the System', source: 'loom', run: () => theme.set('system') },
    { name: 'loom.terminal.toggle', title: 'View: Toggle Terminal (Ctrl+`)', source: 'loom', run: () => toggleTerminal() },
    { name: 'loom.terminal.new', title: 'Terminal: New Terminal', source: 'loom', run: () => void showTerminal(true) },
    ...features!.commands(),
    ...extensions.commands(),
    { name: 'loom.signOut', title: 'Window: Sign out', source: 'loom', run: () => api('POST', '/api/session/end').then(() => location.reload()) },
  ];

  const center = h('main', { class: 'center' }, extensions.trustBar, workbench.element);
  const body = h('div', { class: 'body' });
  fill(
    root,
    h(
      'div',
      { class: 'window' },
      h(
        'header',
        { class: 'titlebar' },
        h('h1', { class: 'brand' }, 'Loom'),
        h(
          'button',
          { class: 'command-center', id: 'open-palette', onclick: () => void palette.open(), title: 'Commands (Ctrl+Shift+P)' },
          icon('search'),
          h('span', {}, 'Commands…'),
          h('kbd', {}, 'Ctrl+Shift+P'),
        ),
      ),
      body,
      h(
        'footer',
        { class: 'status-bar' },
        fileInfo,
        position,
        h('span', { class: 'spacer' }),
        features.problemsButton,
        features.statusItem,
        completion,
        connection,
      ),
      palette.element,
      quickOpen.element,
      ...features.overlays,
      notifications.toasts,
    ),
  );
  const layout = new Layout(body, { activityBar, left: tree.element, center, bottom: bottom.element, right: side });
  let bottomWasShown = false;
  layout.onChange = (fitted) => {
    press('activity-files', fitted.left.shown);
    press('activity-bottom', fitted.bottom.shown);
    for (const name of Object.keys(panels) as PanelName[]) press(`panel-${name}`, fitted.right.shown && shown === name);
    if (fitted.bottom.shown !== bottomWasShown) bottom.setVisible(fitted.bottom.shown);
    bottomWasShown = fitted.bottom.shown;
  };
  fill(side, panels[shown]);
  layout.apply();
  // The window's own keys, wherever the focus is (VS Code's): the bars and the panel.
  document.addEventListener('keydown', (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
    const key = event.key.toLowerCase();
    if (key === 'b' && !event.shiftKey) layout.toggle('left');
    else if (key === 'j' && !event.shiftKey) layout.toggle('bottom');
    else if (event.key === '`' && !event.shiftKey) {
      event.preventDefault();
      toggleTerminal();
    } else if (key === 'p' && !event.shiftKey) quickOpen.open();
    else if (key === 'tab') workbench.cycle(event.shiftKey ? -1 : 1);
    else if (key === 't' && event.shiftKey) void workbench.reopenClosed();
    else if ((key === 'f' || key === 'h') && event.shiftKey) openSearch(key === 'h');
    else if (key === 'w' && !event.shiftKey) void workbench.close();
    else return;
    event.preventDefault();
  });
  document.addEventListener('keyup', (event) => {
    if (event.key === 'Control' || event.key === 'Meta') workbench.endCycle();
  });
  // Ctrl/Cmd+S wherever the focus is (a panel, the tree), not the browser's "Save page as";
  // in the editor, its own key binding has saved already (and prevented the default).
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || !(event.ctrlKey || event.metaKey) || event.shiftKey || event.altKey || event.key.toLowerCase() !== 's') return;
    event.preventDefault();
    void workbench.save();
  });
  void git.refresh();
  events.connect();
  await Promise.all([tree.refresh(), extensions.refresh(), features.start(), workbench.restore().catch((error: unknown) => notify(String(error), 'error'))]);
  document.body.dataset['ready'] = 'true';
}

/** The editor's selection on one line, else the word at the cursor: what Ctrl+Shift+F searches for. */
function selectedText(view: Workbench['editorView']): string | undefined {
  const { from, to, head } = view.state.selection.main;
  const range = from === to ? view.state.wordAt(head) : { from, to };
  const text = range ? view.state.sliceDoc(range.from, range.to) : '';
  return text && !/[\r\n]/.test(text) && text.length <= 1000 ? text : undefined;
}

void start();
