// Reviewing what an agent task changed: each file as a unified diff (@codemirror/merge, through
// the git panel's diff editor, loaded with the first review) from the file before the task to the file as the task left it,
// each change with Accept and Reject, each file with Accept file and Reject file, and Accept all
// and Reject all. Rejecting goes to the server (POST /api/agent/revert/:taskId with the file and
// the hunks, counted on the version GET /api/agent/change/:taskId answered), which undoes just
// that through the editor's documents and refuses (409) when the file changed since. Accepting
// keeps the change: the window remembers it (the server has nothing to do), so that the change
// leaves the list of what is left to review.
import type { Chunk } from '@codemirror/merge';
import { Text } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import type { AgentChangeTexts, AgentRevertRequest, AgentTask } from '../../contracts/local-resources.ts';
import { api, ApiError, inWords } from '../api.ts';
import { fill, h } from '../dom.ts';
import { loadMergeEditors } from '../git/diff-view.ts';

type RevertFile = NonNullable<AgentRevertRequest['files']>[number];
type Hunk = NonNullable<RevertFile['hunks']>[number];

export interface ReviewActions {
  notify(text: string, level?: 'info' | 'warning' | 'error'): void;
  /** Opens a file in the editor. */
  open(path: string): void;
  /** The task's status, after a reject changed it. */
  changed(task: AgentTask): void;
}

/** One file under review: both sides from the server, and its changes between them. */
interface FileReview {
  texts: AgentChangeTexts;
  original: Text;
  current: Text;
  /** The changes from the file before the task to the file now, as @codemirror/merge counts them. */
  chunks: readonly Chunk[];
}

/** The whole file, for created and deleted files (they have no hunks to take apart). */
const WHOLE = '*';

/**
 * The review of one task's changes, shown under its conversation.
 *
 * @example
 *   const review = new ChangeReview({ notify, open: (p) => workbench.open(p), changed: (task) => panel.render(task) });
 *   await review.show(task);
 */
export class ChangeReview {
  readonly element = h('section', { class: 'agent-review', 'aria-label': 'Changes to review' });
  /** Accepted changes, per task and file: a chunk's place in the original and its new text (both stay put when others are rejected). */
  private readonly accepted = new Map<string, Set<string>>();
  private views: EditorView[] = [];
  private task: AgentTask | undefined;
  private files: FileReview[] = [];
  private busy = false;
  private editors: Awaited<ReturnType<typeof loadMergeEditors>> | undefined;

  constructor(private readonly actions: ReviewActions) {}

  /** Shows the task's changes (none: the section is empty). Reads both sides of each file. */
  async show(task: AgentTask): Promise<void> {
    this.task = task;
    const reviewable = task.status !== 'running' && !task.revertedAt ? task.changes : [];
    const files: FileReview[] = [];
    let editors = this.editors;
    try {
      // The diff editors' chunk, loaded with the first review that has something to show.
      if (reviewable.length > 0) editors = this.editors = await loadMergeEditors();
    } catch (error) {
      this.actions.notify(`Could not load the diff view: ${inWords(error)}`, 'error');
      return;
    }
    for (const change of editors ? reviewable : []) {
      try {
        const texts = await api<AgentChangeTexts>('GET', `/api/agent/change/${encodeURIComponent(task.taskId)}?file=${encodeURIComponent(change.file)}`);
        const original = textOf(texts.original ?? '');
        const current = textOf(texts.current ?? '');
        files.push({ texts, original, current, chunks: editors!.Chunk.build(original, current) });
      } catch (error) {
        this.actions.notify(`Could not read the change to ${change.file}: ${inWords(error)}`, 'error');
      }
    }
    if (this.task !== task) return; // another task was chosen meanwhile
    this.files = files;
    this.render();
  }

  /** Shows nothing (a new conversation). */
  clear(): void {
    this.task = undefined;
    this.files = [];
    this.render();
  }

