// Ghost text: a completion from /api/ai/complete shown after the cursor as the user types.
// Requests wait for a pause in typing (debounced); a newer one aborts the older, whose answer
// is dropped; Tab accepts, Esc dismisses; typing the suggestion's own characters keeps the rest
// of it on screen (and asks the server nothing); any other edit or a cursor move drops it.
import { Prec, StateEffect, StateField, type EditorState, type Extension, type Transaction } from '@codemirror/state';
import { Decoration, EditorView, ViewPlugin, WidgetType, keymap, type ViewUpdate } from '@codemirror/view';
import type { AiCompletion } from '../../contracts/local-resources.ts';
import { api, ApiError } from '../api.ts';
import { remoteEdit } from './annotations.ts';

/** Milliseconds of quiet typing before a completion is asked for. */
export const GHOST_DEBOUNCE_MS = 200;
/** Text before the cursor sent with a request (the server keeps its own, smaller budget). */
const PREFIX_CHARS = 16_384;
const SUFFIX_CHARS = 4096;

export interface Suggestion {
  pos: number;
  text: string;
}

export interface CompletionTiming {
  /** From the request leaving the window to its answer. */
  roundTripMs: number;
  /** What the server measured. */
  serverMs: number;
  model: string;
  characters: number;
}

export interface GhostTextOptions {
  /** The document's path and language; undefined when completions are off for it (read-only). */
  document: () => { path: string; language: string } | undefined;
  onTiming: (timing: CompletionTiming) => void;
  onProblem: (words: string) => void;
}

const setSuggestion = StateEffect.define<Suggestion | null>();

export const suggestionField = StateField.define<Suggestion | null>({
  create: () => null,
  update(value, tr) {
    for (const effect of tr.effects) if (effect.is(setSuggestion)) return effect.value;
    if (!value) return null;
    if (tr.docChanged) return tr.annotation(remoteEdit) ? mappedThrough(value, tr) : typedThrough(value, tr);
    if (tr.selection) {
      const main = tr.state.selection.main;
      if (!main.empty || main.head !== value.pos) return null;
    }
    return value;
  },
  provide: (field) =>
    EditorView.decorations.from(field, (value) =>
      value ? Decoration.set([Decoration.widget({ widget: new GhostWidget(value.text), side: 1 }).range(value.pos)]) : Decoration.none,
    ),
});

/** The user typed the suggestion's next characters: the rest stays. Anything else drops it. */
function typedThrough(value: Suggestion, tr: Transaction): Suggestion | null {
  let kept: Suggestion | null = null;
  let changes = 0;
  tr.changes.iterChanges((fromA, toA, _fromB, toB, inserted) => {
    changes += 1;
    const text = inserted.toString();
    if (fromA === value.pos && toA === fromA && text.length > 0 && text.length < value.text.length && value.text.startsWith(text)) {
      kept = { pos: toB, text: value.text.slice(text.length) };
    }
  });
  return changes === 1 ? kept : null;
}

/** An edit from elsewhere: the suggestion moves with the text around it. */
function mappedThrough(value: Suggestion, tr: Transaction): Suggestion | null {
  const pos = tr.changes.mapPos(value.pos, 1);
  return tr.state.selection.main.head === pos ? { pos, text: value.text } : null;
}

class GhostWidget extends WidgetType {
  constructor(readonly text: string) {
    super();
  }
  override eq(other: GhostWidget): boolean {
    return other.text === this.text;
  }
  toDOM(): HTMLElement {
    const span = document.createElement('span');
    span.className = 'cm-ghost-text';
    span.textContent = this.text;
    span.setAttribute('aria-hidden', 'true');
    return span;
  }
  override ignoreEvent(): boolean {
    return false;
  }
}

/** Accepts the suggestion on screen: its text goes in, the cursor after it. False (Tab indents) when there is none. */
export function acceptSuggestion(view: EditorView): boolean {
  const value = view.state.field(suggestionField, false);
  if (!value) return false;
  view.dispatch({
    changes: { from: value.pos, insert: value.text },
    selection: { anchor: value.pos + value.text.length },
    effects: setSuggestion.of(null),
    userEvent: 'input.complete',
    scrollIntoView: true,
  });
  return true;
}

