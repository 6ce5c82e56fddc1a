// `npx tsx bench/window/window.ts`: the window in Chromium (Debian's, driven by playwright-core)
// against the real local server, beside a bare CodeMirror page (basicSetup and the same
// languages, nothing of Loom's) in the same browser, the anchor:
// - typing latency in a 10,000-line TypeScript file: from the key event (its timeStamp) to the
//   end of the next frame (a task queued from requestAnimationFrame), p50 and p99 (goal p99 < 16 ms),
//   each key sent once the frame after the one before is done (no key queues behind another);
// - opening a 5 MB file: from the click in the tree to its first line on screen, against the
//   page's own fetch of the same text from the local API (the transfer alone);
// - quick open (Ctrl+P) over 50,000 files (the code index built): from each key event to the
//   end of the frame after the list shows that query's files, p50 and p99 (goal p99 < 50 ms),
//   each key sent once the list of the one before is drawn (the page ranks the index's list of
//   paths itself once it has it; the first keys after opening may still ask the index), against
//   the page's own fetch of the whole query from the index's route, scored over every path (what
//   a key would wait for if it asked the server);
// - the JavaScript the first screen loads (window.js and the chunks it imports statically, not
//   those imported with import() when the terminal or a diff is first opened), minified and
//   gzipped, against the bare CodeMirror bundle.
// BENCH_KEYS (300) keys are typed per side, BENCH_OPENS (5) opens, BENCH_QUICK_FILES (50,000)
// files, BENCH_QUICK_QUERIES (40) file names typed into quick open.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Page } from 'playwright-core';
import { buildWindowBundle, DEFAULT_BUNDLE_PATHS } from '../../src/local/window/bundle.ts';
import { launchChromium } from '../../test/support/browser.ts';
import { startTestLocal } from '../../test/support/local.ts';
import { percentile, readPositive } from '../support.ts';

const KEYS = readPositive('BENCH_KEYS', 300);
const OPENS = readPositive('BENCH_OPENS', 5);
const QUICK_FILES = Math.round(readPositive('BENCH_QUICK_FILES', 50_000));
const QUICK_QUERIES = Math.round(readPositive('BENCH_QUICK_QUERIES', 40));
const HERE = import.meta.dirname;

/** A 10,000-line TypeScript file: functions, types, strings, comments. */
function tenThousandLines(): string {
  const lines: string[] = [];
  for (let i = 0; lines.length < 10_000; i++) {
    lines.push(
      `// Block ${i}: adds the prices of the items, tax included.`,
      `export interface Item${i} { name: string; price: number; quantity: number }`,
      `export function total${i}(items: Item${i}[], rate = 0.2): number {`,
      `  const net = items.reduce((sum, item) => sum + item.price * item.quantity, 0);`,
      `  return Math.round(net * (1 + rate) * 100) / 100; // "rounded" to cents`,
      `}`,
      ``,
    );
  }
  return lines.slice(0, 10_000).join('\n') + '\n';
}

/** About 5 MB of TypeScript. */
function fiveMegabytes(): string {
  const block = tenThousandLines();
  return block.repeat(Math.ceil((5 * 1024 * 1024) / block.length)).slice(0, 5 * 1024 * 1024);
}

/** The bare CodeMirror page's script: basicSetup, the window's languages, one editor on `window.benchDoc`. */
async function anchorBundle(): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    stdin: {
      contents: [
        "import { basicSetup, EditorView } from 'codemirror';",
        "import { languageMode, hasMode } from '../../src/web/editor/languages.ts';",
        // Every language the window has, so that the bundle holds the same parsers.
        "const modes = ['typescript','javascript','json','markdown','python','html','css','go','rust','java','cpp','php','sql','yaml','shellscript','ruby','toml','lua'].filter(hasMode).map(languageMode);",
        "new EditorView({ doc: (window as any).benchDoc ?? '', extensions: [basicSetup, modes[0]], parent: document.body });",
        '(window as any).benchModes = modes.length;',
      ].join('\n'),
      resolveDir: HERE,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
  });
  return result.outputFiles[0]!.text;
}

const gzipped = (text: string | Buffer) => zlib.gzipSync(text, { level: 9 }).length;

/**
 * The scripts the first screen loads: window.js and the chunks it imports statically, and
 * theirs (a chunk imported with `import()`, the terminal or the diff views, loads only when
 * first opened), as paths under the bundle's folder.
 */
