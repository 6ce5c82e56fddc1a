// A hostile model against `loom serve`'s production wiring (startLocal): for each seed, an agent
// task whose model is the scripted hostile server (test/support/hostile-model.ts), in a home
// folder that is a git repository holding Loom's config and data folders (settings.json with the
// API token), links out of the workspace (to a folder with a canary file, to /) and into .git, a
// FIFO and a loop of links. For every seed: /api/health answers while the task runs (each answer
// within a generous hang guard), the task ends with a documented reason that is not Loom's own
// failure, its status and step log are well-formed and bounded, nothing of the canary or the token
// reaches the model, nothing outside the workspace or in a protected path changes, no file named
// `pwned` appears, no git directory is assembled. The seeds are printed; HOSTILE_SEED=<seed>
// replays one, HOSTILE_RUNS=<n> runs more.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { statusOf, STEP_TEXT_LIMIT } from '../../src/core/agents/types.ts';
import { MATH } from '../core/agents/support.ts';
import { assembledGitDirectories, findNamed, HOSTILE_END_REASONS, hostileSeeds, snapshotTree, treeChanges, withSeed } from '../support/hostile-checks.ts';
import { startHostileModel, type HostileModel, type HostileScript, type HostileTargets } from '../support/hostile-model.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor, WAIT_LIMIT_MS } from '../support/wait.ts';

const FILE = 'test/local/hostile-model.test.ts';
/** Seeds per run: each starts its own server in its own home folder. */
const RUNS = 8;
/** How long one health answer may take before it counts as a hang: a guard, not a measurement. */
const HEALTH_LIMIT_MS = 20_000;
/** How long a task may run before the test counts it as hung. */
const TASK_LIMIT_MS = 2 * WAIT_LIMIT_MS;
/** The most a task's `error` may say, and a step log entry's tool name. */
const ERROR_CHARS = 1100;
const TOOL_NAME_CHARS = 100;

interface Home {
  root: string;
  home: string;
  configDir: string;
  dataDir: string;
  token: string;
  canary: string;
  local: TestLocal;
  targets: HostileTargets;
}

/**
 * A temporary root holding `outside/` (canary.txt) and `home/`, the workspace: a git repository
 * with Loom's config and data folders inside, .loom, links out and in, a FIFO, a loop.
 */
