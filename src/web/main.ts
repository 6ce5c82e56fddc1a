// The window: signs in, then lays out the file tree, the editor, the side panels (git, agents,
// notifications), the status bar and the command palette, all fed by the local API and the
// event stream. Built by esbuild into dist/web/window.js (src/local/window/bundle.ts).
import './window.css';
import { api, useSession } from './api.ts';
import { fill, h } from './dom.ts';
import { Workbench } from './editor/workbench.ts';
import { EventStream } from './events.ts';
import { AgentsPanel } from './panels/agents-panel.ts';
import { Extensions } from './panels/extensions.ts';
import { FileTree } from './panels/file-tree.ts';
import { GitPanel } from './panels/git-panel.ts';
import { Notifications } from './panels/notifications.ts';
import { Palette, type PaletteCommand } from './panels/palette.ts';
import { signIn } from './session.ts';

type PanelName = 'git' | 'agents' | 'notifications';

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
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
  const workbench = new Workbench(
    {
      notify,
      onTiming: (timing) => {
        completion.textContent = `completion: ${timing.roundTripMs} ms (server ${timing.serverMs} ms, ${timing.model})`;
      },
      onActive: (active) => {
        fileInfo.textContent = active ? `${active.path} · ${active.language}${active.readOnly ? ' · read-only' : ''}` : 'No file';
        position.textContent = '';
      },
      onCursor: (line, column) => {
        position.textContent = `Ln ${line}, Col ${column}`;
      },
    },
    events,
  );
  events.onStatus = (connected) => {
    connection.textContent = connected ? 'events: live' : 'events: reconnecting';
    connection.className = connected ? 'online' : 'offline';
  };

  const tree = new FileTree((path) => void workbench.open(path), notify, events);
  const flushAll = async () => {
    // A commit takes what is on disk: save what the user typed first.
    const active = workbench.activeDocument;
    if (active?.dirty) await workbench.save(active);
  };
  const git = new GitPanel(notify, flushAll, events);
  const agents = new AgentsPanel(notify, events);
  const extensions = new Extensions(notify, events);

  const side = h('aside', { class: 'side' });
  const panels: Record<PanelName, HTMLElement> = { git: git.element, agents: agents.element, notifications: notifications.element };
  let shown: PanelName | undefined = 'git';
  const tabButtons = new Map<PanelName, HTMLButtonElement>();
  const showPanel = (name: PanelName | undefined) => {
    shown = name;
    fill(side, name ? panels[name] : null);
    side.hidden = name === undefined;
    for (const [panel, button] of tabButtons) button.classList.toggle('active', panel === name);
    if (name === 'git') void git.refresh();
    if (name === 'agents') void agents.refreshList();
  };
  const panelButton = (name: PanelName, label: string) => {
    const button = h('button', { class: 'panel-tab', id: `panel-${name}`, onclick: () => showPanel(shown === name ? undefined : name) }, label);
    tabButtons.set(name, button);
    return button;
  };
  const notificationsButton = panelButton('notifications', 'Notifications');
  notifications.onCount = (count) => (notificationsButton.textContent = `Notifications (${count})`);

  const palette = new Palette(() => builtInCommands(), notify);
  const builtInCommands = (): PaletteCommand[] => [
    { name: 'loom.save', title: 'File: Save', source: 'loom', run: () => workbench.save() },
    { name: 'loom.reload', title: 'File: Reload from disk', source: 'loom', run: () => workbench.reload() },
    { name: 'loom.close', title: 'File: Close tab', source: 'loom', run: () => workbench.close() },
    ...tree.knownFiles().map((path) => ({ name: `open:${path}`, title: `Open ${path}`, source: 'loom', run: () => workbench.open(path) })),
    { name: 'loom.files.refresh', title: 'Files: Refresh the tree', source: 'loom', run: () => tree.refresh() },
    { name: 'loom.git', title: 'View: Git', source: 'loom', run: () => showPanel('git') },
    { name: 'loom.agents', title: 'View: Agents', source: 'loom', run: () => showPanel('agents') },
    { name: 'loom.notifications', title: 'View: Notifications', source: 'loom', run: () => showPanel('notifications') },
    ...extensions.commands(),
    { name: 'loom.signOut', title: 'Window: Sign out', source: 'loom', run: () => api('POST', '/api/session/end').then(() => location.reload()) },
  ];

  fill(
    root,
    h(
      'div',
      { class: 'window' },
      h(
        'header',
        { class: 'titlebar' },
        h('span', { class: 'brand' }, 'Loom'),
        h('button', { class: 'palette-button', id: 'open-palette', onclick: () => void palette.open(), title: 'Ctrl+Shift+P' }, 'Commands…'),
        h('span', { class: 'spacer' }),
        panelButton('git', 'Git'),
        panelButton('agents', 'Agents'),
        notificationsButton,
      ),
      h('div', { class: 'main' }, tree.element, h('div', { class: 'center' }, extensions.trustBar, workbench.element), side),
      h('footer', { class: 'status-bar' }, fileInfo, position, h('span', { class: 'spacer' }), completion, connection),
      palette.element,
      notifications.toasts,
    ),
  );
  // Ctrl/Cmd+S wherever the focus is (a panel, the tree), not the browser's "Save page as";
  // in the editor, its own key binding has saved already (and prevented the default).
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || !(event.ctrlKey || event.metaKey) || event.shiftKey || event.altKey || event.key.toLowerCase() !== 's') return;
    event.preventDefault();
    void workbench.save();
  });
  showPanel('git');
  events.connect();
  await Promise.all([tree.refresh(), extensions.refresh(), workbench.restore().catch((error: unknown) => notify(String(error), 'error'))]);
  document.body.dataset['ready'] = 'true';
}

void start();
