// The window's few icons, drawn as inline SVG strokes in the text colour (so they follow the
// theme); each button that shows one has its name in aria-label and title.
const PATHS = {
  files: 'M13 3H6.5A1.5 1.5 0 0 0 5 4.5v15A1.5 1.5 0 0 0 6.5 21h11a1.5 1.5 0 0 0 1.5-1.5V9zM13 3v6h6',
  git: 'M6 3v12M18 9a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM6 21a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM18 9a9 9 0 0 1-9 9',
  agents: 'M12 3l1.8 5.2L19 10l-5.2 1.8L12 17l-1.8-5.2L5 10l5.2-1.8zM19 15l.8 2.2L22 18l-2.2.8L19 21l-.8-2.2L16 18l2.2-.8z',
  bell: 'M6 16v-5a6 6 0 0 1 12 0v5l2 2H4zM10 21h4',
  panel: 'M3 4h18v16H3zM3 15h18',
  sidebar: 'M3 4h18v16H3zM9 4v16',
  theme: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM12 3v18',
  search: 'M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14zM16 16l5 5',
  close: 'M6 6l12 12M18 6L6 18',
  composer: 'M4 5h10M4 10h7M4 15h5M14 20l1-4 6-6a1.4 1.4 0 0 0-2-2l-6 6-1 4z',
} as const;

export type IconName = keyof typeof PATHS;

/**
 * An icon as an SVG element (hidden from assistive tools: its button carries the name).
 *
 * @example
 *   h('button', { 'aria-label': 'Git' }, icon('git'));
 */
export function icon(name: IconName): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', `icon icon-${name}`);
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', PATHS[name]);
  svg.append(path);
  return svg;
}
