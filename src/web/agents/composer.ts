// The agents panel's composer: the message box at the bottom of a conversation, with the context
// it carries as chips — the open file (its path: a new task may change it), the selection (its
// lines go into the message) — and the model for a new task. Enter sends, Shift+Enter is a new
// line. A new task's scope is the files of its chips, or the whole workspace when there are none:
// no glob to write.
import { fill, h } from '../dom.ts';

/** What the composer asks of the editor: the active file and its selection. */
export interface EditorContext {
  path: string;
  /** The main selection, when it is not empty. */
  selection?: { fromLine: number; toLine: number; text: string };
}

type Chip = { kind: 'file'; path: string } | { kind: 'selection'; path: string; fromLine: number; toLine: number; text: string };

/** What is sent: the words with the selections' text, and the files the chips name. */
export interface ComposedMessage {
  text: string;
  /** The chips' files, each once; empty when there are none (the workspace). */
  files: string[];
  model?: string;
}

/** Longest selection carried into a message: the task's words are at most 32,000 characters. */
const SELECTION_CHARS = 16_000;

/**
 * The composer.
 *
 * @example
 *   const composer = new Composer(() => editorContext(), async (message) => { await send(message); return true; });
 *   composer.setMode('new');
 */
export class Composer {
  readonly element = h('form', { class: 'agent-composer', 'aria-label': 'Message the agent' });
  private readonly box = h('textarea', {
    id: 'agent-task',
    rows: 3,
    placeholder: 'Ask the agent to do something…',
    'aria-label': 'Message to the agent',
  });
  private readonly chipList = h('ul', { class: 'agent-chips', 'aria-label': 'Context for the agent' });
  private readonly scope = h('span', { class: 'muted agent-scope', id: 'agent-scope' });
  private readonly model = h('input', { id: 'agent-model', placeholder: 'Model (default)', 'aria-label': 'Model for a new task' });
  private readonly send = h('button', { type: 'submit', id: 'agent-send', class: 'primary' }, 'Send');
  private chips: Chip[] = [];
  private mode: 'new' | 'follow-up' | 'busy' = 'new';

  constructor(
    private readonly context: () => EditorContext | undefined,
    private readonly submit: (message: ComposedMessage) => Promise<boolean>,
  ) {
    this.box.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.element.requestSubmit();
      }
    });
    this.element.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.sendMessage();
    });
    fill(
      this.element,
      this.box,
      this.chipList,
      h(
        'div',
        { class: 'agent-composer-row' },
        h('button', { type: 'button', id: 'agent-add-file', title: 'Add the open file to the context', onclick: () => this.addFile() }, '+ File'),
        h(
          'button',
          { type: 'button', id: 'agent-add-selection', title: 'Add the selected lines to the message', onclick: () => this.addSelection() },
          '+ Selection',
        ),
        this.model,
        h('span', { class: 'spacer' }),
        this.send,
      ),
      this.scope,
    );
    this.renderChips();
  }

  /** `new`: the next message starts a task; `follow-up`: it continues the one shown; `busy`: the task works (no sending). */
  setMode(mode: 'new' | 'follow-up' | 'busy'): void {
    this.mode = mode;
    this.model.hidden = mode !== 'new';
    this.send.disabled = mode === 'busy';
    this.send.textContent = mode === 'follow-up' ? 'Continue' : 'Send';
    this.box.placeholder =
      mode === 'new' ? 'Ask the agent to do something…' : mode === 'follow-up' ? 'Tell the agent what to do next…' : 'The agent is working…';
    this.renderChips();
  }

  focus(): void {
    this.box.focus();
  }

  private addFile(): void {
    const context = this.context();
    if (!context) return this.say('Open a file first.');
    if (!this.chips.some((chip) => chip.kind === 'file' && chip.path === context.path)) this.chips.push({ kind: 'file', path: context.path });
    this.renderChips();
  }

  private addSelection(): void {
    const context = this.context();
    if (!context?.selection) return this.say('Select some lines in the editor first.');
    this.chips.push({ kind: 'selection', path: context.path, ...context.selection, text: context.selection.text.slice(0, SELECTION_CHARS) });
    this.renderChips();
  }

  private say(text: string): void {
    this.scope.textContent = text;
  }

  private renderChips(): void {
    fill(
      this.chipList,
      ...this.chips.map((chip, index) =>
        h(
          'li',
          { class: `agent-chip ${chip.kind}` },
          h('span', {}, chip.kind === 'file' ? chip.path : `${chip.path}:${chip.fromLine}–${chip.toLine}`),
          h(
            'button',
            {
              type: 'button',
              class: 'agent-chip-remove',
              'aria-label': `Remove ${chip.kind === 'file' ? chip.path : `the selection of ${chip.path}`}`,
              onclick: () => {
                this.chips.splice(index, 1);
                this.renderChips();
              },
            },
            '×',
          ),
        ),
      ),
    );
    const files = this.files();
    this.scope.textContent =
      this.mode === 'new'
        ? `A new task. It may change ${files.length ? files.join(', ') : 'any file of the workspace'}.`
        : this.mode === 'follow-up'
          ? 'Continues this task, with what it did so far.'
          : '';
  }

  private files(): string[] {
    return [...new Set(this.chips.map((chip) => chip.path))];
  }

  private async sendMessage(): Promise<void> {
    const words = this.box.value.trim();
    if (!words || this.mode === 'busy') return;
    const selections = this.chips.filter((chip): chip is Extract<Chip, { kind: 'selection' }> => chip.kind === 'selection');
    const files = this.files();
    const parts = [words];
    // A follow-up cannot widen the task's files: the chips are said in words instead.
    if (this.mode === 'follow-up' && files.length) parts.push(`About: ${files.join(', ')}.`);
    for (const selection of selections) {
      parts.push(`Selected in ${selection.path}, lines ${selection.fromLine}–${selection.toLine}:\n\`\`\`\n${selection.text}\n\`\`\``);
    }
    const model = this.model.value.trim();
    this.send.disabled = true;
    const sent = await this.submit({ text: parts.join('\n\n'), files, ...(model && this.mode === 'new' ? { model } : {}) }).finally(() => {
      this.send.disabled = this.mode === 'busy';
    });
    if (sent) {
      this.box.value = '';
      this.chips = [];
      this.renderChips();
    }
  }
}
