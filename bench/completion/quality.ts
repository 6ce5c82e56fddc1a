// Line-completion quality of the builtin model on real code that is not Loom's, as a ratio to
// an anchor run in the same process: a plain interpolated 4-gram with a file cache
// (bench/completion/support-baseline.ts). Protocol in support-metrics.ts; corpus and splits
// in support-corpus.ts. The model learns the training split (the project); each held-out file
// is then completed cursor by cursor, its own text reaching the model only through the
// requests' prefix and suffix.
//
//   npx tsx bench/completion/quality.ts     BENCH_SPLIT: test (default, report) or dev (tune)
//                                           BENCH_CORPUS, BENCH_EXT: another corpus
//                                           BENCH_SETTINGS: JSON overrides of the decoder settings
//                                           BENCH_BASELINE_THRESHOLD: the anchor's (default 0.6)
//                                           BENCH_CURSORS: line (default: after each line's first token)
//                                             or inside (3 letters into a word being typed: insidePositions)
//                                           BENCH_INDEX=1: also with the names in scope from the real code
//                                             index of the corpus folder (scope.ts), the line "builtin+index";
//                                             BENCH_DIFF=1 prints each cursor whose suggestion the index changed
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CodeIndex } from '../../src/adapters/code/code-index.ts';
import { IndexScope } from '../../src/core/completion/builtin/scope.ts';
import { BuiltinModel } from '../../src/core/completion/builtin/index.ts';
import { lex } from '../../src/core/completion/builtin/tokenizer.ts';
import { BaselineModel } from './support-baseline.ts';
import { bytesOf, loadCorpus, type Split } from './support-corpus.ts';
import { add, emptyScores, formatSummary, insidePositions, positions, score, scoreNextToken, summarize, type Scores, type Summary } from './support-metrics.ts';

const GOALS = { precision: 0.9, triggerRate: 0.4, meanCorrectChars: 12, wholeLineRate: 0.12 };

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The first token of the rest of the line, as the models' lexer cuts it (undefined: none). */
function firstToken(truth: string): string | undefined {
  const first = lex(truth).tokens[0];
  return first === undefined || first === '\n' ? undefined : first;
}

