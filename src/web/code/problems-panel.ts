// The Problems tab of the bottom panel: every file's diagnostics, the files with errors first,
// each problem a button that opens its file at its place. It draws from the window's
// ProblemsStore whenever that changes, and says so quietly when no language server reports.
import { fill, h } from '../dom.ts';
import type { BottomView } from '../panels/bottom-panel.ts';
import type { CodeRangeLike } from './references-panel.ts';
import type { ProblemsStore, Severity } from './diagnostics.ts';

const MARK: Record<Severity, string> = { error: '⊗', warning: '⚠', information: 'ℹ', hint: '•' };

/**
 * The panel's view, for BottomPanel.add.
 *
 * @example
 *   bottom.add(problemsView(problems, (path, range) => features.reveal(path, range), () => 'No language server reports here.'));
 */
export function problemsView(
  problems: ProblemsStore,
  reveal: (path: string, range: CodeRangeLike) => unknown,
  emptyWords: () => string,
): BottomView & { render(): void } {
  let host: HTMLElement | undefined;
  const render = () => {
    if (!host) return;
    const files = problems.list();
    fill(
      host,
      files.length === 0
        ? h('p', { class: 'muted code-list-empty', role: 'status' }, emptyWords())
        : h(
            'ul',
            { class: 'code-list', 'aria-label': 'Problems' },
            ...files.map((file) =>
              h(
                'li',
                { class: 'code-list-file', 'data-path': file.path },
                h(
                  'div',
                  { class: 'code-list-heading' },
                  h('span', { class: 'code-list-name' }, file.path.split('/').at(-1)!),
                  h('span', { class: 'code-list-dir muted' }, file.path),
                  h('span', { class: 'code-list-count' }, String(file.diagnostics.length + file.omitted)),
                ),
                h(
                  'ul',
                  { class: 'code-list-items' },
                  ...file.diagnostics.map((diagnostic) =>
                    h(
                      'li',
                      {},
                      h(
                        'button',
                        {
                          class: `code-list-item problem ${diagnostic.severity}`,
                          'data-line': diagnostic.range.start.line,
                          onclick: () => void reveal(file.path, diagnostic.range),
                        },
                        h('span', { class: 'severity', 'aria-label': diagnostic.severity, role: 'img' }, MARK[diagnostic.severity]),
                        h('span', { class: 'message' }, diagnostic.message),
                        h(
                          'span',
                          { class: 'muted where' },
                          `${diagnostic.source ?? ''}${diagnostic.code ? `(${diagnostic.code})` : ''} [Ln ${diagnostic.range.start.line}, Col ${diagnostic.range.start.column}]`,
                        ),
                      ),
                    ),
                  ),
                  file.omitted ? h('li', { class: 'muted' }, `…and ${file.omitted} more`) : null,
                ),
              ),
            ),
          ),
    );
  };
  return {
    id: 'problems',
    title: 'Problems',
    mount: (element) => {
      host = h('div', { class: 'code-list-host' });
      element.append(host);
      render();
      return { focus: () => host?.querySelector<HTMLButtonElement>('button')?.focus() };
    },
    render,
  };
}
