// The References tab of the bottom panel (Shift+F12): the places a symbol is used, grouped by
// file, each a button that opens its file there. The line's text shows for the files the
// window has open (the others are named by line and column: the server sends places, not text).
import type { CodeNavigation } from '../../contracts/code-resources.ts';
import { fill, h } from '../dom.ts';
import type { BottomView } from '../panels/bottom-panel.ts';

export type CodeLocation = CodeNavigation['locations'][number];
export interface CodeRangeLike {
  start: { line: number; column: number };
  end: { line: number; column: number };
}

export interface ReferencesResult {
  /** What was looked for, in words ("References to add"). */
  title: string;
  locations: CodeLocation[];
  /** `index`: found by name (no language server runs for the language). */
  source: CodeNavigation['source'];
}

/**
 * The panel's view, for BottomPanel.add; `show` fills it with an answer.
 *
 * @example
 *   const references = referencesView((path, range) => features.reveal(path, range), (path, line) => workbench.lineText(path, line));
 *   bottom.add(references);
 *   references.show({ title: 'References to add', locations, source: 'language-server' });
 */
export function referencesView(
  reveal: (path: string, range: CodeRangeLike) => unknown,
  lineText: (path: string, line: number) => string | undefined,
): BottomView & { show(result: ReferencesResult): void } {
  let host: HTMLElement | undefined;
  let result: ReferencesResult | undefined;
  const render = () => {
    if (!host) return;
    if (!result) {
      fill(host, h('p', { class: 'muted code-list-empty' }, 'Press Shift+F12 on a symbol to list where it is used.'));
      return;
    }
    const byFile = new Map<string, CodeLocation[]>();
    let outside = 0;
    for (const location of result.locations) {
      if (location.path === null) {
        outside += 1;
        continue;
      }
      const list = byFile.get(location.path) ?? [];
      list.push(location);
      byFile.set(location.path, list);
    }
    const count = result.locations.length;
    fill(
      host,
      h(
        'p',
        { class: 'code-list-summary', role: 'status' },
        `${result.title}: ${count === 0 ? 'none found' : `${count} in ${byFile.size} file${byFile.size === 1 ? '' : 's'}`}`,
        result.source === 'index' ? h('span', { class: 'muted' }, ' (by name, from the code index: no language server runs for this language)') : null,
        outside ? h('span', { class: 'muted' }, ` (${outside} outside the workspace)`) : null,
      ),
      h(
        'ul',
        { class: 'code-list', 'aria-label': result.title },
        ...[...byFile].map(([path, locations]) =>
          h(
            'li',
            { class: 'code-list-file', 'data-path': path },
            h(
              'div',
              { class: 'code-list-heading' },
              h('span', { class: 'code-list-name' }, path.split('/').at(-1)!),
              h('span', { class: 'code-list-dir muted' }, path),
              h('span', { class: 'code-list-count' }, String(locations.length)),
            ),
            h(
              'ul',
              { class: 'code-list-items' },
              ...locations
                .sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column)
                .map((location) => {
                  const text = lineText(path, location.range.start.line);
                  return h(
                    'li',
                    {},
                    h(
                      'button',
                      { class: 'code-list-item reference', 'data-line': location.range.start.line, onclick: () => void reveal(path, location.range) },
                      h('span', { class: 'muted where' }, `${location.range.start.line}:${location.range.start.column}`),
                      text !== undefined ? h('code', { class: 'preview' }, text.trim().slice(0, 200)) : null,
                    ),
                  );
                }),
            ),
          ),
        ),
      ),
    );
  };
  return {
    id: 'references',
    title: 'References',
    mount: (element) => {
      host = h('div', { class: 'code-list-host' });
      element.append(host);
      render();
      return { focus: () => host?.querySelector<HTMLButtonElement>('button')?.focus() };
    },
    show: (next) => {
      result = next;
      render();
    },
  };
}
