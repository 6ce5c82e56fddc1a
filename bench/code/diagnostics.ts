// Diagnostics of a language server through Loom: an edit that breaks a type in a 1,000-file
// TypeScript project, made in the editor's documents, until the error is served; then the edit
// that fixes it, until the error is gone. Through the production wiring (createLanguageService:
// the documents mirrored to typescript-language-server, the live diagnostics store), in an
// untrusted workspace (the restricted start every fresh clone gets).
//
// (1) Live: the edit (Documents.replace, as the window's keystroke) until the
//     `diagnostics:change` event carrying the error (and, for the fix, the one without it).
// (2) Asked: the edit, then `currentDiagnostics` (what an agent calls after an edit) until it
//     answers with the error.
// Anchors in the same run: tsserver alone (Loom's TypeScript, no Loom, no
// typescript-language-server): the same edit as a `change`, then `geterr` until its
// `semanticDiag` event has the error; and `tsc --noEmit` over the whole project once. Memory:
// the resident size of the server's process tree (typescript-language-server and its tsserver),
// and of the bare tsserver.
//
//   npx tsx bench/code/diagnostics.ts     BENCH_EDITS: breaking edits measured per way (default 30)
//                                         BENCH_FILES: files of the project (default 1000)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { CappedMessageReader } from '../../src/adapters/lsp/message-reader.ts';
import { treeRss } from '../../src/adapters/lsp/process-memory.ts';
import { createLanguageService } from '../../src/compose/language-servers.ts';
import { systemClock } from '../../src/core/clock.ts';
import { EventBus } from '../../src/core/events/bus.ts';
import { Documents } from '../../src/core/workspace/documents.ts';
import { WorkspacePaths } from '../../src/core/workspace/paths.ts';
import { percentile, readPositive } from '../support.ts';

const EDITS = Math.round(readPositive('BENCH_EDITS', 30));
const FILES = Math.round(readPositive('BENCH_FILES', 1000));
const WARMUP = 3;
const require = createRequire(import.meta.url);
const TSSERVER = require.resolve('typescript/lib/tsserver.js');
const TSC = require.resolve('typescript/lib/tsc.js');

/** The edited module, in the middle of the import graph. */
const TARGET = Math.floor(FILES / 2);
const name = (i: number) => `m${String(i).padStart(4, '0')}`;
const CHECK_LINE = (i: number) => `export const check${i}: number = make${i}(1).id;`;

/**
 * A module: an interface, a class and functions, built on what it imports from up to three
 * earlier modules, so the project is one connected graph, as code is.
 */
function moduleText(i: number): string {
  const deps = [...new Set([i - 1, Math.floor(i / 2), Math.floor(i / 3)].filter((d) => d >= 0 && d < i))];
  const imports = deps.map((d) => `import { make${d}, Store${d}, type Item${d} } from './${name(d)}';`);
  const parent = deps[0] === undefined ? 'undefined' : `make${deps[0]}(id + 1)`;
  return [
    ...imports,
    '',
    `export interface Item${i} {`,
    '  id: number;',
    '  label: string;',
    '  tags: readonly string[];',
    deps[0] === undefined ? '  parent?: undefined;' : `  parent?: Item${deps[0]};`,
    '}',
    '',
    `export function make${i}(id: number): Item${i} {`,
    `  return { id, label: \`item ${i}/\${id}\`, tags: ['m${i}'], parent: ${parent} };`,
    '}',
    '',
    `export class Store${i} {`,
    `  private readonly items = new Map<number, Item${i}>();`,
    ...deps.map((d) => `  readonly from${d} = new Store${d}();`),
    '',
    `  add(item: Item${i}): this {`,
    '    this.items.set(item.id, item);',
    '    return this;',
    '  }',
    '',
    `  find(predicate: (item: Item${i}) => boolean): Item${i}[] {`,
    '    return [...this.items.values()].filter(predicate);',
    '  }',
    '',
    '  labels(): string[] {',
    '    return this.find((item) => item.tags.length > 0).map((item) => item.label.toUpperCase());',
    '  }',
    '}',
    '',
    `export function total${i}(store: Store${i}): number {`,
    '  return store.find(() => true).reduce((sum, item) => sum + item.id, 0);',
    '}',
    '',
    ...deps.map((d) => `export const link${d}to${i}: Item${d} = make${d}(${i});`),
    CHECK_LINE(i),
    '',
  ].join('\n');
}

