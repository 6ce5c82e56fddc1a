// The layer rule (lint/layers.js, from lint/layers.json) through ESLint with the project's own
// config: an import against the layers (a folder of src/, or a package or Node module the layer
// does not name) fails the lint; what the layers allow passes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { architectureTables, packageOf } from '../../lint/layers.js';
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
      /src\/core may import src\/contracts, src\/matching, not src\/hosted \(lint\/layers\.json, "layers" → "core" → "imports"\)/,
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
      'core importing a model provider',
      'src/core/completion/probe.ts',
      "import { OpenAiProvider } from '../../adapters/models/openai.ts';",
      /src\/core may import src\/contracts, src\/matching, not src\/adapters/,
    ],
    ['src importing a test helper', 'src/core/probe.ts', "import { waitFor } from '../../test/support/wait.ts';", /never imports from outside src/],
    ['a folder the layers do not list', 'src/widgets/probe.ts', "import { LoomError } from '../core/errors.ts';", /src\/widgets is not in lint\/layers.json/],
    [
      'core spawning a process',
      'src/core/text/probe.ts',
      "import { spawn } from 'node:child_process';",
      /src\/core may not import node:child_process: its packages are .*\(lint\/layers\.json, "layers" → "core" → "packages"/,
    ],
    ['core reading files by a bare builtin name', 'src/core/probe.ts', "import fs from 'fs';", /src\/core may not import node:fs/],
    ['core reading files through a subpath', 'src/core/identity/probe.ts', "import { readFile } from 'node:fs/promises';", /src\/core may not import node:fs/],
    ['core opening a socket', 'src/core/probe.ts', "import net from 'node:net';", /src\/core may not import node:net/],
    ['core reaching for the database', 'src/core/identity/probe.ts', "import { Kysely } from 'kysely';", /src\/core may not import kysely/],
    ['core reaching for the framework', 'src/core/probe.ts', "import type { FastifyRequest } from 'fastify';", /src\/core may not import fastify/],
    [
      'core loading a model runtime, dynamically',
      'src/core/probe.ts',
      "export const load = () => import('node-llama-cpp');",
      /src\/core may not import node-llama-cpp/,
    ],
    [
      'contracts importing anything but TypeBox',
      'src/contracts/probe.ts',
      "import YAML from 'yaml';",
      /src\/contracts may not import yaml: its packages are typebox/,
    ],
    ['the window importing Node', 'src/web/editor/probe.ts', "import path from 'node:path';", /src\/web may not import node:path/],
    [
      'the window importing core',
      'src/web/panels/probe.ts',
      "import { LoomError } from '../../core/errors.ts';",
      /src\/web may import src\/matching; types only from src\/contracts, not src\/core/,
    ],
    [
      'the shared matching importing core',
      'src/matching/probe.ts',
      "import { LoomError } from '../core/errors.ts';",
      /src\/matching may import nothing of ours/,
    ],
    ['the store importing the framework', 'src/store/probe.ts', "export type { FastifyInstance } from 'fastify';", /src\/store may not import fastify/],
    [
      'a folder using the exception of its neighbour',
      'src/core/agents/loop/probe.ts',
      "import { spawn } from 'node:child_process';",
      /src\/core may not import node:child_process/,
    ],
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
    ['the window importing the matching it shares with the server', 'src/web/panels/probe.ts', "import { PathSearch } from '../../matching/path-search.ts';"],
    ['config importing a core type', 'src/config/probe.ts', "import type { CompletionConfig } from '../core/completion/config.ts';"],
    ['http importing a config type', 'src/http/probe.ts', "import type { ConnectionLimits } from '../config/load.ts';"],
    [
      'a model provider importing the completion interface',
      'src/adapters/models/probe.ts',
      "import type { CompletionProvider } from '../../core/completion/provider.ts';",
    ],
    [
      'compose importing core, config and store',
      'src/compose/probe.ts',
      "import { openStore } from '../store/index.ts';\nimport { loadConfig } from '../config/load.ts';\nimport { EventBus } from '../core/events/bus.ts';",
    ],
    ['cli importing both servers', 'src/cli/probe.ts', "import { startHosted } from '../hosted/server.ts';\nimport { startLocal } from '../local/server.ts';"],
    [
      'the packages and Node modules of its layer',
      'src/core/probe.ts',
      "import { createHash } from 'node:crypto';\nimport path from 'node:path';\nimport { Type } from 'typebox';",
    ],
    ["a type-only import from its layer's typePackages", 'src/core/language/probe.ts', "import type * as lsp from 'vscode-languageserver-protocol';"],
    ['the window importing a CodeMirror package by its scope', 'src/web/editor/probe.ts', "import { EditorView } from '@codemirror/view';"],
    [
      'an I/O layer importing any Node module',
      'src/adapters/probe.ts',
      "import { spawn } from 'node:child_process';\nimport { Worker } from 'node:worker_threads';",
    ],
    ['a folder of core its exception lets do I/O', 'src/core/workspace/probe.ts', "import fs from 'node:fs';"],
    ['a file of core its exception names', 'src/core/agents/tools/run-command.ts', "import { spawn } from 'node:child_process';"],
    ['a test importing any package', 'test/probe.test.ts', "import { spawn } from 'node:child_process';\nimport Fastify from 'fastify';"],
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
    assert.match(
      run.stdout,
      /src\/core may import src\/contracts, src\/matching, not src\/hosted \(lint\/layers\.json, "layers" → "core" → "imports"\)\s+layers\/imports/,
    );
  });

  it('fails `eslint` on a file in src/core that spawns a process, naming the layer, the import and where the rule is', async (t) => {
    const probe = path.join(ROOT, 'src', 'core', `lint-probe-${randomBytes(4).toString('hex')}.ts`);
    fs.writeFileSync(probe, "import { execFile } from 'node:child_process';\n\nexport const run = execFile;\n");
    t.after(() => fs.rmSync(probe, { force: true }));
    const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--max-warnings', '0', probe], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /1:1\s+error\s+src\/core may not import node:child_process: .*"layers" → "core" → "packages".*layers\/imports/);
  });

  it('names a package by its name and a Node module by its node: name', () => {
    assert.equal(packageOf('node:fs/promises'), 'node:fs');
    assert.equal(packageOf('fs'), 'node:fs');
    assert.equal(packageOf('child_process'), 'node:child_process');
    assert.equal(packageOf('@codemirror/view'), '@codemirror/view');
    assert.equal(packageOf('@modelcontextprotocol/sdk/types.js'), '@modelcontextprotocol/sdk');
    assert.equal(packageOf('yaml/util'), 'yaml');
    assert.equal(packageOf('./local.ts'), undefined);
    assert.equal(packageOf('../core/errors.ts'), undefined);
  });

  it('lists an existing folder or file of src/ for each exception, with its reason', async () => {
    const layers = JSON.parse(fs.readFileSync(path.join(ROOT, 'lint', 'layers.json'), 'utf8'));
    for (const exception of layers.exceptions) {
      assert.ok(fs.existsSync(path.join(ROOT, 'src', exception.path)), `lint/layers.json names src/${exception.path}, which is gone: remove its exception`);
      assert.ok(exception.why?.length > 20, `the exception for src/${exception.path} says why`);
    }
  });

  it("is docs/architecture.md's layers tables", () => {
    const written = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    assert.ok(
      written === fillTables(written, architectureTables(), 'docs/architecture.md'),
      'the layers tables of docs/architecture.md are out of date with lint/layers.json; run `npm run docs:architecture` and commit the result',
    );
  });
});
