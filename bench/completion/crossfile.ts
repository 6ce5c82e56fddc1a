// A CrossCodeEval-style figure for completion's cross-file context (src/core/completion/
// cross-file.ts), on real code that is not Loom's: how often the definition a held-out line
// needs is in the model's prompt.
//
// The code is indexed by the real code index (tree-sitter, its SQLite file). A held-out line is
// a line that uses a name its file imports from another file of the repository (the index
// resolves the import and finds the name defined in that file); the cursor is put at the start
// of the line (after its indentation), the line itself is left out (prefix: the file before it;
// suffix: the file after it), as when the line is about to be written. The definition is "in
// the prompt" when its first line (the index's signature) is in it.
//
//   ours:   the cross-file context (a quarter of the prefix budget at most) + the lines nearest
//           the cursor in the rest of the budget, as the engine builds the prompt;
//   anchor: the lines nearest the cursor alone, in the whole budget (8192 characters).
//
// Also: the time one selection takes (p50, p99) and the context's size.
//
//   git clone <github:honojs/hono> /tmp/hono     (any repository of TypeScript or JavaScript)
//   npx tsx bench/completion/crossfile.ts        BENCH_CROSSFILE_ROOT (default /tmp/hono/src)
//                                                BENCH_CROSSFILE_LINES (default 2000): held-out lines, at most
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CodeIndex } from '../../src/adapters/code/code-index.ts';
import { crossFileContext } from '../../src/compose/code-intel.ts';
import { cutPrefix } from '../../src/core/completion/budget.ts';
import { CONTEXT_SHARE } from '../../src/core/completion/cross-file.ts';
import { percentile, readPositive } from '../support.ts';

const ROOT = process.env.BENCH_CROSSFILE_ROOT || '/tmp/hono/src';
const MAX_LINES = Math.round(readPositive('BENCH_CROSSFILE_LINES', 2000));
/** The engine's default prefix budget (completion.prefixChars). */
const PREFIX_CHARS = 8192;
const SOURCE = /\.(?:[cm]?[jt]sx?)$/;

interface HeldOut {
  file: string;
  prefix: string;
  suffix: string;
  /** The first lines of the definitions the line needs (any one counts). */
  needs: { name: string; signatures: string[] };
}

async function main(): Promise<void> {
  if (!fs.existsSync(ROOT)) {
    console.log(`crossfile: ${ROOT} is not there: clone a repository (git clone https://github.com/honojs/hono /tmp/hono) or set BENCH_CROSSFILE_ROOT.`);
    return;
  }
  const root = fs.realpathSync(ROOT);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-crossfile-bench-'));
  const index = CodeIndex.open({ root, dataDir });
  try {
    let started = performance.now();
    const built = await index.refresh();
    console.log(`crossfile: ${root}\n  indexed ${built.files} files in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const lines = await heldOutLines(index, root);
    console.log(`  held-out lines using a name imported from another file: ${lines.length}`);

    const context = crossFileContext(index);
    const contextChars = Math.floor(PREFIX_CHARS * CONTEXT_SHARE);
    let ours = 0;
    let anchor = 0;
    let contextTotal = 0;
    const times: number[] = [];
    for (const line of lines) {
      const request = { prefix: line.prefix, suffix: line.suffix, filePath: line.file, language: 'typescript' };
      started = performance.now();
      const selection = await context.select(request, contextChars);
      times.push(performance.now() - started);
      contextTotal += selection.text.length;
      const prompt = selection.text + cutPrefix(line.prefix, PREFIX_CHARS - selection.text.length);
      const alone = cutPrefix(line.prefix, PREFIX_CHARS);
      if (line.needs.signatures.some((signature) => prompt.includes(signature))) ours++;
      if (line.needs.signatures.some((signature) => alone.includes(signature))) anchor++;
    }
    const rate = (n: number) => `${((100 * n) / Math.max(1, lines.length)).toFixed(1)} %`;
    times.sort((a, b) => a - b);
    console.log(`  the definition the line needs is in the prompt (budget ${PREFIX_CHARS} characters):`);
    console.log(`    cross-file context + nearest lines   ${rate(ours)}`);
    console.log(`    nearest lines alone (anchor)         ${rate(anchor)}`);
    console.log(`    ratio                                ${anchor > 0 ? `${(ours / anchor).toFixed(1)}×` : `n/a (anchor 0; ${ours} against 0)`}`);
    console.log(
      `  selection: p50 ${percentile(times, 0.5).toFixed(2)} ms, p99 ${percentile(times, 0.99).toFixed(2)} ms; ` +
        `context ${(contextTotal / Math.max(1, lines.length)).toFixed(0)} characters on average (at most ${contextChars})`,
    );
  } finally {
    await index.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Lines that use a name their file imports from a workspace file defining it; every line of
 * every source file (tests included), in path order, at most MAX_LINES spread evenly.
 */
async function heldOutLines(index: CodeIndex, root: string): Promise<HeldOut[]> {
  const files = (await index.findFiles('', { limit: 10_000 })).filter((file) => file.state === 'parsed' && SOURCE.test(file.path)).map((file) => file.path);
  files.sort();
  const all: HeldOut[] = [];
  for (const file of files) {
    const imports = await index.importsOf(file);
    const importedFrom = new Map<string, string[]>();
    for (const entry of imports) for (const name of entry.names) if (entry.files.length > 0) importedFrom.set(name, entry.files);
    if (importedFrom.size === 0) continue;
    const definitions = await index.definitionsNamed([...importedFrom.keys()], { perName: 20 });
    const signatures = new Map<string, string[]>();
    for (const definition of definitions) {
      if (!importedFrom.get(definition.name)!.includes(definition.path)) continue;
      signatures.set(definition.name, [...(signatures.get(definition.name) ?? []), definition.signature]);
    }
    if (signatures.size === 0) continue;
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    let start = 0;
    for (const line of text.split('\n')) {
      const end = start + line.length;
      const body = line.trim();
      // Import lines name the symbol without needing its definition.
      if (body !== '' && !/^(?:import|export\s+(?:\*|\{[^}]*\})\s+from)\b/.test(body)) {
        const used = (body.match(/[\p{L}_$][\p{L}\p{N}_$]*/gu) ?? []).find((name) => signatures.has(name));
        if (used) {
          const cursor = start + (line.length - line.trimStart().length);
          all.push({ file, prefix: text.slice(0, cursor), suffix: text.slice(end), needs: { name: used, signatures: signatures.get(used)! } });
        }
      }
      start = end + 1;
    }
  }
  if (all.length <= MAX_LINES) return all;
  const step = all.length / MAX_LINES;
  return Array.from({ length: MAX_LINES }, (_, i) => all[Math.floor(i * step)]!);
}

await main();