/** Each view's way to drop the request under way (Esc stops a suggestion that is still coming, too). */
const cancelRequest = new WeakMap<EditorView, () => void>();

export function dismissSuggestion(view: EditorView): boolean {
  cancelRequest.get(view)?.();
  if (!view.state.field(suggestionField, false)) return false;
  view.dispatch({ effects: setSuggestion.of(null) });
  return true;
}

/** The request's prompt and context: the text before the cursor occurs in the context exactly where the cursor is (docs/completion.md, rule 2). */
function requestText(state: EditorState, pos: number): { prompt: string; context: string } {
  let start = Math.max(0, pos - PREFIX_CHARS);
  if (start > 0) start = state.doc.lineAt(start).to + 1;
  const end = Math.min(state.doc.length, pos + SUFFIX_CHARS);
  return { prompt: state.sliceDoc(Math.min(start, pos), pos), context: state.sliceDoc(Math.min(start, pos), end) };
}

function ghostTextPlugin(options: GhostTextOptions) {
  return ViewPlugin.fromClass(
    class {
      private timer: ReturnType<typeof setTimeout> | undefined;
      private controller: AbortController | undefined;

      constructor(private readonly view: EditorView) {
        cancelRequest.set(view, () => this.cancel());
      }

      update(update: ViewUpdate): void {
        const typed = update.transactions.some(
          (tr) => tr.docChanged && !tr.annotation(remoteEdit) && !tr.isUserEvent('input.complete') && (tr.isUserEvent('input') || tr.isUserEvent('delete')),
        );
        if (typed) {
          this.cancel();
          // The user is typing what is on screen: the rest of it stays, nothing to ask.
          if (update.state.field(suggestionField)) return;
          this.timer = setTimeout(() => void this.request(), GHOST_DEBOUNCE_MS);
        } else if (update.selectionSet && !update.state.field(suggestionField)) {
          this.cancel();
        }
      }

      destroy(): void {
        this.cancel();
      }

      private cancel(): void {
        clearTimeout(this.timer);
        this.controller?.abort();
        this.controller = undefined;
      }

      private async request(): Promise<void> {
        const document = options.document();
        const state = this.view.state;
        const selection = state.selection.main;
        if (!document || !selection.empty) return;
        const pos = selection.head;
        const controller = new AbortController();
        this.controller = controller;
        const started = performance.now();
        try {
          const body = { ...requestText(state, pos), language: document.language, filePath: document.path, mode: 'continue' };
          const answer = await api<AiCompletion>('POST', '/api/ai/complete', body, controller.signal);
          if (controller.signal.aborted) return;
          options.onTiming({
            roundTripMs: Math.round(performance.now() - started),
            serverMs: answer.latencyMs,
            model: answer.model,
            characters: answer.completion.length,
          });
          // The answer is for the text and cursor it was asked with, or for nothing.
          if (this.view.state.doc !== state.doc || this.view.state.selection.main.head !== pos || !answer.completion) return;
          this.view.dispatch({ effects: setSuggestion.of({ pos, text: answer.completion }) });
        } catch (error) {
          if (controller.signal.aborted) return;
          options.onProblem(error instanceof ApiError ? `completion: ${error.message}` : 'completion failed');
        } finally {
          if (this.controller === controller) this.controller = undefined;
        }
      }
    },
  );
}

/**
 * The ghost-text extension for one document's editor state.
 *
 * @example
 *   EditorState.create({ doc, extensions: [ghostText({ document: () => ({ path, language }), onTiming, onProblem })] });
 */
export function ghostText(options: GhostTextOptions): Extension {
  return [
    suggestionField,
    ghostTextPlugin(options),
    Prec.highest(
      keymap.of([
        { key: 'Tab', run: acceptSuggestion },
        { key: 'Escape', run: dismissSuggestion },
      ]),
    ),
  ];
}