function generate(root: string): void {
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'tsconfig.json'),
    JSON.stringify(
      { compilerOptions: { strict: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', noEmit: true }, include: ['src'] },
      null,
      2,
    ),
  );
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(root, 'src', `${name(i)}.ts`), moduleText(i));
}

const summary = (samples: number[]) => `p50 ${percentile(samples, 0.5).toFixed(0)} ms, p99 ${percentile(samples, 0.99).toFixed(0)} ms`;
const mb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${Math.round(bytes / 1024 / 1024)} MB`);

/** The break and the fix: the check's declared type, as the editor would replace it (1-based). */
function editAt(text: string, broken: boolean): { line: number; column: number; endColumn: number; text: string } {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.startsWith(`export const check${TARGET}:`));
  const column = lines[line]!.indexOf(':') + 3;
  const old = broken ? 'number' : 'string';
  return { line: line + 1, column, endColumn: column + old.length, text: broken ? 'string' : 'number' };
}

async function throughLoom(root: string): Promise<{ live: number[]; liveFix: number[]; asked: number[]; coldMs: number; rss?: number }> {
  const paths = new WorkspacePaths(root);
  const events = new EventBus();
  const documents = new Documents(paths, events);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-lsp-state-'));
  const service = createLanguageService({
    paths,
    documents,
    events,
    dataDir: stateDir,
    settings: { enabled: true, requestTimeoutMs: 120_000, idleSeconds: 3600, memoryLimitMb: 8192 },
    serverSettings: () => ({}),
    onSettingsChange: () => {},
    trusted: () => false,
    log: () => {},
    clock: systemClock,
  });
  const file = `src/${name(TARGET)}.ts`;
  const started = performance.now();
  await documents.openFile(file);
  const first = await service.currentDiagnostics(file);
  const coldMs = performance.now() - started;
  if (first.diagnostics.length !== 0) throw new Error(`the generated project has errors: ${JSON.stringify(first.diagnostics[0])}`);

  let heard: ((hasError: boolean) => void) | undefined;
  events.subscribe((event) => {
    if (event.type !== 'diagnostics:change' || event.data['path'] !== file) return;
    heard?.((event.data['diagnostics'] as { severity: string }[]).some((d) => d.severity === 'error'));
  });
  const edit = async (broken: boolean) => {
    const { text } = await documents.text(file);
    const at = editAt(text, broken);
    await documents.replace({ path: file, startLine: at.line, startColumn: at.column, endLine: at.line, endColumn: at.endColumn, text: at.text });
  };
  const live: number[] = [];
  const liveFix: number[] = [];
  for (let i = 0; i < WARMUP + EDITS; i++) {
    for (const broken of [true, false]) {
      const served = new Promise<void>((resolve) => (heard = (hasError) => hasError === broken && resolve()));
      const t0 = performance.now();
      await edit(broken);
      await served;
      if (i >= WARMUP) (broken ? live : liveFix).push(performance.now() - t0);
    }
  }
  heard = undefined;
  const asked: number[] = [];
  for (let i = 0; i < WARMUP + EDITS; i++) {
    for (const broken of [true, false]) {
      const t0 = performance.now();
      await edit(broken);
      const answer = await service.currentDiagnostics(file);
      if (answer.diagnostics.some((d) => d.severity === 'error') !== broken)
        throw new Error(`currentDiagnostics answered ${JSON.stringify(answer.diagnostics)} after the ${broken ? 'break' : 'fix'}`);
      if (i >= WARMUP && broken) asked.push(performance.now() - t0);
    }
  }
  const rss = service.status().find((s) => s.server === 'typescript')?.rssBytes;
  await service.close();
  fs.rmSync(stateDir, { recursive: true, force: true });
  return { live, liveFix, asked, coldMs, rss };
}

/** tsserver's own protocol: requests as JSON lines, answers and events framed as LSP frames them. */
async function bareTsserver(root: string): Promise<{ samples: number[]; coldMs: number; rss?: number }> {
  const child = spawn(process.execPath, [TSSERVER, '--disableAutomaticTypingAcquisition', '--useInferredProjectPerProjectRoot'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const reader = new CappedMessageReader(child.stdout, 256 * 1024 * 1024);
  let seq = 0;
  const waiters: ((message: Record<string, unknown>) => void)[] = [];
  reader.listen((message) => {
    for (const waiter of [...waiters]) waiter(message as unknown as Record<string, unknown>);
  });
  const send = (command: string, args: unknown) => child.stdin.write(`${JSON.stringify({ seq: ++seq, type: 'request', command, arguments: args })}\n`);
  const file = path.join(root, 'src', `${name(TARGET)}.ts`);
  let text = fs.readFileSync(file, 'utf8');
  const errorsNow = () =>
    new Promise<boolean>((resolve) => {
      const waiter = (message: Record<string, unknown>) => {
        const body = message['body'] as { file?: string; diagnostics?: { category: string }[] } | undefined;
        if (message['event'] !== 'semanticDiag' || body?.file !== file) return;
        waiters.splice(waiters.indexOf(waiter), 1);
        resolve(body.diagnostics!.some((d) => d.category === 'error'));
      };
      waiters.push(waiter);
      send('geterr', { files: [file], delay: 0 });
    });
  const started = performance.now();
  send('open', { file, fileContent: text, projectRootPath: root });
  if (await errorsNow()) throw new Error('the generated project has errors (tsserver)');
  const coldMs = performance.now() - started;
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + EDITS; i++) {
    for (const broken of [true, false]) {
      const at = editAt(text, broken);
      const t0 = performance.now();
      send('change', { file, line: at.line, offset: at.column, endLine: at.line, endOffset: at.endColumn, insertString: at.text });
      const lines = text.split('\n');
      lines[at.line - 1] = lines[at.line - 1]!.slice(0, at.column - 1) + at.text + lines[at.line - 1]!.slice(at.endColumn - 1);
      text = lines.join('\n');
      if ((await errorsNow()) !== broken) throw new Error('tsserver answered the wrong diagnostics');
      if (i >= WARMUP && broken) samples.push(performance.now() - t0);
    }
  }
  const rss = child.pid === undefined ? undefined : treeRss(child.pid);
  child.kill('SIGKILL');
  return { samples, coldMs, rss };
}

function tscOnce(root: string): number {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, [TSC, '--noEmit', '-p', root], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`tsc found errors: ${run.stdout.slice(0, 500)}`);
  return performance.now() - t0;
}

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-diagnostics-')));
try {
  generate(root);
  const lines = fs
    .readdirSync(path.join(root, 'src'))
    .reduce((sum, entry) => sum + fs.readFileSync(path.join(root, 'src', entry), 'utf8').split('\n').length, 0);
  console.log(
    `project: ${FILES} modules, ${lines} lines, each importing up to three others; edited: src/${name(TARGET)}.ts; ${EDITS} breaking edits per way (+${WARMUP} warm-up)`,
  );
  const tscMs = tscOnce(root);
  console.log(`anchor tsc --noEmit (whole project, once): ${tscMs.toFixed(0)} ms`);
  const loom = await throughLoom(root);
  console.log(`Loom: open → first diagnostics (project load) ${loom.coldMs.toFixed(0)} ms`);
  console.log(`Loom (1) live, edit → diagnostics:change with the error: ${summary(loom.live)}`);
  console.log(`Loom (1) live, fix → diagnostics:change without it:      ${summary(loom.liveFix)}`);
  console.log(`Loom (2) asked, edit → currentDiagnostics with the error: ${summary(loom.asked)}`);
  console.log(`Loom server memory (typescript-language-server + tsserver, RSS): ${mb(loom.rss)}`);
  const bare = await bareTsserver(root);
  console.log(
    `anchor tsserver alone: open → first semanticDiag ${bare.coldMs.toFixed(0)} ms; change + geterr → semanticDiag with the error: ${summary(bare.samples)}; RSS ${mb(bare.rss)}`,
  );
  const ratio = (samples: number[]) => (percentile(samples, 0.5) / percentile(bare.samples, 0.5)).toFixed(2);
  console.log(
    `ratio Loom / tsserver alone (p50): live ${ratio(loom.live)}, asked ${ratio(loom.asked)}; one served edit vs tsc --noEmit: ${(percentile(loom.live, 0.5) / tscMs).toFixed(3)}`,
  );
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