  private render(): void {
    for (const view of this.views) view.destroy();
    this.views = [];
    const task = this.task;
    if (!task || this.files.length === 0) {
      fill(this.element);
      return;
    }
    const left = this.files.filter((file) => this.pending(file).length > 0).length;
    fill(
      this.element,
      h(
        'header',
        { class: 'agent-review-header' },
        h('h3', { id: 'agent-review-title' }, `Changes: ${this.files.length} file${this.files.length === 1 ? '' : 's'}`),
        h('span', { class: 'muted', id: 'agent-review-left' }, left ? `${left} to review` : 'all reviewed'),
        h('span', { class: 'spacer' }),
        h('button', { type: 'button', id: 'agent-accept-all', disabled: left === 0, onclick: () => this.acceptAll() }, 'Accept all'),
        h(
          'button',
          { type: 'button', id: 'agent-reject-all', disabled: left === 0, onclick: () => void this.reject(this.files.map((file) => this.rejection(file))) },
          'Reject all',
        ),
      ),
      ...this.files.map((file) => this.fileCard(file)),
    );
  }

  private fileCard(file: FileReview): HTMLElement {
    const { texts } = file;
    const pending = this.pending(file);
    const whole = texts.original === null || texts.current === null;
    const body = h('div', { class: 'agent-diff' });
    const card = h(
      'article',
      { class: `agent-file${pending.length ? '' : ' reviewed'}`, 'data-file': texts.file, 'aria-label': `${texts.action} ${texts.file}` },
      h(
        'header',
        { class: 'agent-file-header' },
        h('span', { class: `agent-action ${texts.action}` }, texts.action),
        h(
          'button',
          { type: 'button', class: 'agent-file-path', title: 'Open the file', disabled: texts.current === null, onclick: () => this.actions.open(texts.file) },
          texts.from ? `${texts.from} → ${texts.file}` : texts.file,
        ),
        h(
          'span',
          { class: 'muted agent-file-left' },
          pending.length === 0 ? 'accepted' : whole ? '' : `${pending.length} change${pending.length === 1 ? '' : 's'} to review`,
        ),
        h('span', { class: 'spacer' }),
        h(
          'button',
          { type: 'button', class: 'agent-accept-file', disabled: pending.length === 0, onclick: () => this.accept(file, this.keys(file)) },
          'Accept file',
        ),
        h('button', { type: 'button', class: 'agent-reject-file', onclick: () => void this.reject([this.rejection(file, true)]) }, 'Reject file'),
      ),
      texts.changedSince ? h('p', { class: 'agent-stale', role: 'note' }, 'Changed since the task left it: rejecting it would be refused.') : null,
      pending.length ? body : null,
    );
    if (pending.length) {
      const baseline = this.baseline(file);
      const controls = whole
        ? undefined
        : (type: 'accept' | 'reject') =>
            h(
              'button',
              {
                type: 'button',
                class: `agent-chunk-${type}`,
                'aria-label': type === 'accept' ? `Accept this change to ${texts.file}` : `Reject this change to ${texts.file}`,
                onclick: (event: Event) => {
                  const button = event.currentTarget as HTMLElement;
                  const chunks = this.chunksAt(file, view, button);
                  if (type === 'accept')
                    this.accept(
                      file,
                      chunks.map((chunk) => chunkKey(file, chunk)),
                    );
                  else void this.reject([{ file: texts.file, version: texts.version, hunks: chunks.map((chunk) => hunkOf(file, chunk)) }]);
                },
              },
              type === 'accept' ? 'Accept' : 'Reject',
            );
      const view = this.editors!.unifiedDiffEditor(body, baseline, file.current.toString(), {
        label: `Changes to ${texts.file} since before the task`,
        ...(controls ? { controls } : {}),
      });
      this.views.push(view);
    }
    return card;
  }

  /** The changes of the file not accepted yet (for a created or deleted file: the file, or nothing). */
  private pending(file: FileReview): string[] {
    const accepted = this.acceptedOf(file);
    return this.keys(file).filter((key) => !accepted.has(key));
  }

  private keys(file: FileReview): string[] {
    if (file.texts.original === null || file.texts.current === null) return [WHOLE];
    return file.chunks.map((chunk) => chunkKey(file, chunk));
  }

  private acceptedOf(file: FileReview): Set<string> {
    const key = `${this.task!.taskId}\u0000${file.texts.file}`;
    let set = this.accepted.get(key);
    if (!set) this.accepted.set(key, (set = new Set()));
    return set;
  }

