// The window's frame: the activity bar, a side bar on the left (the files), one on the right
// (git, agents, notifications), the editor in the middle and a bottom panel under it. Each bar
// and the bottom panel is resized by dragging its edge (or with the arrow keys on the focused
// edge) and collapsed from the activity bar; sizes and what is open are kept in the browser.
// Whatever the user set, the editor keeps a usable size: on a narrow window (760 px) the side
// bars shrink, then the one opened first gives way to the one opened last, and the bottom panel
// never takes the editor below a few lines.
import { h } from '../dom.ts';

export type Region = 'left' | 'right' | 'bottom';

interface RegionState {
  open: boolean;
  size: number;
}

type LayoutState = Record<Region, RegionState>;

/** What `fit` decided: which regions show, at which size (px). */
export type Fitted = Record<Region, { shown: boolean; size: number }>;

export const ACTIVITY_WIDTH = 48;
export const SPLITTER = 4;
/** The editor's least width and height beside and above the bars. */
export const MIN_EDITOR_WIDTH = 360;
export const MIN_EDITOR_HEIGHT = 160;
const MIN_SIZE: Record<Region, number> = { left: 160, right: 220, bottom: 90 };
const DEFAULTS: LayoutState = { left: { open: true, size: 240 }, right: { open: true, size: 340 }, bottom: { open: false, size: 220 } };
const STORAGE_KEY = 'loom.layout';

/**
 * The sizes that fit a window of `width` × `height` (the body, between title and status bars),
 * `last` being the side bar opened most recently (it wins when both cannot show).
 *
 * @example
 *   fit(DEFAULTS, 760, 560, 'right').left.shown; // → false: the files give way to the git panel
 */
export function fit(state: LayoutState, width: number, height: number, last: 'left' | 'right'): Fitted {
  const room = width - ACTIVITY_WIDTH - MIN_EDITOR_WIDTH;
  const sides = { left: state.left.open, right: state.right.open };
  const clampSide = (region: 'left' | 'right', space: number) => Math.max(MIN_SIZE[region], Math.min(state[region].size, space));
  let left = clampSide('left', room - SPLITTER);
  let right = clampSide('right', room - SPLITTER);
  if (sides.left && sides.right && left + right + 2 * SPLITTER > room) {
    // Shrink both towards their least size, then let the older one go.
    const over = left + right + 2 * SPLITTER - room;
    const give = (region: 'left' | 'right', size: number) => size - MIN_SIZE[region];
    const slack = give('left', left) + give('right', right);
    if (slack >= over) {
      left -= Math.round((over * give('left', left)) / slack);
      right = room - 2 * SPLITTER - left;
    } else {
      sides[last === 'left' ? 'right' : 'left'] = false;
    }
  }
  if (sides.left && left + SPLITTER > room) sides.left = false;
  if (sides.right && right + SPLITTER > room) sides.right = false;
  const bottomRoom = height - MIN_EDITOR_HEIGHT - SPLITTER;
  const bottomShown = state.bottom.open && bottomRoom >= MIN_SIZE.bottom;
  return {
    left: { shown: sides.left, size: left },
    right: { shown: sides.right, size: right },
    bottom: { shown: bottomShown, size: Math.max(MIN_SIZE.bottom, Math.min(state.bottom.size, bottomRoom)) },
  };
}

export interface LayoutParts {
  activityBar: HTMLElement;
  left: HTMLElement;
  center: HTMLElement;
  bottom: HTMLElement;
  right: HTMLElement;
}

/**
 * Lays out the parts in `body` and keeps them fitted.
 *
 * @example
 *   const layout = new Layout(body, { activityBar, left: tree.element, center, bottom, right: side });
 *   layout.onChange = (fitted) => gitButton.classList.toggle('active', fitted.right.shown);
 *   layout.toggle('bottom');
 */
export class Layout {
  onChange: (fitted: Fitted) => void = () => {};
  private readonly state: LayoutState = readState();
  private last: 'left' | 'right' = 'right';
  private fitted!: Fitted;
  private readonly splitters: Record<Region, HTMLElement>;
  private readonly column: HTMLElement;

  constructor(
    private readonly body: HTMLElement,
    private readonly parts: LayoutParts,
  ) {
    this.splitters = {
      left: this.splitter('left', 'vertical', 'Resize the files'),
      right: this.splitter('right', 'vertical', 'Resize the side panel'),
      bottom: this.splitter('bottom', 'horizontal', 'Resize the bottom panel'),
    };
    parts.left.classList.add('region-left');
    parts.right.classList.add('region-right');
    parts.bottom.classList.add('region-bottom');
    this.column = h('div', { class: 'center-column' }, parts.center, this.splitters.bottom, parts.bottom);
    body.classList.add('layout');
    body.replaceChildren(parts.activityBar, parts.left, this.splitters.left, this.column, this.splitters.right, parts.right);
    // Each part keeps its track when another is hidden (display: none takes it out of the grid).
    [parts.activityBar, parts.left, this.splitters.left, this.column, this.splitters.right, parts.right].forEach(
      (part, index) => (part.style.gridColumn = String(index + 1)),
    );
    [parts.center, this.splitters.bottom, parts.bottom].forEach((part, index) => (part.style.gridRow = String(index + 1)));
    new ResizeObserver(() => this.apply()).observe(body);
  }

