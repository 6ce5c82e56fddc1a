// What every document's editor has: CodeMirror's usual pieces (line numbers, folding, history,
// bracket matching and closing, multiple cursors), the window's theme, find and replace, word
// wrap, and VS Code's keys. The keys are one table (VSCODE_KEYS): each row names the VS Code
// command it stands for, so the table is also the list docs/window.md gives.
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import {
  addCursorAbove,
  addCursorBelow,
  copyLineDown,
  copyLineUp,
  cursorMatchingBracket,
  defaultKeymap,
  deleteLine,
  history,
  historyKeymap,
  indentLess,
  indentMore,
  indentWithTab,
  insertBlankLine,
  moveLineDown,
  moveLineUp,
  selectLine,
  selectParentSyntax,
  toggleBlockComment,
  toggleComment,
  undoSelection,
} from '@codemirror/commands';
import { bracketMatching, foldCode, foldGutter, foldKeymap, indentOnInput, unfoldCode } from '@codemirror/language';
import { lintKeymap } from '@codemirror/lint';
import {
  findNext,
  findPrevious,
  gotoLine,
  highlightSelectionMatches,
  openSearchPanel,
  searchKeymap,
  selectNextOccurrence,
  selectSelectionMatches,
} from '@codemirror/search';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import {
  crosshairCursor,
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  rectangularSelection,
  type Command,
  type KeyBinding,
} from '@codemirror/view';
import { editorTheme } from './editor-theme.ts';
import { findPanel, openReplace } from './find-panel.ts';

/** Word wrap, one setting for every document (Alt+Z), kept in the browser. */
export const wordWrap = new Compartment();
const WRAP_KEY = 'loom.wordWrap';

export function wrapPreference(): boolean {
  try {
    return localStorage.getItem(WRAP_KEY) === 'on';
  } catch {
    return false;
  }
}

export function keepWrapPreference(on: boolean): void {
  try {
    localStorage.setItem(WRAP_KEY, on ? 'on' : 'off');
  } catch {
    // Storage refused: the setting lasts for this page.
  }
}

/** The extension word wrap puts in its compartment. */
export function wrapExtension(on: boolean): Extension {
  return on ? EditorView.lineWrapping : [];
}

/** Whether a state wraps its lines. */
export function wraps(state: EditorState): boolean {
  return wordWrap.get(state) === EditorView.lineWrapping;
}

const insertLineAbove: Command = (view) => {
  const line = view.state.doc.lineAt(view.state.selection.main.head);
  const indent = /^\s*/.exec(line.text)![0];
  view.dispatch({
    changes: { from: line.from, insert: `${indent}\n` },
    selection: { anchor: line.from + indent.length },
    scrollIntoView: true,
    userEvent: 'input',
  });
  return true;
};

export interface KeyRow {
  /** CodeMirror's key name (Mod is Ctrl, Cmd on macOS). */
  key: string;
  run: Command;
  shift?: Command;
  /** The VS Code command this key is in VS Code. */
  vscode: string;
  /** Whether the browser keeps its default too (never, for these). */
  preventDefault?: boolean;
}

/** VS Code's editing keys over CodeMirror's commands (the window adds its own: tabs, quick open, wrap). */
export const VSCODE_KEYS: KeyRow[] = [
  { key: 'Mod-d', run: selectNextOccurrence, vscode: 'editor.action.addSelectionToNextFindMatch' },
  { key: 'Mod-Shift-l', run: selectSelectionMatches, vscode: 'editor.action.selectHighlights' },
  { key: 'Mod-l', run: selectLine, vscode: 'expandLineSelection' },
  { key: 'Mod-Shift-k', run: deleteLine, vscode: 'editor.action.deleteLines' },
  { key: 'Alt-ArrowUp', run: moveLineUp, vscode: 'editor.action.moveLinesUpAction' },
  { key: 'Alt-ArrowDown', run: moveLineDown, vscode: 'editor.action.moveLinesDownAction' },
  { key: 'Shift-Alt-ArrowUp', run: copyLineUp, vscode: 'editor.action.copyLinesUpAction' },
  { key: 'Shift-Alt-ArrowDown', run: copyLineDown, vscode: 'editor.action.copyLinesDownAction' },
  { key: 'Mod-Alt-ArrowUp', run: addCursorAbove, vscode: 'editor.action.insertCursorAbove' },
  { key: 'Mod-Alt-ArrowDown', run: addCursorBelow, vscode: 'editor.action.insertCursorBelow' },
  { key: 'Shift-Alt-ArrowRight', run: selectParentSyntax, vscode: 'editor.action.smartSelect.expand' },
  { key: 'Mod-Enter', run: insertBlankLine, vscode: 'editor.action.insertLineAfter' },
  { key: 'Mod-Shift-Enter', run: insertLineAbove, vscode: 'editor.action.insertLineBefore' },
  { key: 'Mod-/', run: toggleComment, vscode: 'editor.action.commentLine' },
  { key: 'Shift-Alt-a', run: toggleBlockComment, vscode: 'editor.action.blockComment' },
  { key: 'Mod-]', run: indentMore, vscode: 'editor.action.indentLines' },
  { key: 'Mod-[', run: indentLess, vscode: 'editor.action.outdentLines' },
  { key: 'Mod-Shift-\\', run: cursorMatchingBracket, vscode: 'editor.action.jumpToBracket' },
  { key: 'Mod-Shift-[', run: foldCode, vscode: 'editor.fold' },
  { key: 'Mod-Shift-]', run: unfoldCode, vscode: 'editor.unfold' },
  { key: 'Mod-u', run: undoSelection, vscode: 'cursorUndo' },
  { key: 'Mod-f', run: openSearchPanel, vscode: 'actions.find' },
  { key: 'Mod-h', run: openReplace, vscode: 'editor.action.startFindReplaceAction' },
  { key: 'F3', run: findNext, shift: findPrevious, vscode: 'editor.action.nextMatchFindAction' },
  { key: 'Mod-g', run: gotoLine, vscode: 'workbench.action.gotoLine' },
];

function vscodeKeymap(): KeyBinding[] {
  return VSCODE_KEYS.map(({ key, run, shift }) => ({ key, run, shift, preventDefault: true }));
}

/**
 * The editor's extensions, without the document's own (language, read-only, ghost text).
 *
 * @example
 *   EditorState.create({ doc, extensions: [editorSetup(wrapPreference()), languageMode('typescript')] });
 */
export function editorSetup(wrap: boolean): Extension {
  return [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    foldGutter(),
    drawSelection(),
    dropCursor(),
    EditorState.allowMultipleSelections.of(true),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    // Ghost text is the completion as you type; CodeMirror's list of words comes on Ctrl+Space only.
    autocompletion({ activateOnTyping: false }),
    rectangularSelection(),
    crosshairCursor(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    findPanel(),
    editorTheme(),
    wordWrap.of(wrapExtension(wrap)),
    keymap.of([
      ...vscodeKeymap(),
      ...closeBracketsKeymap,
      ...defaultKeymap,
      ...searchKeymap,
      ...historyKeymap,
      ...foldKeymap,
      ...completionKeymap,
      ...lintKeymap,
      indentWithTab,
    ]),
  ];
}