  /** The original with the accepted changes made: what the diff is shown against, so that they leave it. */
  private baseline(file: FileReview): string {
    const accepted = this.acceptedOf(file);
    let text = file.original.toString();
    // From the last change back, so that the places of earlier ones hold.
    for (const chunk of [...file.chunks].reverse()) {
      if (!accepted.has(chunkKey(file, chunk))) continue;
      const { original, current } = file;
      // As @codemirror/merge's acceptChunk does: the new lines, with a line break unless at the end.
      let insert = current.sliceString(chunk.fromB, Math.max(chunk.fromB, chunk.toB - 1));
      if (chunk.fromB !== chunk.toB && chunk.toA <= original.length) insert += '\n';
      text = text.slice(0, chunk.fromA) + insert + text.slice(Math.min(original.length, chunk.toA));
    }
    return text;
  }

  /** The file's changes shown where a chunk's button is (more than one when the shown diff joined them). */
  private chunksAt(file: FileReview, view: EditorView, button: HTMLElement): Chunk[] {
    const at = view.posAtDOM(button);
    const shown = this.editors!.getChunks(view.state)?.chunks.find((chunk) => chunk.fromB <= at && chunk.endB >= at);
    if (!shown) return [];
    const accepted = this.acceptedOf(file);
    return file.chunks.filter((chunk) => chunk.fromB <= shown.endB && chunk.endB >= shown.fromB && !accepted.has(chunkKey(file, chunk)));
  }

  private accept(file: FileReview, keys: string[]): void {
    const accepted = this.acceptedOf(file);
    for (const key of keys) accepted.add(key);
    this.render();
  }

  private acceptAll(): void {
    for (const file of this.files) for (const key of this.keys(file)) this.acceptedOf(file).add(key);
    this.render();
  }

  /**
   * What rejecting the file undoes: all of it (`all`, or nothing of it accepted), else the
   * changes not accepted; nothing when every change was accepted.
   */
  private rejection(file: FileReview, all = false): RevertFile | undefined {
    const { texts } = file;
    const accepted = this.acceptedOf(file);
    if (all || accepted.size === 0) return { file: texts.file, version: texts.version };
    if (texts.original === null || texts.current === null) return undefined;
    const hunks = file.chunks.filter((chunk) => !accepted.has(chunkKey(file, chunk))).map((chunk) => hunkOf(file, chunk));
    return hunks.length ? { file: texts.file, version: texts.version, hunks } : undefined;
  }

  private async reject(asked: (RevertFile | undefined)[]): Promise<void> {
    const worth = asked.filter((file): file is RevertFile => file !== undefined && (file.hunks === undefined || file.hunks.length > 0));
    const task = this.task;
    if (!task || worth.length === 0 || this.busy) return;
    this.busy = true;
    this.element.setAttribute('aria-busy', 'true');
    try {
      const answer = await api<AgentTask>('POST', `/api/agent/revert/${encodeURIComponent(task.taskId)}`, { files: worth });
      this.actions.notify(
        worth.length === 1
          ? `${worth[0]!.hunks ? 'The change was undone in' : 'Undid the task’s change to'} ${worth[0]!.file}.`
          : `Undid the task’s changes to ${worth.length} files.`,
      );
      this.actions.changed(answer);
    } catch (error) {
      const files = error instanceof ApiError && error.files?.length ? ` Files: ${error.files.join(', ')}.` : '';
      this.actions.notify(inWords(error) + files, 'error');
      if (error instanceof ApiError && error.status === 409) await this.show(task);
    } finally {
      this.busy = false;
      this.element.removeAttribute('aria-busy');
    }
  }
}

/** A text as the editor holds it (any line break ends a line, as the server counts them). */
function textOf(text: string): Text {
  return Text.of(text.split(/\r\n|\r|\n/));
}

/** Names a change by what stays put when others are undone: its place in the original and its new text. */
function chunkKey(file: FileReview, chunk: Chunk): string {
  return `${chunk.fromA}:${chunk.toA}:${file.current.sliceString(chunk.fromB, Math.min(chunk.toB, file.current.length))}`;
}

/** A change as the revert route counts it: lines of the original and of the task's text. */
function hunkOf(file: FileReview, chunk: Chunk): Hunk {
  return { original: lineRange(file.original, chunk.fromA, chunk.toA), changed: lineRange(file.current, chunk.fromB, chunk.toB) };
}

/** The lines of a chunk's side: it starts at a line's start and ends one past its last line's end. */
function lineRange(doc: Text, from: number, to: number): Hunk['original'] {
  const start = from > doc.length ? doc.lines + 1 : doc.lineAt(from).number;
  const count = to > from ? doc.lineAt(Math.min(to - 1, doc.length)).number - start + 1 : 0;
  return { start, count };
}
