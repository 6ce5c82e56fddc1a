// A hostile model against `loom hosted`'s production wiring (startHosted, the in-process queue):
// for each seed, a composer session whose model is the scripted hostile server
// (test/support/hostile-model.ts), on attachments (a scratch copy under the data dir), in plan
// mode, or on a registered git workspace (a worktree whose .git is a file). For every seed
// (test/support/hostile-session.ts): /api/v1/health answers while the session runs, the session
// ends, its answer, events, error and plan are within what `loom composer` reads and name no
// server folder, nothing of the canaries in the data dir reaches the model, nothing in the data
// dir (but the store and the composer's working folders) or the registered repository's hooks
// and config changes, no hook appears in the composer's clones, no file named `pwned` appears.
// The seeds are printed; HOSTILE_SEED=<seed> replays one, HOSTILE_RUNS=<n> runs more.
import { after, before, describe, it } from 'node:test';
import { hostileSeeds } from '../support/hostile-checks.ts';
import { startHostileModel, type HostileModel } from '../support/hostile-model.ts';
import { hostileSession, sessionKind } from '../support/hostile-session.ts';
import { signedInUser } from '../support/oauth.ts';
import { startTestHosted } from '../support/hosted.ts';

const FILE = 'test/hosted/hostile-model.test.ts';
/** Seeds per run: each starts its own server (the provider learns a server's refusals, so a seed replays alone as it ran). */
const RUNS = 4;

describe('a hostile model (loom hosted, a composer session)', () => {
  let model: HostileModel;
  before(async () => {
    model = await startHostileModel();
  });
  after(() => model.close());

  for (const seed of hostileSeeds(RUNS)) {
    it(`seed ${seed} (${sessionKind(seed).label}): health answers, the session ends, nothing leaks or changes outside`, async (t) => {
      const hosted = await startTestHosted({
        completion: { provider: 'openai', openai: { baseUrl: model.baseUrl, model: 'hostile', fim: 'off' } },
        agents: { maxSteps: 12 },
      });
      t.after(() => hosted.close());
      const user = await signedInUser(hosted, 'hostile@example.com');
      const key = (await hosted.identity.apiKeys.create(user.user.id, { name: 'cli', expiresInDays: 1 })).key;
      await hostileSession({ t, file: FILE, seed, model, hosted, key, dataDir: hosted.dataDir });
    });
  }
});