async function main(): Promise<void> {
  const split = (process.env.BENCH_SPLIT || 'test') as Split;
  if (split !== 'test' && split !== 'dev') throw new Error('BENCH_SPLIT must be test or dev');
  const settings = process.env.BENCH_SETTINGS ? JSON.parse(process.env.BENCH_SETTINGS) : undefined;
  const baselineThreshold = Number(process.env.BENCH_BASELINE_THRESHOLD || 0.6);
  const corpus = loadCorpus();
  const cursors = process.env.BENCH_CURSORS || 'line';
  if (cursors !== 'line' && cursors !== 'inside') throw new Error('BENCH_CURSORS must be line or inside');
  const positionsOf = cursors === 'inside' ? insidePositions : positions;
  const heldOut = corpus[split];
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  console.log(
    `quality: ${corpus.root}\n  train ${corpus.train.length} files ${kb(bytesOf(corpus.train))}, ` +
      `dev ${corpus.dev.length} files ${kb(bytesOf(corpus.dev))}, test ${corpus.test.length} files ${kb(bytesOf(corpus.test))}; scoring on ${split}, cursors: ${cursors}`,
  );

  let start = nowMs();
  const model = new BuiltinModel({ settings });
  for (const file of corpus.train) model.updateFile(file.path, file.text);
  model.indexPending();
  const builtinTrainMs = nowMs() - start;
  start = nowMs();
  const baseline = new BaselineModel(
    corpus.train.map((file) => file.text),
    baselineThreshold,
  );
  const baselineTrainMs = nowMs() - start;
  console.log(`  training: builtin ${builtinTrainMs.toFixed(0)} ms, baseline ${baselineTrainMs.toFixed(0)} ms`);

  // The code index of the whole corpus folder, as a workspace's. The held-out file is seen as
  // the editor shows it while its line is typed (the index's `editor` view of its unsaved text:
  // the prefix and the suffix), so neither its imports nor its definitions tell the line.
  let index: CodeIndex | undefined;
  let dataDir: string | undefined;
  if (process.env.BENCH_INDEX) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-quality-index-'));
    index = CodeIndex.open({ root: fs.realpathSync(corpus.root), dataDir, workers: 1 });
    start = nowMs();
    const built = await index.refresh();
    console.log(`  code index: ${built.files} files in ${(nowMs() - start).toFixed(0)} ms`);
  }
  let typing = '';
  index?.trackUnsaved((p) => p === typing);
  const scopes = index && new IndexScope(index, { relativePath: (p) => p.replace(/^held-out\//, ''), deadlineMs: 10_000, cacheMs: 0 });
  const indexedScores = emptyScores();

  const builtinScores = emptyScores();
  const baselineScores = emptyScores();
  let builtinMs = 0;
  let baselineMs = 0;
  for (const file of heldOut) {
    const fileScores = emptyScores();
    const scorer = baseline.forFile(file.text);
    const filePath = `held-out/${file.path}`;
    for (const position of positionsOf(file.text)) {
      const expected = firstToken(position.truth);
      let t = nowMs();
      const request = { prefix: position.prefix, suffix: position.suffix, filePath, language: 'javascript' };
      const suggestion = model.suggest(request);
      builtinMs += nowMs() - t;
      score(fileScores, position, suggestion.text);
      const top = model.suggest({ ...request, maxTokens: 1, settings: { threshold: 0, stepThreshold: 0, pendingDefault: 1, wrongCost: 0 } });
      scoreNextToken(fileScores, expected, top.text);
      if (scopes) {
        // The model reads the scope only when nothing else votes for the word being typed
        // (scopeWanted, as the provider does): the index is asked only then.
        let withScope = suggestion.text;
        if (suggestion.scopeWanted) {
          typing = file.path;
          await index!.setUnsaved(file.path, position.prefix + position.suffix);
          const scope = await scopes.scopeOf(request);
          withScope = model.suggest({ ...request, scope }).text;
        }
        score(indexedScores, position, withScope);
        if (process.env.BENCH_DIFF && withScope !== suggestion.text)
          console.log(
            `DIFF ${position.truth.startsWith(withScope.trimEnd()) ? 'RIGHT' : 'WRONG'} ${JSON.stringify(position.prefix.slice(-40))} -> ${JSON.stringify(withScope)} truth ${JSON.stringify(position.truth)} was ${JSON.stringify(suggestion.text)}`,
          );
      }

      t = nowMs();
      const anchor = scorer.suggest(position.cursor);
      baselineMs += nowMs() - t;
      score(baselineScores, position, anchor.text);
      scoreNextToken(baselineScores, expected, anchor.first);
    }
    add(builtinScores, fileScores);
    if (process.env.BENCH_VERBOSE) console.log(`    ${file.path}: ${formatSummary(summarize(fileScores))}`);
  }

  const ours = summarize(builtinScores);
  const anchor = summarize(baselineScores);
  console.log(`  positions: ${builtinScores.positions} (${heldOut.length} files)`);
  console.log(`  builtin   ${formatSummary(ours)}  (${(builtinMs / builtinScores.positions).toFixed(2)} ms/suggestion)`);
  if (scopes) console.log(`  builtin+index ${formatSummary(summarize(indexedScores))}`);
  console.log(`  baseline  ${formatSummary(anchor)}  (${(baselineMs / baselineScores.positions).toFixed(2)} ms/suggestion)`);
  if (cursors === 'inside') console.log('  (the anchor predicts whole tokens: it never finishes a word being typed, and its figures say nothing here)');
  const ratio = (key: keyof Summary) => (anchor[key] > 0 ? `${(ours[key] / anchor[key]).toFixed(2)}x` : 'n/a');
  console.log(
    `  builtin/baseline: precision ${ratio('precision')}, trigger rate ${ratio('triggerRate')}, correct length ${ratio('meanCorrectChars')}, ` +
      `whole line ${ratio('wholeLineRate')}, next token ${ratio('nextTokenAccuracy')}`,
  );
  const met = reportGoals(ours);
  console.log(met ? '\nGoals met.' : '\nSome goals MISSED.');
  if (process.env.BENCH_JSON) console.log(JSON.stringify({ split, builtin: ours, baseline: anchor, scores: builtinScores satisfies Scores }));
  await index?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}

function reportGoals(s: Summary): boolean {
  const checks: [string, boolean][] = [
    [`precision >= ${GOALS.precision * 100}%`, s.precision >= GOALS.precision],
    [`trigger rate >= ${GOALS.triggerRate * 100}%`, s.triggerRate >= GOALS.triggerRate],
    [`correct length >= ${GOALS.meanCorrectChars} chars`, s.meanCorrectChars >= GOALS.meanCorrectChars],
    [`whole line >= ${GOALS.wholeLineRate * 100}%`, s.wholeLineRate >= GOALS.wholeLineRate],
  ];
  console.log(`  goals: ${checks.map(([name, ok]) => `${name} ${ok ? 'met' : 'MISSED'}`).join('; ')}`);
  return checks.every(([, ok]) => ok);
}

await main();
