// The editor's look, from the window's CSS variables (window.css sets them for light and dark
// under `data-theme`): the gutter, the current line, the selection, the panels (find, go to
// line) and the syntax colours all change with the theme without reconfiguring the editor.
// The syntax palette is VS Code's Light+ and Dark+, the colours its users read code in.
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';

const chrome = EditorView.theme({
  '&': { color: 'var(--fg)', backgroundColor: 'var(--editor-bg)', height: '100%' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--font-code)', fontSize: 'var(--code-size)', lineHeight: '1.5' },
  '.cm-content': { caretColor: 'var(--caret)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--caret)', borderLeftWidth: '2px' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': {
    backgroundColor: 'var(--selection)',
  },
  '.cm-selectionBackground': { backgroundColor: 'var(--selection-blur)' },
  '.cm-activeLine': { backgroundColor: 'var(--current-line)' },
  '.cm-gutters': { backgroundColor: 'var(--editor-bg)', color: 'var(--gutter-fg)', border: 'none' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--current-line)', color: 'var(--fg)' },
  '.cm-lineNumbers .cm-gutterElement': { padding: '0 12px 0 16px' },
  '.cm-foldPlaceholder': { backgroundColor: 'var(--bg-strong)', border: '1px solid var(--border)', color: 'var(--muted)' },
  '.cm-selectionMatch': { backgroundColor: 'var(--match)' },
  '.cm-searchMatch': { backgroundColor: 'var(--match)', outline: '1px solid var(--match-border)' },
  // The current match: its outline, not a background (the text on it keeps its contrast).
  '.cm-searchMatch.cm-searchMatch-selected': { outline: '2px solid var(--focus)' },
  '&.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--match)', outline: '1px solid var(--match-border)' },
  '&.cm-focused .cm-nonmatchingBracket': { color: 'var(--error)' },
  '.cm-tooltip': { backgroundColor: 'var(--bg-soft)', color: 'var(--fg)', border: '1px solid var(--border)', borderRadius: '4px' },
  '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--accent-bg)', color: 'var(--fg)' },
  '.cm-panels': { backgroundColor: 'var(--bg-soft)', color: 'var(--fg)', fontFamily: 'var(--font-ui)' },
  '.cm-panels.cm-panels-top': { borderBottom: '1px solid var(--border)' },
  '.cm-panels.cm-panels-bottom': { borderTop: '1px solid var(--border)' },
});

const syntax = HighlightStyle.define([
  { tag: [t.keyword, t.modifier, t.operatorKeyword, t.controlKeyword, t.moduleKeyword], color: 'var(--syn-keyword)' },
  { tag: [t.definitionKeyword, t.bool, t.null, t.atom, t.self], color: 'var(--syn-constant-keyword)' },
  { tag: [t.string, t.special(t.string), t.character, t.docString], color: 'var(--syn-string)' },
  { tag: [t.regexp, t.escape], color: 'var(--syn-regexp)' },
  { tag: [t.number, t.integer, t.float, t.unit], color: 'var(--syn-number)' },
  { tag: [t.comment, t.lineComment, t.blockComment, t.docComment], color: 'var(--syn-comment)', fontStyle: 'italic' },
  { tag: [t.function(t.variableName), t.function(t.propertyName), t.function(t.definition(t.variableName)), t.macroName], color: 'var(--syn-function)' },
  { tag: [t.typeName, t.className, t.namespace, t.definition(t.typeName)], color: 'var(--syn-type)' },
  { tag: [t.variableName, t.definition(t.variableName), t.labelName], color: 'var(--syn-variable)' },
  { tag: [t.propertyName, t.attributeName, t.definition(t.propertyName)], color: 'var(--syn-property)' },
  { tag: [t.constant(t.variableName), t.standard(t.variableName)], color: 'var(--syn-constant)' },
  { tag: [t.tagName, t.angleBracket], color: 'var(--syn-tag)' },
  { tag: [t.heading], color: 'var(--syn-keyword)', fontWeight: 'bold' },
  { tag: [t.emphasis], fontStyle: 'italic' },
  { tag: [t.strong], fontWeight: 'bold' },
  { tag: [t.link, t.url], color: 'var(--syn-string)', textDecoration: 'underline' },
  { tag: [t.meta, t.annotation, t.processingInstruction], color: 'var(--syn-meta)' },
  { tag: [t.invalid], color: 'var(--error)' },
  { tag: [t.operator, t.punctuation, t.bracket, t.separator], color: 'var(--fg)' },
]);

/** The editor's theme and syntax colours (both follow the window's light or dark). */
export function editorTheme(): Extension {
  return [chrome, syntaxHighlighting(syntax)];
}