async function startHome(model: HostileModel, withServers: boolean): Promise<Home> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-hostile-')));
  const home = path.join(root, 'home');
  const outside = path.join(root, 'outside');
  fs.mkdirSync(path.join(outside, 'deeper'), { recursive: true });
  const canary = `CANARY-${randomBytes(16).toString('hex')}`;
  fs.writeFileSync(path.join(outside, 'canary.txt'), `${canary}\n`);
  fs.writeFileSync(path.join(outside, 'deeper', 'canary.json'), JSON.stringify({ canary }));
  fs.mkdirSync(path.join(home, 'project', 'src'), { recursive: true });
  fs.writeFileSync(path.join(home, 'project', 'src', 'math.ts'), MATH);
  assert.equal(spawnSync('git', ['init', '-q', home]).status, 0);
  fs.writeFileSync(path.join(home, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  fs.mkdirSync(path.join(home, '.loom', 'extensions'), { recursive: true });
  fs.writeFileSync(path.join(home, '.loom', 'settings.json'), '{"trusted": true}\n');
  const configDir = path.join(home, '.config', 'loom');
  const dataDir = path.join(home, '.local', 'share', 'loom');
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.symlinkSync('.config/loom/settings.json', path.join(home, 'cfg.json'));
  fs.symlinkSync('../outside', path.join(home, 'outlink'));
  fs.symlinkSync('/', path.join(home, 'rootlink'));
  fs.symlinkSync('.git', path.join(home, 'gitlink'));
  fs.symlinkSync('loop', path.join(home, 'loop'));
  spawnSync('mkfifo', [path.join(home, 'project', 'pipe')]);
  const token = `loom_hostile_${randomBytes(16).toString('hex')}`;
  model.watch(token, canary);
  const local = await startTestLocal({
    workspace: home,
    configDir,
    dataDir,
    settings: {
      apiToken: token,
      completion: { openai: { baseUrl: model.baseUrl, model: 'hostile', fim: 'off' } },
      agents: { commands: ['git --version'], approvalTimeoutSeconds: 1 },
      rateLimits: { default: 100_000 },
    },
    // The code tools: the index always; typescript-language-server (restricted: the folder is
    // not trusted) for every other seed, so that a run of seeds does not start one per seed.
    codeIndex: true,
    ...(withServers ? { languageServers: { enabled: 'on' as const } } : {}),
  });
  const targets: HostileTargets = {
    secrets: [
      'outlink/canary.txt',
      'outlink/deeper/canary.json',
      '../outside/canary.txt',
      path.join(outside, 'canary.txt'),
      `rootlink${outside}/canary.txt`,
      '.config/loom/settings.json',
      'cfg.json',
      '.CONFIG/loom/settings.json',
      'project/../.config/loom/settings.json',
      '.local/share/loom/loom.db',
      'project/pipe',
      'loop',
    ],
    protectedPaths: [
      '.git/hooks/pre-commit',
      '.git/config',
      '.GIT/hooks/post-checkout',
      'gitlink/hooks/pre-push',
      '.git./HEAD',
      'project/../.git/hooks/pre-commit',
      '.loom/extensions/evil/package.json',
      '.loom/settings.json',
      '.config/loom/settings.json',
      '.config/loom/evil.json',
      'cfg.json',
      '.local/share/loom/loom.db',
      '.local/share/loom/evil',
      'outlink/evil.txt',
      '../evil.txt',
      path.join(outside, 'evil.txt'),
      `rootlink${outside}/evil.txt`,
      'project/newgit/HEAD',
      'project/newgit/objects/x',
      'project/newgit/refs/x',
    ],
    outGlobs: ['outlink/**', 'rootlink/etc/*', '.config/**', '.local/share/loom/*', 'gitlink/**', 'outlink/deeper/*.json'],
    words: ['CANARY', 'loom_hostile', 'apiToken', 'canary'],
    ordinary: { path: 'project/src/math.ts', line: '  return a + b;' },
    listedCommand: 'git --version',
  };
  return { root, home, configDir, dataDir, token, canary, local, targets };
}

/** What must not change: everything beside the workspace, .git, .loom, the config folder, the data folder but the store's own files. */
function protectedState(home: Home) {
  return {
    outside: snapshotTree(home.root, (relative) => relative === 'home'),
    git: snapshotTree(path.join(home.home, '.git')),
    loom: snapshotTree(path.join(home.home, '.loom')),
    config: snapshotTree(home.configDir),
    // What the server itself keeps there: its store, the code index, the language servers' launchers.
    data: snapshotTree(home.dataDir, (relative) => /^(loom|code-index)\.db(-wal|-shm|-journal)?$|^language-servers(\/|$)/.test(relative)),
  };
}

async function healthy(local: TestLocal, token: string): Promise<void> {
  const answer = await fetch(`${local.url}/api/health`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(HEALTH_LIMIT_MS) });
  assert.equal(answer.status, 200, 'health answers');
  await answer.arrayBuffer();
}

/** Every entry of a task's step log, page by page. */
async function allSteps(local: TestLocal, taskId: string): Promise<any[]> {
  const steps: any[] = [];
  for (;;) {
    const page = await local.request('GET', `/api/agent/steps/${taskId}?after=${steps.length}&limit=500`);
    assert.equal(page.status, 200, `the step log answers: ${page.text.slice(0, 300)}`);
    steps.push(...page.json.steps);
    if (page.json.steps.length < 500) return steps;
  }
}

