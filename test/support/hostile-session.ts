// One seed of the hostile model against a composer session, wherever it runs: `loom hosted`'s
// in-process queue, or a `loom worker` taking it from Redis. The session's data dir (the
// hosted server's, or the worker's) holds canaries and is compared before and after; the
// hosted server's health must answer while the session runs; the session must end, its answer,
// events, error and plan within what Loom's own client reads and naming no server folder.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { MAX_EVENT_BYTES } from '../../src/client/composer-events.ts';
import { MAX_ANSWER_BYTES } from '../../src/client/hosted.ts';
import { bareRepository } from './bare-repository.ts';
import { findNamed, snapshotTree, treeChanges, withSeed } from './hostile-checks.ts';
import type { HostileModel, HostileScript, HostileTargets } from './hostile-model.ts';
import { bearer } from './oauth.ts';
import { post, type TestHosted } from './hosted.ts';
import { waitFor, WAIT_LIMIT_MS } from './wait.ts';

const SESSION = '/api/v1/composer/session';
/** How long one health answer may take before it counts as a hang: a guard, not a measurement. */
const HEALTH_LIMIT_MS = 20_000;
/** The most a session's error may say (PUBLIC_ERROR_CHARS and its note). */
const ERROR_CHARS = 1100;
const MATH = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n';

/** How a seed's session runs: odd seeds on a registered git workspace, even ones on attachments, one in two of those in plan mode. */
export function sessionKind(seed: number): { onGit: boolean; plan: boolean; label: string } {
  const onGit = seed % 2 === 1;
  const plan = seed % 4 === 2;
  return { onGit, plan, label: onGit ? 'a registered git workspace' : plan ? 'attachments, plan mode' : 'attachments' };
}

export interface HostileSessionSetup {
  t: TestContext;
  /** The test file, for the replay command. */
  file: string;
  seed: number;
  model: HostileModel;
  hosted: TestHosted;
  /** An API key with write:composer. */
  key: string;
  /** The data dir of the process that runs the session (the hosted server's, or the worker's). */
  dataDir: string;
}

