// A small helper to build elements: text always goes in as text (never as HTML), so nothing a
// file, a commit message or a model writes can become markup in the window.
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number | boolean | undefined | ((event: Event) => void)> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (name === 'class') element.className = String(value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/**
 * Replaces every child of `element`. The keyboard focus stays where it was: panels are drawn
 * anew whenever the disk, git or an agent changes something, and a key pressed just after
 * (F2 in the tree, Enter on a row) must reach the item the user was on, not the page. The
 * focused element's counterpart in what is drawn is the one of the same tag, `id` and `data-*`
 * attributes; an element with none of those has no counterpart to tell, and the focus goes.
 *
 * @example
 *   fill(list, ...rows.map((row) => h('button', { 'data-path': row.path }, row.name)));
 */
export function fill(element: Element, ...children: Child[]): void {
  const focused = document.activeElement;
  const identity = focused && focused !== element && element.contains(focused) ? identityOf(focused) : undefined;
  element.replaceChildren(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false));
  if (identity === undefined || focused!.isConnected) return;
  const counterpart = [...element.getElementsByTagName(focused!.tagName)].find((candidate) => identityOf(candidate) === identity);
  (counterpart as HTMLElement | undefined)?.focus({ preventScroll: true });
}

/** What tells an element from its siblings when it is drawn again: its tag, `id` and `data-*` attributes (none: undefined). */
function identityOf(element: Element): string | undefined {
  const marks = [...element.attributes].filter((attribute) => attribute.name === 'id' || attribute.name.startsWith('data-'));
  if (marks.length === 0) return undefined;
  return [element.tagName, ...marks.map((attribute) => `${attribute.name}=${attribute.value}`).sort()].join('\n');
}
