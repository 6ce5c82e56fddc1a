// Types of lint/layers.js, for the TypeScript that imports it (the docs writer and its test).
import type { ESLint } from 'eslint';

/** Why an import from one file of src/ (relative to src/) to another breaks the layers, or undefined. */
export function layerProblem(fromRelative: string, toRelative: string | undefined, typeOnly: boolean): string | undefined;
/** The layers as a Markdown table. */
export function layersTable(): string;
declare const plugin: ESLint.Plugin;
export default plugin;