  /** What shows now. */
  get current(): Fitted {
    return this.fitted;
  }

  /** Opens a region that does not show, or closes one that does. */
  toggle(region: Region): void {
    this.show(region, !this.fitted?.[region].shown);
  }

  show(region: Region, open: boolean): void {
    this.state[region].open = open;
    if (open && region !== 'bottom') this.last = region;
    this.keep();
    this.apply();
  }

  /** Lays the parts out for the body's size now. */
  apply(): void {
    const { width, height } = this.body.getBoundingClientRect();
    if (width === 0) return;
    const fitted = fit(this.state, width, height, this.last);
    this.fitted = fitted;
    const columns = (region: 'left' | 'right') => (fitted[region].shown ? [`${fitted[region].size}px`, `${SPLITTER}px`] : ['0px', '0px']);
    const [leftSize, leftSplit] = columns('left');
    const [rightSize, rightSplit] = columns('right');
    this.body.style.gridTemplateColumns = `${ACTIVITY_WIDTH}px ${leftSize} ${leftSplit} minmax(0, 1fr) ${rightSplit} ${rightSize}`;
    this.column.style.gridTemplateRows = fitted.bottom.shown ? `minmax(0, 1fr) ${SPLITTER}px ${fitted.bottom.size}px` : 'minmax(0, 1fr) 0px 0px';
    for (const region of ['left', 'right', 'bottom'] as const) {
      this.parts[region].hidden = !fitted[region].shown;
      this.splitters[region].hidden = !fitted[region].shown;
      this.splitters[region].setAttribute('aria-valuenow', String(fitted[region].size));
    }
    this.onChange(fitted);
  }

  private splitter(region: Region, orientation: 'vertical' | 'horizontal', label: string): HTMLElement {
    const element = h('div', {
      class: `splitter splitter-${region} ${orientation}`,
      role: 'separator',
      tabindex: 0,
      'aria-orientation': orientation,
      'aria-label': label,
      'aria-valuemin': MIN_SIZE[region],
    });
    // Dragging away from the editor makes the region larger.
    const sign = region === 'left' ? 1 : -1;
    const resize = (size: number) => {
      this.state[region].size = Math.round(Math.max(MIN_SIZE[region], size));
      this.apply();
      // What fits is what is kept: a drag past the limit stops at it.
      this.state[region].size = this.fitted[region].size;
    };
    element.addEventListener('pointerdown', (event) => {
      event.preventDefault();
      element.setPointerCapture(event.pointerId);
      const start = region === 'bottom' ? event.clientY : event.clientX;
      const from = this.fitted[region].size;
      element.classList.add('dragging');
      const move = (moved: PointerEvent) => resize(from + sign * ((region === 'bottom' ? moved.clientY : moved.clientX) - start));
      const end = () => {
        element.classList.remove('dragging');
        element.removeEventListener('pointermove', move);
        this.keep();
      };
      element.addEventListener('pointermove', move);
      element.addEventListener('pointerup', end, { once: true });
      element.addEventListener('pointercancel', end, { once: true });
    });
    element.addEventListener('keydown', (event) => {
      const step = event.shiftKey ? 64 : 16;
      const grow: Record<string, number> = region === 'bottom' ? { ArrowUp: step, ArrowDown: -step } : { ArrowRight: sign * step, ArrowLeft: -sign * step };
      const by = grow[event.key];
      if (by === undefined) return;
      event.preventDefault();
      resize(this.fitted[region].size + by);
      this.keep();
    });
    return element;
  }

  private keep(): void {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(this.state));
    } catch {
      // Storage refused: the layout lasts for this page.
    }
  }
}

function readState(): LayoutState {
  const state: LayoutState = structuredClone(DEFAULTS);
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}') as Partial<Record<Region, Partial<RegionState>>>;
    for (const region of ['left', 'right', 'bottom'] as const) {
      const value = stored[region];
      if (typeof value?.open === 'boolean') state[region].open = value.open;
      if (typeof value?.size === 'number' && Number.isFinite(value.size)) state[region].size = value.size;
    }
  } catch {
    // Nothing kept, or something unreadable: the defaults.
  }
  return state;
}
