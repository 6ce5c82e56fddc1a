// Extensions in the window: a workspace whose own extensions (`.loom/extensions`) wait for trust
// says so in a bar, with the button that trusts it (its extensions never run before); the
// palette gets the commands to trust, stop trusting, reload extensions and restart a failed one.
import type { ExtensionInfo, ExtensionList } from '../../contracts/local-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { EventStream } from '../events.ts';
import type { PaletteCommand } from './palette.ts';

export class Extensions {
  readonly trustBar = h('div', { class: 'trust-bar', hidden: true, role: 'alert' });
  private list: ExtensionList | undefined;

  constructor(
    private readonly notify: (text: string, level?: 'info' | 'warning' | 'error') => void,
    events: EventStream,
  ) {
    // A failed extension's notification: its state changed.
    events.on('notification', () => void this.refresh());
  }

  async refresh(): Promise<void> {
    try {
      this.list = await api<ExtensionList>('GET', '/api/extensions');
    } catch (error) {
      // A server without extensions has nothing to show.
      if (!(error instanceof ApiError && error.status === 404)) this.notify(`Extensions: ${inWords(error)}`, 'warning');
      this.list = undefined;
    }
    this.render();
  }

  /** The palette's extension commands (not the extensions' own commands: those come from GET /api/commands). */
  commands(): PaletteCommand[] {
    const list = this.list;
    if (!list) return [];
    const commands: PaletteCommand[] = [
      { name: 'loom.extensions.reload', title: 'Extensions: Reload (find new and changed ones)', source: 'loom', run: () => this.reload() },
    ];
    if (this.waiting().length > 0 || !list.workspaceTrusted) {
      commands.push({ name: 'loom.workspace.trust', title: 'Workspace: Trust (run its extensions)', source: 'loom', run: () => this.trust(true) });
    }
    if (list.workspaceTrusted) {
      commands.push({ name: 'loom.workspace.untrust', title: 'Workspace: Stop trusting (stop its extensions)', source: 'loom', run: () => this.trust(false) });
    }
    for (const extension of list.extensions.filter((candidate) => candidate.state === 'failed')) {
      commands.push({
        name: `loom.extensions.restart:${extension.name}`,
        title: `Extensions: Restart ${extension.title}`,
        source: 'loom',
        run: () => this.restart(extension),
      });
    }
    return commands;
  }

  private waiting(): ExtensionInfo[] {
    return this.list?.extensions.filter((extension) => extension.state === 'untrusted') ?? [];
  }

  private async trust(trusted: boolean): Promise<void> {
    await api('POST', '/api/workspace/trust', { trusted });
    this.notify(trusted ? 'The workspace is trusted: its extensions may run.' : 'The workspace is no longer trusted: its extensions stopped.');
    await this.refresh();
  }

  private async reload(): Promise<void> {
    await api('POST', '/api/extensions/reload');
    await this.refresh();
  }

  private async restart(extension: ExtensionInfo): Promise<void> {
    const state = await api<ExtensionInfo>('POST', `/api/extensions/${encodeURIComponent(extension.name)}/restart`);
    this.notify(
      state.state === 'failed' ? `${extension.title} failed again: ${state.failure ?? 'no reason given'}` : `${extension.title} restarted.`,
      state.state === 'failed' ? 'error' : 'info',
    );
    await this.refresh();
  }

  private render(): void {
    const waiting = this.waiting();
    this.trustBar.hidden = waiting.length === 0;
    if (waiting.length === 0) return;
    fill(
      this.trustBar,
      h(
        'span',
        {},
        `This workspace has ${waiting.length === 1 ? 'an extension' : `${waiting.length} extensions`} of its own (${waiting.map((extension) => extension.title).join(', ')}). `,
        'They run code on your machine, so they never run until you trust the workspace.',
      ),
      h(
        'button',
        { id: 'trust-workspace', onclick: () => void this.trust(true).catch((error: unknown) => this.notify(inWords(error), 'error')) },
        'Trust this workspace',
      ),
    );
  }
}
