// The layer rule (lint/layers.js, from lint/layers.json) through ESLint with the project's own
// config: an import against the layers fails the lint; what the layers allow passes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { layersTable } from '../../lint/layers.js';
import { fillTables } from '../../scripts/generated-tables.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The layer rule's messages for `code` as if it were the file at `file` (relative to the repository). */
async function layerProblems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.filter((message) => message.ruleId === 'layers/imports').map((message) => message.message);
}

describe('the layer rule', () => {
  const refused: [string, string, string, RegExp][] = [
    [
      'core importing hosted',
      'src/core/probe.ts',
      "import { buildHostedApp } from '../hosted/app.ts';",
      /src\/core may import src\/contracts, not src\/hosted/,
    ],
    ['core importing a config type', 'src/core/identity/probe.ts', "import type { LoomConfig } from '../../config/load.ts';", /not src\/config/],
    ['contracts importing core', 'src/contracts/probe.ts', "export { LoomError } from '../core/errors.ts';", /src\/contracts may import nothing of ours/],
    ['store importing http', 'src/store/probe.ts', "import { describeError } from '../http/errors.ts';", /not src\/http/],
    ['config importing core code', 'src/config/probe.ts', "import { LoomError } from '../core/errors.ts';", /types only from src\/core/],
    [
      'an inline type import, which still loads the module',
      'src/http/probe.ts',
      "import { type ConnectionLimits } from '../config/load.ts';",
      /not src\/config/,
    ],
    ['hosted importing local', 'src/hosted/routes/probe.ts', "import { startLocal } from '../../local/server.ts';", /not src\/local/],
    ['local importing hosted', 'src/local/probe.ts', "import { startHosted } from '../hosted/server.ts';", /not src\/hosted/],
    ['compose importing hosted', 'src/compose/probe.ts', "import { startHosted } from '../hosted/server.ts';", /not src\/hosted/],
    ['a dynamic import upward', 'src/core/probe.ts', "export const load = () => import('../cli/main.ts');", /not src\/cli/],
    [
      'completion importing a model provider',
      'src/core/completion/probe.ts',
      "import { OpenAiProvider } from '../models/openai.ts';",
      /src\/core\/completion never imports src\/core\/models/,
    ],
    ['src importing a test helper', 'src/core/probe.ts', "import { waitFor } from '../../test/support/wait.ts';", /never imports from outside src/],
    ['a folder the layers do not list', 'src/widgets/probe.ts', "import { LoomError } from '../core/errors.ts';", /src\/widgets is not in lint\/layers.json/],
  ];
  for (const [label, file, code, expected] of refused) {
    it(`refuses ${label}`, async () => {
      const problems = await layerProblems(file, code);
      assert.equal(problems.length, 1, `${file}: ${code} → ${JSON.stringify(problems)}`);
      assert.match(problems[0]!, expected);
    });
  }

  const allowed: [string, string, string][] = [
    ['core importing contracts', 'src/core/probe.ts', "import type { ErrorCode } from '../contracts/errors.ts';"],
    ['config importing a core type', 'src/config/probe.ts', "import type { CompletionConfig } from '../core/completion/config.ts';"],
    ['http importing a config type', 'src/http/probe.ts', "import type { ConnectionLimits } from '../config/load.ts';"],
    ['a model provider importing the completion interface', 'src/core/models/probe.ts', "import type { CompletionProvider } from '../completion/provider.ts';"],
    [
      'compose importing core, config and store',
      'src/compose/probe.ts',
      "import { openStore } from '../store/index.ts';\nimport { loadConfig } from '../config/load.ts';\nimport { EventBus } from '../core/events/bus.ts';",
    ],
    ['cli importing both servers', 'src/cli/probe.ts', "import { startHosted } from '../hosted/server.ts';\nimport { startLocal } from '../local/server.ts';"],
    ['packages and Node', 'src/core/probe.ts', "import fs from 'node:fs';\nimport { Type } from 'typebox';"],
    ['a test importing anything in src', 'test/probe.test.ts', "import { startHosted } from '../src/hosted/server.ts';"],
  ];
  for (const [label, file, code] of allowed) {
    it(`allows ${label}`, async () => {
      assert.deepEqual(await layerProblems(file, code), []);
    });
  }

  it('fails `eslint` (npm run lint) on a file in src/core that imports the hosted app', async (t) => {
    const probe = path.join(ROOT, 'src', 'core', `lint-probe-${randomBytes(4).toString('hex')}.ts`);
    fs.writeFileSync(probe, "import { buildHostedApp } from '../hosted/app.ts';\n\nexport const app = buildHostedApp;\n");
    t.after(() => fs.rmSync(probe, { force: true }));
    const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--max-warnings', '0', probe], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /src\/core may import src\/contracts, not src\/hosted \(lint\/layers\.json\)\s+layers\/imports/);
  });

  it("is docs/architecture.md's layers table", () => {
    const written = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    assert.ok(
      written === fillTables(written, new Map([['layers', layersTable()]]), 'docs/architecture.md'),
      'the layers table of docs/architecture.md is out of date with lint/layers.json; run `npm run docs:architecture` and commit the result',
    );
  });
});
