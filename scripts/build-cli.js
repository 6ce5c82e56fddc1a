// Compiles the `loom` command to JavaScript in dist/cli/ (git-ignored): `npm install` runs it
// as the `prepare` script, and `npm run build` by hand. esbuild bundles src/cli/main.ts with code
// splitting: what every command needs (commander, the command definitions) is one small file,
// and what an action imports lazily (the servers, the store, node-llama-cpp, …) is split into
// chunks loaded only by the commands that use it. Packages stay in node_modules (external), but
// for BUNDLED_PACKAGES.
// bin/loom.js runs the result only while bin/build-stamp.js finds the sources unchanged.
//
//   node scripts/build-cli.js            # build dist/cli/
//   node scripts/build-cli.js --check    # build to a temporary folder and list what `loom --help` loads
//   node scripts/build-cli.js --outdir DIR   # build into DIR, without a stamp (tests run it from there)
//
// Beside the code it writes the text of `loom --help` (writeHelp), which bin/loom.js prints
// while the build is current.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST_DIR, HELP_FILE, ROOT, STAMP_FILE, sourceListing } from '../bin/build-stamp.js';

const ENTRY = path.join(ROOT, 'src', 'cli', 'main.ts');
/**
 * The code index's parsing thread, a second entry: compiled, a thread loads plain JavaScript
 * instead of bringing tsx's hook and compiler into every thread (some 25 MB each).
 */
const PARSE_WORKER = path.join(ROOT, 'src', 'adapters', 'code', 'parse-worker.ts');

/**
 * Packages too heavy to load before a command knows it needs them: a command's definition (and
 * so `loom --help`) must not import them; its action imports them lazily.
 */
export const HEAVY_PACKAGES = [
  'fastify',
  '@fastify/websocket',
  '@fastify/formbody',
  'node-llama-cpp',
  'better-sqlite3',
  'pg',
  'kysely',
  'bullmq',
  'ioredis',
  '@modelcontextprotocol/sdk',
  'ajv',
  'pino',
  'playwright-core',
  'jose',
  'yaml',
  'typebox',
];

/**
 * Packages bundled into the build rather than loaded from node_modules: pure JavaScript spread
 * over many small modules, which Node loads one file at a time (typebox: some 700 files, 100 ms
 * of a start-up; commander, on every command). Only Loom's own code imports them, so there is
 * one copy at run time. commander is CommonJS: the banner gives its require() of Node's modules.
 */
export const BUNDLED_PACKAGES = ['typebox', 'commander'];

/** Every other package stays in node_modules: native ones must, and the rest load as they are. */
function externalPackagesPlugin() {
  return {
    name: 'external-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = packageName(args.path);
        if (BUNDLED_PACKAGES.includes(name)) return undefined;
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * A source file's `import.meta.url` still names the source file in the bundle (it finds files
 * next to it: package.json, the catalog, the dashboard's assets), as a URL relative to the
 * chunk, so the checkout may move. Every chunk is in dist/cli/ itself, hence one relative path.
 */
function sourceUrlPlugin(outdir) {
  return {
    name: 'source-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        const source = await fs.promises.readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
        const relative = path.relative(outdir, args.path).split(path.sep).join('/');
        return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/**
 * Bundles the CLI into `outdir`; returns esbuild's metafile.
 *
 * @example const metafile = await buildCli(path.join(os.tmpdir(), 'loom-cli'));
 */
export async function buildCli(outdir) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [ENTRY, PARSE_WORKER],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    // Errors and classes keep their names (messages and logs show them).
    keepNames: true,
    sourcemap: 'linked',
    banner: { js: "import { createRequire as __loomCreateRequire } from 'node:module'; const require = __loomCreateRequire(import.meta.url);" },
    metafile: true,
    logLevel: 'warning',
    plugins: [externalPackagesPlugin(), sourceUrlPlugin(outdir)],
  });
  return result.metafile;
}

/**
 * Writes `loom --help` as the build in `outdir` prints it (laid out for a fixed width, the same
 * on every terminal) into HELP_FILE beside it: bin/loom.js prints that text while the build is current,
 * without loading commander and every command's definition.
 *
 * @example await buildCli(outdir); writeHelp(outdir);
 */
export function writeHelp(outdir) {
  const entry = pathToFileURL(path.join(outdir, 'main.js')).href;
  const program = `const { main } = await import(${JSON.stringify(entry)}); await main(['node', 'loom', '--help'], { compiled: true });`;
  const text = execFileSync(process.execPath, ['--input-type=module', '-e', program], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  fs.writeFileSync(path.join(outdir, HELP_FILE), text);
}

/**
 * The packages a chunk loads before any action runs: its static imports, transitively, and the
 * bundled packages in the chunks they reach.
 *
 * @example startupPackages(metafile, 'dist/cli/main.js') // ['commander', 'typebox']
 */
export function startupPackages(metafile, entryOutput) {
  const packages = new Set();
  const seen = new Set();
  const visit = (output) => {
    if (seen.has(output)) return;
    seen.add(output);
    // Bundled packages (BUNDLED_PACKAGES) are inputs of the chunks, under node_modules.
    for (const input of Object.keys(metafile.outputs[output]?.inputs ?? {})) {
      const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (match) packages.add(match[1]);
    }
    for (const imported of metafile.outputs[output]?.imports ?? []) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) packages.add(packageName(imported.path));
      else visit(imported.path);
    }
  };
  visit(entryOutput);
  return [...packages].filter((name) => !name.startsWith('node:')).sort();
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Builds beside dist/cli/ and swaps it in, so a `loom` started meanwhile sees the old build or the new one, whole. */
async function buildInPlace() {
  // Listed before building: a file edited during the build makes the stamp stale, not wrong.
  const listing = sourceListing();
  const staging = `${DIST_DIR}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  await buildCli(staging);
  writeHelp(staging);
  fs.writeFileSync(path.join(staging, STAMP_FILE), listing);
  const old = `${DIST_DIR}.${process.pid}.old`;
  if (fs.existsSync(DIST_DIR)) fs.renameSync(DIST_DIR, old);
  fs.renameSync(staging, DIST_DIR);
  fs.rmSync(old, { recursive: true, force: true });
}

async function check() {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-build-'));
  try {
    const metafile = await buildCli(outdir);
    const entry = path.relative(process.cwd(), path.join(outdir, 'main.js')).split(path.sep).join('/');
    const loaded = startupPackages(metafile, entry);
    const heavy = loaded.filter((name) => HEAVY_PACKAGES.includes(name));
    console.log(`Packages every command loads: ${loaded.join(', ') || '(none)'}`);
    if (heavy.length) {
      console.error(`Too heavy to load at start-up: ${heavy.join(', ')}. Import them inside the action (await import(…)).`);
      process.exitCode = 1;
    }
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const outdirAt = process.argv.indexOf('--outdir');
  if (process.argv.includes('--check')) await check();
  else if (outdirAt > 0 && process.argv[outdirAt + 1]) {
    const outdir = path.resolve(process.argv[outdirAt + 1]);
    await buildCli(outdir);
    writeHelp(outdir);
  } else await buildInPlace();
}
