// The layer rule (`layers/imports`): a file in src/ may import only from the folders
// lint/layers.json allows its own folder, and from npm packages and Node. Relative imports are
// resolved against the file, so `../../hosted/app.ts` from src/core/ is caught however deep the
// file is. Type-only imports (`import type`, `export type … from`, `typeof import()`) count
// against a folder's `types` list; `import { type X }` loads the module at run time and counts
// as a value import.
import fs from 'node:fs';
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

/** Why this import breaks the layers, or undefined when it is allowed. */
export function layerProblem(fromRelative, toRelative, typeOnly) {
  if (toRelative === undefined) return 'src/ never imports from outside src/ (tests, benchmarks and scripts import src/, not the other way round)';
  const from = topFolder(fromRelative);
  const to = topFolder(toRelative);
  const layer = LAYERS.layers[from];
  if (!layer) return `src/${from || fromRelative} is not in lint/layers.json; add it with the folders it may import`;
  if (!LAYERS.layers[to]) return `src/${to || toRelative} is not in lint/layers.json; add it with the folders it may import`;
  if (from === to) {
    const apart = LAYERS.apart.find((rule) => fromRelative.startsWith(`${rule.folder}/`) && rule.never.some((never) => toRelative.startsWith(`${never}/`)));
    return apart && `src/${apart.folder} never imports src/${apart.never.join(', src/')}: ${apart.about}`;
  }
  if (layer.imports.includes(to)) return undefined;
  if (typeOnly && (layer.types ?? []).includes(to)) return undefined;
  const allowed = layer.imports.length ? layer.imports.map((name) => `src/${name}`).join(', ') : 'nothing of ours';
  const types = layer.types?.length ? `; types only from ${layer.types.map((name) => `src/${name}`).join(', ')}` : '';
  return `src/${from} may import ${allowed}${types}, not src/${to} (lint/layers.json)`;
}

const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps imports between the folders of src/ to what lint/layers.json allows.' },
    schema: [],
    messages: { layer: '{{problem}}' },
  },
  create(context) {
    const fromRelative = insideSrc(context.filename);
    if (fromRelative === undefined) return {};
    const check = (node, source, typeOnly) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source.value);
      const problem = layerProblem(fromRelative, insideSrc(target), typeOnly);
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

/** The layers as a Markdown table (docs/architecture.md's, written by `npm run docs:architecture`). */
export function layersTable() {
  const folders = (names) => (names?.length ? names.map((name) => `\`${name}\``).join(', ') : '—');
  const rows = Object.entries(LAYERS.layers).map(
    ([name, layer]) => `| \`src/${name}/\` | ${layer.about} | ${folders(layer.imports)} | ${folders(layer.types)} |`,
  );
  const apart = LAYERS.apart.map((rule) => `| \`src/${rule.folder}/\` | ${rule.about} | never ${folders(rule.never)} | |`);
  return ['| Folder | What it holds | May import | Types only from |', '|---|---|---|---|', ...rows, ...apart].join('\n');
}

/** The plugin: `plugins: { layers }`, rule `layers/imports`. */
export default { meta: { name: 'loom-layers' }, rules: { imports: importsRule } };
