// The command palette (Ctrl/Cmd+Shift+P): the window's own commands and every command
// extensions contribute (GET /api/commands; run with POST /api/commands/:name). Type to filter,
// arrows to choose, Enter to run, Esc to close.
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';

export interface PaletteCommand {
  name: string;
  title: string;
  /** Who contributes it: `loom` for the window's own. */
  source: string;
  run: () => unknown;
  /** Whether a failure of `run` reaches the window anyway, as the server's notification (no second one). */
  toldByServer?: (error: unknown) => boolean;
}

interface ExtensionCommand {
  name: string;
  title: string;
  extension: string;
}

export class Palette {
  readonly element = h('div', { class: 'palette-backdrop', hidden: true });
  private readonly input = h('input', { class: 'palette-input', placeholder: 'Type a command', 'aria-label': 'Command', autocomplete: 'off' });
  private readonly list = h('ul', { class: 'palette-list', role: 'listbox', 'aria-label': 'Commands', tabindex: 0 });
  private commands: PaletteCommand[] = [];
  private shown: PaletteCommand[] = [];
  private chosen = 0;
  /** Counts openings: a late answer for an earlier one is dropped. */
  private opening = 0;

  constructor(
    private readonly builtIns: () => PaletteCommand[],
    private readonly notify: (text: string, level?: 'info' | 'warning' | 'error') => void,
  ) {
    this.element.append(h('div', { class: 'palette', role: 'dialog', 'aria-label': 'Command palette' }, this.input, this.list));
    this.element.addEventListener('mousedown', (event) => {
      if (event.target === this.element) this.close();
    });
    this.input.addEventListener('input', () => this.filter());
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.close();
      else if (event.key === 'ArrowDown') this.move(1);
      else if (event.key === 'ArrowUp') this.move(-1);
      else if (event.key === 'Enter') void this.runChosen();
      else return;
      event.preventDefault();
    });
    document.addEventListener(
      'keydown',
      (event) => {
        if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toLowerCase() === 'p') {
          event.preventDefault();
          event.stopPropagation();
          void this.open();
        }
      },
      true,
    );
  }

  /** Opens at once with the window's own commands (keys typed now land in the filter); extensions' join when they arrive. */
  async open(): Promise<void> {
    const opening = (this.opening += 1);
    this.commands = this.builtIns();
    this.list.dataset['complete'] = 'false';
    this.input.value = '';
    this.element.hidden = false;
    this.filter();
    this.input.focus();
    const extensions = await this.extensionCommands();
    if (opening !== this.opening || this.element.hidden) return;
    this.commands = [...this.commands, ...extensions];
    // Every command is listed now (tests and assistive tools can tell).
    this.list.dataset['complete'] = 'true';
    this.filter(true);
  }

  close(): void {
    this.element.hidden = true;
  }

  private async extensionCommands(): Promise<PaletteCommand[]> {
    try {
      const { commands } = await api<{ commands: ExtensionCommand[] }>('GET', '/api/commands');
      return commands.map((command) => ({
        name: command.name,
        title: command.title,
        source: command.extension,
        // The result is for the command's callers (the CLI, the API); the window shows what the
        // extension shows (showNotification), and its failures by the server's notification.
        run: async () => {
          await api<{ result: unknown }>('POST', `/api/commands/${encodeURIComponent(command.name)}`, { args: [] });
        },
        toldByServer: (error: unknown) => error instanceof ApiError && error.code === 'EXTENSION_FAILED',
      }));
    } catch (error) {
      // A server without extension commands (404) has none to list; anything else is worth saying.
      if (!(error instanceof ApiError && error.status === 404)) this.notify(`Extension commands: ${inWords(error)}`, 'warning');
      return [];
    }
  }

  /** Filters by what is typed; `keepChoice` keeps the chosen command chosen when the list grows. */
  private filter(keepChoice = false): void {
    const chosen = this.shown[this.chosen];
    const words = this.input.value.toLowerCase().split(/\s+/).filter(Boolean);
    this.shown = this.commands.filter((command) => {
      const haystack = `${command.title} ${command.name} ${command.source}`.toLowerCase();
      return words.every((word) => haystack.includes(word));
    });
    const kept = keepChoice && chosen && this.input.value === '' ? this.shown.indexOf(chosen) : -1;
    this.chosen = kept >= 0 ? kept : 0;
    this.render();
  }

  private move(by: number): void {
    if (this.shown.length === 0) return;
    this.chosen = (this.chosen + by + this.shown.length) % this.shown.length;
    this.render();
  }

  private async runChosen(index = this.chosen): Promise<void> {
    const command = this.shown[index];
    if (!command) return;
    this.close();
    try {
      await command.run();
    } catch (error) {
      if (!command.toldByServer?.(error)) this.notify(`${command.title}: ${inWords(error)}`, 'error');
    }
  }

  private render(): void {
    fill(
      this.list,
      ...this.shown.map((command, index) =>
        h(
          'li',
          {
            class: `palette-item${index === this.chosen ? ' chosen' : ''}`,
            role: 'option',
            'aria-selected': index === this.chosen ? 'true' : 'false',
            'data-command': command.name,
            onmousedown: (event: Event) => {
              event.preventDefault();
              void this.runChosen(index);
            },
          },
          h('span', { class: 'palette-title' }, command.title),
          h('span', { class: 'palette-source' }, command.source === 'loom' ? command.name : `${command.source} · ${command.name}`),
        ),
      ),
      this.shown.length === 0 ? h('li', { class: 'muted' }, 'No command matches.') : null,
    );
  }
}