/** Runs one seed's session and checks it (see the top of this file); a failure names the seed. */
export async function hostileSession(setup: HostileSessionSetup): Promise<void> {
  const { t, seed, model, hosted, key, dataDir } = setup;
  const { onGit, plan } = sessionKind(seed);
  let script: HostileScript | undefined;
  const canary = `CANARY-${randomBytes(16).toString('hex')}`;
  fs.writeFileSync(path.join(dataDir, 'canary.txt'), `${canary}\n`);
  fs.mkdirSync(path.join(dataDir, 'composer'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'composer', 'canary.txt'), `${canary}\n`);
  model.watch(canary);
  const repository = onGit ? bareRepository(t, { 'project/src/math.ts': MATH, 'README.md': '# App\n' }) : undefined;
  const workspace = `app-${seed}`;
  if (repository)
    await hosted.store.composerWorkspaces.put({ name: workspace, repo: repository.bare, branch: null, push: true, createdAt: new Date().toISOString() });
  const targets: HostileTargets = {
    // The copy is <data dir>/composer/scratch/<id>, or a worktree in composer/worktrees/: every
    // way up. (Not the data dir's absolute path: the model cannot know it, and what it writes is
    // echoed in the events, which must name no server folder of Loom's own.)
    secrets: ['../canary.txt', '../../canary.txt', '../../../canary.txt', '../../../loom.db', '../../../../canary.txt', '.git/config'],
    protectedPaths: [
      '.git/hooks/pre-commit',
      '.git/config',
      '.GIT/hooks/post-checkout',
      '.loom/settings.json',
      '../../../evil.txt',
      '../../evil.txt',
      '../../no-hooks/pre-commit',
      '../../../composer/no-hooks/post-checkout',
      'project/newgit/HEAD',
      'project/newgit/objects/x',
      'project/newgit/refs/x',
    ],
    outGlobs: ['../**', '../../*', '.git/**'],
    words: ['CANARY', 'canary'],
    ordinary: { path: 'project/src/math.ts', line: '  return a + b;' },
  };
  // The store's files and the composer's working folders change; nothing else may.
  const dataState = () => snapshotTree(dataDir, (relative) => /^loom\.db(-wal|-shm|-journal)?$/.test(relative) || /^composer\/(?!canary\.txt$)/.test(relative));
  /** Hooks in the composer's clones that are not git's samples, and anything in its empty hooks folder: written by the model. */
  const composerHooks = () => {
    const composer = path.join(dataDir, 'composer');
    const repos = fs.existsSync(path.join(composer, 'repos')) ? fs.readdirSync(path.join(composer, 'repos')) : [];
    return [
      ...Object.keys(snapshotTree(path.join(composer, 'no-hooks'))).map((name) => `no-hooks/${name}`),
      ...repos.flatMap((repo) =>
        Object.keys(snapshotTree(path.join(composer, 'repos', repo, 'hooks')))
          .filter((name) => !name.endsWith('.sample'))
          .map((name) => `repos/${repo}/hooks/${name}`),
      ),
    ];
  };
  const repoState = () =>
    repository ? { hooks: snapshotTree(path.join(repository.bare, 'hooks')), config: fs.readFileSync(path.join(repository.bare, 'config'), 'utf8') } : {};
  const healthy = async () => {
    const answer = await fetch(`${hosted.url}/api/v1/health`, { signal: AbortSignal.timeout(HEALTH_LIMIT_MS) });
    assert.equal(answer.status, 200, 'health answers');
    await answer.arrayBuffer();
  };

  try {
    await runSeed();
  } finally {
    if (repository) await hosted.store.composerWorkspaces.remove(workspace);
  }

  async function runSeed(): Promise<void> {
    await withSeed(
      setup.file,
      () => script,
      async () => {
        script = model.play(seed, targets, { floods: false, silence: true });
        t.diagnostic(`seed ${seed}: ${script.moves.join(' → ')}`);
        const before = { data: dataState(), repo: repoState() };
        const res = await post(
          `${hosted.url}${SESSION}`,
          {
            prompt: `Hostile seed ${seed}`,
            files: ['**'],
            ...(plan ? { mode: 'plan' } : {}),
            ...(onGit ? { workspace } : { attachments: [{ path: 'project/src/math.ts', content: MATH }] }),
          },
          'application/json',
          bearer(key),
        );
        assert.equal(res.status, 201, await res.clone().text());
        const { sessionId } = (await res.json()) as { sessionId: string };
        let session: any;
        let cancelled = false;
        await waitFor(
          async () => {
            await healthy();
            if (model.holdingSilence && !cancelled) {
              // A model that says nothing ends at the wall-time budget, 10 s at least: cancelled sooner, health having answered meanwhile.
              cancelled = true;
              assert.equal((await fetch(`${hosted.url}${SESSION}/${sessionId}/cancel`, { method: 'POST', headers: bearer(key) })).status, 200);
            }
            const answer = await fetch(`${hosted.url}${SESSION}/${sessionId}`, { headers: bearer(key) });
            const text = await answer.text();
            assert.equal(answer.status, 200, `the session answers: ${text.slice(0, 300)}`);
            assert.ok(Buffer.byteLength(text) <= MAX_ANSWER_BYTES, `a session answer of ${Buffer.byteLength(text)} bytes, more than loom composer reads`);
            session = JSON.parse(text);
            return ['completed', 'failed', 'cancelled'].includes(session.status);
          },
          2 * WAIT_LIMIT_MS,
          'the end of the session',
        );
        await healthy();

        assert.ok(session.status !== 'cancelled' || cancelled, `cancelled, though nobody cancelled it: ${session.error}`);
        if (session.error !== null && session.error !== undefined) {
          assert.ok(session.error.length <= ERROR_CHARS, `an error of ${session.error.length} characters`);
          assert.ok(!session.error.includes(dataDir), `a server folder in ${session.error}`);
        }
        if (session.plan) assert.ok(session.plan.summary.length <= 4040 && session.plan.steps.length <= 200, 'the plan is bounded');
        const events = await fetch(`${hosted.url}${SESSION}/${sessionId}/events`, { headers: bearer(key) });
        assert.equal(events.status, 200);
        for (const block of (await events.text()).split('\n\n')) {
          assert.ok(Buffer.byteLength(block) <= MAX_EVENT_BYTES, `an event of ${Buffer.byteLength(block)} bytes, more than loom composer reads`);
          assert.ok(!block.includes(dataDir), `a server folder in an event: ${block.slice(0, 300)}`);
        }

        assert.deepEqual(model.leaks, [], 'what reached the model');
        assert.deepEqual(treeChanges(before.data, dataState()), [], 'changes in the data dir');
        assert.deepEqual(repoState(), before.repo, "the registered repository's hooks and config");
        assert.deepEqual(composerHooks(), [], "hooks in the composer's clones");
        assert.equal(fs.readFileSync(path.join(dataDir, 'composer', 'canary.txt'), 'utf8'), `${canary}\n`);
        assert.deepEqual([...findNamed(dataDir, 'pwned'), ...(repository ? findNamed(path.dirname(repository.bare), 'pwned') : [])], [], 'a command ran');
      },
    );
  }
}