function firstScreenScripts(folder: string): string[] {
  const found: string[] = [];
  const visit = (file: string) => {
    if (found.includes(file)) return;
    found.push(file);
    const text = fs.readFileSync(path.join(folder, file), 'utf8');
    // Static imports only: `import{…}from"./x.js"` and `import"./x.js"`; `import("./x.js")` is dynamic.
    for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*"(\.\.?\/[^"]+\.js)"/g)) visit(path.posix.join(path.posix.dirname(file), match[1]!));
  };
  visit('window.js');
  return found;
}

/** Installs the key-to-frame probe: every keydown's latency goes into window.benchLatencies. */
async function installProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const latencies: number[] = [];
    (window as unknown as { benchLatencies: number[] }).benchLatencies = latencies;
    const channel = new MessageChannel();
    const pending: number[] = [];
    channel.port1.onmessage = () => latencies.push(performance.now() - pending.shift()!);
    document.addEventListener(
      'keydown',
      (event) => {
        pending.push(event.timeStamp);
        requestAnimationFrame(() => channel.port2.postMessage(null));
      },
      true,
    );
  });
}

/**
 * Types KEYS keys, each only once the frame after the one before has been produced: each
 * figure is one key's own key-to-frame latency, not the time it queued behind earlier keys
 * (the browser is sent keys faster than headless Chromium draws frames otherwise).
 */
async function typeAndMeasure(page: Page): Promise<number[]> {
  await installProbe(page);
  const text = 'const x = total1(items) + 1; ';
  for (let i = 0; i < KEYS; i++) {
    await page.keyboard.press(text[i % text.length] === ' ' ? 'Space' : text[i % text.length]!);
    // Checked on each frame (playwright's 'raf' polling) until the probe has this key's figure.
    await page.waitForFunction((count) => (window as unknown as { benchLatencies: number[] }).benchLatencies.length >= count, i + 1, { polling: 'raf' });
  }
  return page.evaluate(() => (window as unknown as { benchLatencies: number[] }).benchLatencies);
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** QUICK_FILES small files in a tree of 4 levels: `src/pkg12/mod3/feature7/widgetService1234.ts`. */
function manyFiles(): Record<string, string> {
  const words = ['widget', 'order', 'invoice', 'session', 'cache', 'parser', 'router', 'account', 'report', 'upload'];
  const kinds = ['Service', 'Store', 'View', 'Model', 'Test'];
  const files: Record<string, string> = {};
  for (let i = 0; i < QUICK_FILES; i++) {
    const name = `${words[i % words.length]}${kinds[Math.floor(i / words.length) % kinds.length]}${i}`;
    files[`src/pkg${i % 50}/mod${Math.floor(i / 50) % 10}/feature${Math.floor(i / 500) % 10}/${name}.ts`] = `export const id${i} = ${i};\n`;
  }
  return files;
}

/**
 * Types each query into quick open one key at a time, each once the list of the one before is
 * drawn, and measures, per key, from the key event to the end of the frame after the list
 * holds that query's answer (the list's `data-query` is set when it is drawn); and, for each
 * whole query, the page's own fetch of the index's answer, scored afresh over every path (the
 * index narrows a query that extends the one before to that one's matches: a query of no
 * common start is asked first).
 */
async function quickOpen(page: Page, queries: string[]): Promise<{ keys: number[]; fetches: number[] }> {
  await page.evaluate(() => {
    const bench = window as unknown as { benchQuick: number[]; benchPending: { at: number; query: string }[] };
    bench.benchQuick = [];
    bench.benchPending = [];
    const input = document.querySelector<HTMLInputElement>('.quick-open .palette-input')!;
    const list = document.querySelector<HTMLElement>('.quick-open .palette-list')!;
    const channel = new MessageChannel();
    const done: number[] = [];
    channel.port1.onmessage = () => bench.benchQuick.push(performance.now() - done.shift()!);
    input.addEventListener('keydown', (event) => {
      if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey)
        bench.benchPending.push({ at: event.timeStamp, query: input.value + event.key });
    });
    new MutationObserver(() => {
      const shown = list.dataset['query'];
      // Answers to earlier keys that a later key overtook count at this one's answer.
      while (bench.benchPending.length > 0 && bench.benchPending[0]!.query.length <= (shown ?? '').length) {
        const key = bench.benchPending.shift()!;
        done.push(key.at);
        requestAnimationFrame(() => channel.port2.postMessage(null));
      }
    }).observe(list, { attributes: true, attributeFilter: ['data-query'] });
  });
  const fetches: number[] = [];
  let typed = 0;
  for (const query of queries) {
    await page.keyboard.press('Control+p');
    await page.locator('.quick-open .palette-input:focus').waitFor();
    // As for typing: each key once the list of the one before is drawn (its own latency, not a queue's).
    for (const char of query) {
      await page.keyboard.press(char);
      typed += 1;
      await page.waitForFunction((count) => (window as unknown as { benchQuick: number[] }).benchQuick.length >= count, typed, {
        polling: 'raf',
        timeout: 60_000,
      });
    }
    await page
      .waitForFunction((count) => (window as unknown as { benchQuick: number[] }).benchQuick.length >= count, typed, { timeout: 60_000 })
      .catch(async (error: Error) => {
        const state = await page.evaluate(() => ({
          counted: (window as unknown as { benchQuick: number[] }).benchQuick.length,
          pending: (window as unknown as { benchPending: unknown[] }).benchPending,
          shown: document.querySelector<HTMLElement>('.quick-open .palette-list')?.dataset['query'],
          value: document.querySelector<HTMLInputElement>('.quick-open .palette-input')?.value,
        }));
        throw new Error(`${error.message}: ${typed} keys typed, ${JSON.stringify(state)}`);
      });
    await page.locator(`.quick-open .palette-item[data-path$="/${query}.ts"]`).first().waitFor();
    fetches.push(
      await page.evaluate(async (q) => {
        await (await fetch('/api/code/files?query=%7E%7E&limit=50', { credentials: 'same-origin' })).json();
        const start = performance.now();
        await (await fetch(`/api/code/files?query=${encodeURIComponent(q)}&limit=50`, { credentials: 'same-origin' })).json();
        return performance.now() - start;
      }, query),
    );
    await page.keyboard.press('Escape');
  }
  return { keys: await page.evaluate(() => (window as unknown as { benchQuick: number[] }).benchQuick), fetches };
}

