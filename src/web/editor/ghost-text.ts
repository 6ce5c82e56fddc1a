// Ghost text: a completion from /api/ai/complete shown after the cursor as the user types.
// Requests wait for a pause in typing (debounced); a newer one aborts the older, whose answer
// is dropped; Tab accepts, Ctrl+→ (Cmd+→) accepts its next word, Esc dismisses; typing the
// suggestion's own characters keeps the rest of it on screen (and asks the server nothing); any
// other edit or a cursor move drops it. The server never repeats the text after the cursor; when
// the model's line goes on past characters the line has (a quote the editor closed), that part,
// the continuation, shows after them and goes there.
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
  /** Goes at `pos`; '' once it was all taken while a continuation is left. */
  text: string;
  /** The continuation: goes at `after.pos`, past the characters the line has after `pos`. */
  after?: { pos: number; text: string };
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
    EditorView.decorations.from(field, (value) => {
      if (!value) return Decoration.none;
      const widgets = [];
      if (value.text) widgets.push(Decoration.widget({ widget: new GhostWidget(value.text), side: 1 }).range(value.pos));
      if (value.after) widgets.push(Decoration.widget({ widget: new GhostWidget(value.after.text), side: 1 }).range(value.after.pos));
      return Decoration.set(widgets);
    }),
});

/**
 * The user typed the suggestion's next characters: the rest stays. Once its text is all typed,
 * typing over the characters the continuation skips (the editor steps over a quote or bracket
 * it closed, replacing it with itself) brings the continuation up. Anything else drops it.
 */
function typedThrough(value: Suggestion, tr: Transaction): Suggestion | null {
  let kept: Suggestion | null = null;
  let changes = 0;
  tr.changes.iterChanges((fromA, toA, _fromB, toB, inserted) => {
    changes += 1;
    const text = inserted.toString();
    if (fromA !== value.pos || text.length === 0) return;
    if (toA === fromA && value.text.startsWith(text) && (text.length < value.text.length || value.after)) {
      kept = { pos: toB, text: value.text.slice(text.length), ...(value.after && { after: movedAfter(value.after, tr) }) };
    } else if (value.text === '' && value.after && toA <= value.after.pos && tr.startState.sliceDoc(fromA, toA) === text) {
      kept = toA === value.after.pos ? { pos: toB, text: value.after.text } : { pos: toB, text: '', after: movedAfter(value.after, tr) };
    }
  });
  return changes === 1 ? kept : null;
}

/** An edit from elsewhere: the suggestion moves with the text around it, unless it changed what the continuation skips. */
function mappedThrough(value: Suggestion, tr: Transaction): Suggestion | null {
  if (value.after && tr.changes.touchesRange(value.pos, value.after.pos)) return null;
  const pos = tr.changes.mapPos(value.pos, 1);
  return tr.state.selection.main.head === pos ? { pos, text: value.text, ...(value.after && { after: movedAfter(value.after, tr) }) } : null;
}

function movedAfter(after: { pos: number; text: string }, tr: Transaction): { pos: number; text: string } {
  return { pos: tr.changes.mapPos(after.pos, 1), text: after.text };
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

/**
 * Accepts the suggestion on screen: its text goes in, its continuation after the characters it
 * skips, the cursor after the last. False (Tab indents) when there is none.
 */
export function acceptSuggestion(view: EditorView): boolean {
  const value = view.state.field(suggestionField, false);
  if (!value) return false;
  const changes = [{ from: value.pos, insert: value.text }];
  let end = value.pos + value.text.length;
  if (value.after) {
    changes.push({ from: value.after.pos, insert: value.after.text });
    end = value.after.pos + value.text.length + value.after.text.length;
  }
  view.dispatch({ changes, selection: { anchor: end }, effects: setSuggestion.of(null), userEvent: 'input.complete', scrollIntoView: true });
  return true;
}

/** A word and the spaces before it, or a run of other characters (`);`). */
const NEXT_WORD = /^\s*(?:[\p{L}\p{N}_$]+|[^\s\p{L}\p{N}_$]+)|^\s+/u;

/** The start of `text` that accepting a word takes. */
function nextWord(text: string): string {
  return NEXT_WORD.exec(text)?.[0] ?? text;
}

/**
 * Accepts the suggestion's next word (Ctrl+→, Cmd+→): it goes in, the cursor after it, and the
 * rest stays on screen. Once the text is all in, the continuation's words go after the
 * characters it skips. False (the key moves the cursor) when there is no suggestion.
 */
export function acceptWord(view: EditorView): boolean {
  const value = view.state.field(suggestionField, false);
  if (!value) return false;
  let at = value.pos;
  let text = value.text;
  let after = value.after;
  if (text === '' && after) {
    at = after.pos;
    text = after.text;
    after = undefined;
  }
  const word = nextWord(text);
  const rest = text.slice(word.length);
  const end = at + word.length;
  const next: Suggestion | null =
    rest !== '' || after ? { pos: end, text: rest, ...(after && { after: { pos: after.pos + word.length, text: after.text } }) } : null;
  view.dispatch({
    changes: { from: at, insert: word },
    selection: { anchor: end },
    effects: setSuggestion.of(next),
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

/**
 * The text before the cursor and the text after it (docs/completion.md, rule 0): the cursor is
 * where it is even when the text before it occurs again further on, as `'` in a file of `''`.
 */
function requestText(state: EditorState, pos: number): { prompt: string; suffix: string } {
  let start = Math.max(0, pos - PREFIX_CHARS);
  if (start > 0) start = state.doc.lineAt(start).to + 1;
  const end = Math.min(state.doc.length, pos + SUFFIX_CHARS);
  return { prompt: state.sliceDoc(Math.min(start, pos), pos), suffix: state.sliceDoc(pos, end) };
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
            characters: answer.completion.length + (answer.continuation?.text.length ?? 0),
          });
          // The answer is for the text and cursor it was asked with, or for nothing.
          if (this.view.state.doc !== state.doc || this.view.state.selection.main.head !== pos || !answer.completion) return;
          const { continuation } = answer;
          const after = continuation && pos + continuation.skip <= state.doc.length ? { pos: pos + continuation.skip, text: continuation.text } : undefined;
          this.view.dispatch({ effects: setSuggestion.of({ pos, text: answer.completion, ...(after && { after }) }) });
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
        { key: 'Mod-ArrowRight', run: acceptWord },
        { key: 'Escape', run: dismissSuggestion },
      ]),
    ),
  ];
}