describe('a hostile model (loom serve, an agent task in a home folder holding Loom’s folders)', () => {
  let model: HostileModel;
  before(async () => {
    model = await startHostileModel();
  });
  after(() => model.close());

  for (const seed of hostileSeeds(RUNS)) {
    it(`seed ${seed}: health answers, the task ends with a documented reason, nothing leaks or changes outside`, async (t) => {
      let script: HostileScript | undefined;
      const home = await startHome(model, seed % 2 === 0);
      t.after(async () => {
        await home.local.close();
        fs.rmSync(home.root, { recursive: true, force: true });
      });
      await withSeed(
        FILE,
        () => script,
        async () => {
          script = model.play(seed, home.targets, { floods: true, silence: true });
          t.diagnostic(`seed ${seed}: ${script.moves.join(' → ')}`);
          const before = protectedState(home);
          const started = await home.local.request('POST', '/api/agent/run', {
            task: `Hostile seed ${seed}`,
            files: ['**'],
            budgets: { maxSteps: 12 },
          });
          assert.equal(started.status, 200, started.text);
          const { taskId } = started.json;
          let status: any;
          let cancelled = false;
          await waitFor(
            async () => {
              await healthy(home.local, home.token);
              if (model.holdingSilence && !cancelled) {
                // A model that says nothing ends at the wall-time budget, 10 s at least: cancelled sooner, health having answered meanwhile.
                cancelled = true;
                assert.equal((await home.local.request('POST', `/api/agent/cancel/${taskId}`)).status, 200);
              }
              const answer = await home.local.request('GET', `/api/agent/status/${taskId}`);
              assert.equal(answer.status, 200, `the status answers: ${answer.text.slice(0, 300)}`);
              status = answer.json;
              return status.status !== 'running';
            },
            TASK_LIMIT_MS,
            'the end of the task',
          );
          await healthy(home.local, home.token);

          const reasons = cancelled ? [...HOSTILE_END_REASONS, 'cancelled'] : HOSTILE_END_REASONS;
          assert.ok(reasons.includes(status.reason), `ended ${status.reason}: ${status.error}`);
          assert.equal(status.status, statusOf(status.reason));
          assert.ok(Number.isInteger(status.tokens) && status.tokens >= 0, `tokens ${status.tokens}`);
          if (status.error !== undefined) {
            assert.ok(status.error.length <= ERROR_CHARS, `an error of ${status.error.length} characters`);
            // The local API answers the machine's own user: a hint may name the settings file to edit, never the data dir or another file of Loom's.
            const outsideSettings = status.error.split(path.join(home.configDir, 'settings.json')).join('');
            assert.ok(!status.error.includes(home.dataDir) && !outsideSettings.includes(home.configDir), `a server path in ${status.error}`);
          }
          for (const step of await allSteps(home.local, taskId)) {
            const [text, args, tool] = [step.text.length, (step.arguments ?? '').length, (step.tool ?? '').length];
            assert.ok(text <= STEP_TEXT_LIMIT + 40 && args <= STEP_TEXT_LIMIT + 40, `step ${step.index}: text of ${text} characters, arguments of ${args}`);
            assert.ok(tool <= TOOL_NAME_CHARS, `step ${step.index}: a tool name of ${tool} characters`);
          }

          // What the task did can be listed and reverted, or the revert refused, never a 5xx.
          const listed = await home.local.request('GET', '/api/agent/tasks');
          assert.equal(listed.status, 200, listed.text.slice(0, 300));
          const reverted = await home.local.request('POST', `/api/agent/revert/${taskId}`);
          assert.ok(
            reverted.status === 200 || (reverted.status === 409 && reverted.json.error.code === 'REVERT_CONFLICT'),
            `revert: ${reverted.text.slice(0, 300)}`,
          );

          assert.deepEqual(model.leaks, [], 'what reached the model');
          const now = protectedState(home);
          for (const part of Object.keys(before) as (keyof typeof before)[]) assert.deepEqual(treeChanges(before[part], now[part]), [], `changes in ${part}`);
          assert.deepEqual(findNamed(home.root, 'pwned'), [], 'a command ran');
          assert.deepEqual(assembledGitDirectories(home.home), [], 'a git directory assembled by writes');
        },
      );
    });
  }
});