async function main(): Promise<void> {
  // This build's chunks: the folder keeps an earlier build's for a while.
  const chunks = await buildWindowBundle();
  const folder = DEFAULT_BUNDLE_PATHS.output;
  const firstScripts = firstScreenScripts(folder);
  const windowCss = fs.readFileSync(path.join(folder, 'window.css'));
  const lazyScripts = chunks.filter((file) => !firstScripts.includes(file));
  const anchor = await anchorBundle();
  const big = tenThousandLines();
  const local = await startTestLocal({
    files: { 'src/big.ts': big, 'src/five-mb.ts': fiveMegabytes() },
    settings: { apiToken: 'loom_bench_window_token_0123456789abcdef', rateLimits: { default: 100_000, aiComplete: 100_000 } },
  });
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // The anchor: a bare CodeMirror page on the same text.
    const bare = await context.newPage();
    await bare.setContent('<!doctype html><html><body></body></html>');
    await bare.evaluate((doc) => ((window as unknown as { benchDoc: string }).benchDoc = doc), big);
    await bare.addScriptTag({ content: anchor, type: 'module' });
    await bare.locator('.cm-content').waitFor();
    await bare.locator('.cm-content').click();
    await bare.keyboard.press('Control+End');
    const bareLatencies = await typeAndMeasure(bare);
    await bare.close();

    // The window.
    const page = await context.newPage();
    await page.goto(local.signInLink());
    await page.locator('body[data-ready="true"]').waitFor();
    // What the browser fetched for the first screen must be what is counted as its script.
    const loaded = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => new URL(entry.name).pathname.slice(1))
        .filter((file) => file.endsWith('.js')),
    );
    if ([...loaded].sort().join() !== [...firstScripts].sort().join())
      throw new Error(`The first screen loaded ${loaded.join(', ')}, not the entry and its static imports (${firstScripts.join(', ')}).`);
    await page.locator('.tree-item.folder[data-path="src"]').click();
    await page.locator('.tree-item.file[data-path="src/big.ts"]').click();
    await page.locator('.tab.active[data-path="src/big.ts"]').waitFor();
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    const windowLatencies = await typeAndMeasure(page);

    // Opening 5 MB: the tree click to the first line on screen, and the page's fetch of the text alone.
    const opens: number[] = [];
    const fetches: number[] = [];
    for (let i = 0; i < OPENS; i++) {
      const started = performance.now();
      await page.locator('.tree-item.file[data-path="src/five-mb.ts"]').click();
      await page.locator('.tab.active[data-path="src/five-mb.ts"]').waitFor();
      await page.locator('.cm-line', { hasText: '// Block 0: adds the prices' }).first().waitFor();
      opens.push(performance.now() - started);
      fetches.push(
        await page.evaluate(async () => {
          const start = performance.now();
          await (await fetch('/api/editor/text?path=src/five-mb.ts', { credentials: 'same-origin' })).json();
          return performance.now() - start;
        }),
      );
      await page.keyboard.press('Control+w');
      await page.locator('.tab[data-path="src/five-mb.ts"]').waitFor({ state: 'detached' });
    }

    // Quick open over QUICK_FILES files, the index built.
    const many = manyFiles();
    const quickLocal = await startTestLocal({
      files: many,
      codeIndex: true,
      settings: { apiToken: 'loom_bench_window_token_0123456789abcdef', rateLimits: { default: 100_000, aiComplete: 100_000 } },
    });
    let quick: { keys: number[]; fetches: number[] };
    try {
      await quickLocal.code.refresh();
      const quickPage = await context.newPage();
      await quickPage.goto(quickLocal.signInLink());
      await quickPage.locator('body[data-ready="true"]').waitFor();
      const names = Object.keys(many).map((file) => file.slice(file.lastIndexOf('/') + 1, -'.ts'.length));
      const queries = Array.from({ length: QUICK_QUERIES }, (_, i) => names[Math.floor((i * 7919) % names.length)]!);
      quick = await quickOpen(quickPage, queries);
      await quickPage.close();
    } finally {
      await quickLocal.close();
    }

    const chromium = execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim();
    console.log(`${chromium}, Node ${process.version}, ${KEYS} keys per side, ${OPENS} opens`);
    const row = (name: string, samples: number[]) =>
      `${name.padEnd(22)} p50 ${ms(percentile(samples, 0.5)).padStart(8)}  p99 ${ms(percentile(samples, 0.99)).padStart(8)}`;
    console.log('Typing, key event to the end of the next frame, 10,000-line TypeScript file:');
    console.log(`  ${row('the window', windowLatencies)}`);
    console.log(`  ${row('bare CodeMirror', bareLatencies)}`);
    console.log(
      `  ratio p50 ${(percentile(windowLatencies, 0.5) / percentile(bareLatencies, 0.5)).toFixed(2)}, p99 ${(percentile(windowLatencies, 0.99) / percentile(bareLatencies, 0.99)).toFixed(2)}; goal p99 < 16 ms: ${percentile(windowLatencies, 0.99) < 16 ? 'met' : 'NOT met'}`,
    );
    console.log(`Opening a 5 MB file (${(fs.statSync(path.join(local.workspace, 'src/five-mb.ts')).size / 1024 / 1024).toFixed(1)} MB), click to first line:`);
    console.log(`  ${row('the window', opens)}`);
    console.log(`  ${row('fetch of its text', fetches)}`);
    console.log(`  ratio p50 ${(percentile(opens, 0.5) / percentile(fetches, 0.5)).toFixed(2)}`);
    console.log(`Quick open over ${QUICK_FILES.toLocaleString('en')} files, key to the list drawn (${quick.keys.length} keys, ${QUICK_QUERIES} file names):`);
    console.log(`  ${row('the window', quick.keys)}`);
    console.log(`  ${row("the index's answer", quick.fetches)}`);
    console.log(
      `  ratio p50 ${(percentile(quick.keys, 0.5) / percentile(quick.fetches, 0.5)).toFixed(2)}; goal p99 < 50 ms: ${percentile(quick.keys, 0.99) < 50 ? 'met' : 'NOT met'}`,
    );
    // Each file is fetched (and compressed) on its own: the sum of their gzipped sizes.
    const sizes = (files: string[]) => {
      const contents = files.map((file) => fs.readFileSync(path.join(folder, file)));
      return { gzipped: contents.reduce((sum, body) => sum + gzipped(body), 0), raw: contents.reduce((sum, body) => sum + body.length, 0) };
    };
    const first = sizes(firstScripts);
    const lazy = sizes(lazyScripts);
    const bareJs = gzipped(anchor);
    console.log('The page, minified, gzipped:');
    console.log(
      `  first screen (${firstScripts.join(' + ')}) ${(first.gzipped / 1024).toFixed(1)} KiB (${(first.raw / 1024).toFixed(0)} KiB raw), window.css ${(gzipped(windowCss) / 1024).toFixed(1)} KiB`,
    );
    console.log(
      `  loaded when first opened (${lazyScripts.length} chunks: the terminal, the diff views) ${(lazy.gzipped / 1024).toFixed(1)} KiB (${(lazy.raw / 1024).toFixed(0)} KiB raw)`,
    );
    console.log(`  bare CodeMirror with the same languages ${(bareJs / 1024).toFixed(1)} KiB (${(anchor.length / 1024).toFixed(0)} KiB raw)`);
    console.log(`  ratio ${(first.gzipped / bareJs).toFixed(2)}; goal 1.25: ${first.gzipped / bareJs <= 1.25 ? 'met' : 'NOT met'}`);
  } finally {
    await browser.close();
    await local.close();
  }
}

await main();
