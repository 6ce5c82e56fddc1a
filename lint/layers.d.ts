// Types of lint/layers.js, for the TypeScript that imports it (the docs writer and its test).
import type { ESLint } from 'eslint';

/** Why an import from one file of src/ (relative to src/) to another breaks the layers, or undefined. */
export function layerProblem(fromRelative: string, toRelative: string | undefined, typeOnly: boolean): string | undefined;
/** The package an import specifier names (`node:fs/promises` → `node:fs`), or undefined for a path. */
export function packageOf(specifier: string): string | undefined;
/** Why a file of src/ (relative to src/) may not import this package or Node module, or undefined. */
export function packageProblem(fromRelative: string, specifier: string, typeOnly: boolean): string | undefined;
/** The layers as a Markdown table. */
export function layersTable(): string;
/** The packages and Node modules each layer may import, as a Markdown table. */
export function packagesTable(): string;
/** Where core may import more than its layer, and why, as a Markdown table. */
export function exceptionsTable(): string;
/** Every table docs/architecture.md shows from lint/layers.json, by its marker's name. */
export function architectureTables(): Map<string, string>;
declare const plugin: ESLint.Plugin;
export default plugin;
