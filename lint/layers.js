// The layer rule (`layers/imports`): a file in src/ may import only from the folders
// lint/layers.json allows its own folder, and only the npm packages and Node modules it allows
// it (VS Code's `code-import-patterns` is the model: each layer names what it may reach).
// Relative imports are resolved against the file, so `../../hosted/app.ts` from src/core/ is
// caught however deep the file is. Type-only imports (`import type`, `export type … from`,
// `typeof import()`) count against a folder's `types` list, and a package's against its
// `typePackages`; `import { type X }` loads the module at run time and counts as a value import.
// A package is named by its name (`@scope/name`, `name`), a Node module with its `node:` prefix
// (`fs` and `node:fs/promises` are both `node:fs`); a pattern may end in `*` (`@codemirror/*`,
// `node:*`). An exception lets one folder or file of a layer import more, with the reason.
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LAYERS = JSON.parse(fs.readFileSync(new URL('./layers.json', import.meta.url), 'utf8'));
const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** `src/core/completion/engine.ts` → `core/completion/engine.ts`; undefined outside src/. */
function insideSrc(file) {
  const relative = path.relative(SRC, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative.split(path.sep).join('/');
}

function topFolder(relative) {
  const slash = relative.indexOf('/');
  return slash < 0 ? '' : relative.slice(0, slash);
}

/** Whether `relative` (a file under src/) is `place` or inside it. */
function within(relative, place) {
  return relative === place || relative.startsWith(`${place}/`);
}

/** Where in lint/layers.json a layer's rule is written, for the messages. */
function ruleOf(layer, key) {
  return `lint/layers.json, "layers" → "${layer}" → "${key}"`;
}

/** Why this import breaks the layers, or undefined when it is allowed. */
export function layerProblem(fromRelative, toRelative, typeOnly) {
  if (toRelative === undefined) return 'src/ never imports from outside src/ (tests, benchmarks and scripts import src/, not the other way round)';
  const from = topFolder(fromRelative);
  const to = topFolder(toRelative);
  const layer = LAYERS.layers[from];
  if (!layer) return `src/${from || fromRelative} is not in lint/layers.json; add it with the folders it may import`;
  if (!LAYERS.layers[to]) return `src/${to || toRelative} is not in lint/layers.json; add it with the folders it may import`;
  if (from === to) return undefined;
  if (layer.imports.includes(to)) return undefined;
  if (typeOnly && (layer.types ?? []).includes(to)) return undefined;
  const allowed = layer.imports.length ? layer.imports.map((name) => `src/${name}`).join(', ') : 'nothing of ours';
  const types = layer.types?.length ? `; types only from ${layer.types.map((name) => `src/${name}`).join(', ')}` : '';
  return `src/${from} may import ${allowed}${types}, not src/${to} (${ruleOf(from, 'imports')})`;
}

/**
 * The package an import specifier names, or undefined for a path: `node:fs/promises` and `fs`
 * → `node:fs`, `@codemirror/view` → `@codemirror/view`, `yaml/util` → `yaml`.
 */
export function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || /^[a-z]+:\/\//i.test(specifier)) return undefined;
  if (specifier.startsWith('node:')) return `node:${specifier.slice(5).split('/')[0]}`;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return isBuiltin(name) ? `node:${name}` : name;
}

function matches(name, patterns) {
  return (patterns ?? []).some((pattern) => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern));
}

/** Why a file of src/ may not import this package or Node module, or undefined when it may. */
export function packageProblem(fromRelative, specifier, typeOnly) {
  const name = packageOf(specifier);
  if (name === undefined) return undefined;
  const from = topFolder(fromRelative);
  const layer = LAYERS.layers[from];
  if (!layer) return `src/${from || fromRelative} is not in lint/layers.json; add it with the folders and packages it may import`;
  if (matches(name, layer.packages)) return undefined;
  if (typeOnly && matches(name, layer.typePackages)) return undefined;
  if (LAYERS.exceptions.some((exception) => within(fromRelative, exception.path) && matches(name, exception.packages))) return undefined;
  const list = (patterns) => (patterns?.length ? patterns.join(', ') : 'none');
  const types = layer.typePackages?.length ? `; types only from ${list(layer.typePackages)}` : '';
  return `src/${from} may not import ${name}: its packages are ${list(layer.packages)}${types} (${ruleOf(from, 'packages')}; an exception for one folder goes in "exceptions", with the reason)`;
}

const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps the imports of each folder of src/ to the folders and packages lint/layers.json allows it.' },
    schema: [],
    messages: { layer: '{{problem}}' },
  },
  create(context) {
    const fromRelative = insideSrc(context.filename);
    if (fromRelative === undefined) return {};
    const check = (node, source, typeOnly) => {
      if (!source || typeof source.value !== 'string') return;
      const problem = source.value.startsWith('.')
        ? layerProblem(fromRelative, insideSrc(path.resolve(path.dirname(context.filename), source.value)), typeOnly)
        : packageProblem(fromRelative, source.value, typeOnly);
      if (problem) context.report({ node, messageId: 'layer', data: { problem } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source, node.importKind === 'type'),
      ExportNamedDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node, node.source, false),
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument, true),
    };
  },
};

const code = (names) => (names?.length ? names.map((name) => `\`${name}\``).join(', ') : '—');

/** The layers as a Markdown table (docs/architecture.md's, written by `npm run docs:architecture`). */
export function layersTable() {
  const rows = Object.entries(LAYERS.layers).map(([name, layer]) => `| \`src/${name}/\` | ${layer.about} | ${code(layer.imports)} | ${code(layer.types)} |`);
  return ['| Folder | What it holds | May import | Types only from |', '|---|---|---|---|', ...rows].join('\n');
}

/** The packages and Node modules each layer may import, as a Markdown table. */
export function packagesTable() {
  const rows = Object.entries(LAYERS.layers).map(
    ([name, layer]) => `| \`src/${name}/\` | ${code(layer.packages)} | ${code(layer.typePackages)} | ${layer.packagesAbout ?? ''} |`,
  );
  return ['| Folder | Packages and Node modules | Types only from | Why |', '|---|---|---|---|', ...rows].join('\n');
}

/** The exceptions (a folder or file that may import more than its layer), as a Markdown table. */
export function exceptionsTable() {
  const rows = LAYERS.exceptions.map((exception) => `| \`src/${exception.path}\` | ${code(exception.packages)} | ${exception.why} |`);
  return ['| Where | May also import | Why |', '|---|---|---|', ...rows].join('\n');
}

/** Every table docs/architecture.md shows from lint/layers.json, by its marker's name. */
export function architectureTables() {
  return new Map([
    ['layers', layersTable()],
    ['layer-packages', packagesTable()],
    ['package-exceptions', exceptionsTable()],
  ]);
}

/** The plugin: `plugins: { layers }`, rule `layers/imports`. */
export default { meta: { name: 'loom-layers' }, rules: { imports: importsRule } };
