// The shell examples of README.md and docs/, run as written on this checkout, each in bash from
// the repository's root with a clean environment (no Loom settings of the developer's):
// - a block marked `<!-- example: runs -->` needs no server; it runs on its own;
// - the blocks marked `<!-- example: runs with npm start -->` run while `npm start` (`loom up`,
//   this checkout as its workspace) runs, in one shell in the order of the file, as a reader
//   types them in a second terminal (TOKEN=… of one block serves the next). Their
//   `localhost:8080` and `:27432` are that server's ports, which the environment hands to the
//   CLI too (LOOM_HOSTED_PORT, LOOM_LOCAL_PORT).
// `loom` is on the PATH, as `npm link` puts it there. Each must exit 0; a `# → TEXT` comment
// says what the block's output shows, and it must.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { installedEnv, ROOT, startLoom, tempDir, type RunningLoom, unusedPort } from '../support/cli.ts';
import { waitFor } from '../support/wait.ts';

const RUNS = '<!-- example: runs -->';
const RUNS_WITH_SERVER = '<!-- example: runs with npm start -->';
/** Printed between two blocks run in one shell, to tell their outputs apart. */
const BETWEEN_BLOCKS = '--- end of a documentation example ---';

interface Example {
  file: string;
  line: number;
  script: string;
  /** What the output must contain: the `# → TEXT` comments. */
  shows: string[];
}

/** The ```sh blocks of a Markdown file right after `mark`. */
function examples(file: string, mark: string): Example[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== mark) continue;
    assert.equal(lines[i + 1], '```sh', `${file}:${i + 1}: ${mark} must be right before a \`\`\`sh block`);
    const end = lines.indexOf('```', i + 2);
    const body = lines.slice(i + 2, end);
    const shows = body.flatMap((text) => {
      const match = /(?:^|\s)# → (.+)$/.exec(text);
      return match ? [match[1]!.trim()] : [];
    });
    found.push({ file, line: i + 3, script: body.join('\n'), shows });
  }
  return found;
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `loom up` as `npm start` runs it, on ports of its own, once the builtin model has learned the
 * workspace (the server logs it): the README's completions are asked of a model that has.
 */
async function npmStart(t: TestContext, home: string): Promise<{ server: RunningLoom; env: NodeJS.ProcessEnv; hosted: string; local: string }> {
  for (let attempt = 1; ; attempt++) {
    const [hosted, local] = [String(await unusedPort()), String(await unusedPort())];
    const env = installedEnv(fs.mkdtempSync(path.join(home, 'attempt-')), { LOOM_HOSTED_PORT: hosted, LOOM_LOCAL_PORT: local });
    try {
      const server = await startLoom(t, ['up'], env);
      await waitFor(() => server.stdout().includes('the builtin model has learned the workspace'), 120_000, 'the workspace learned');
      return { server, env, hosted, local };
    } catch (error) {
      if (attempt === 5 || !/EADDRINUSE/.test((error as Error).message)) throw error;
    }
  }
}

/** README.md and every Markdown file under docs/: a marked example anywhere runs. */
const DOCUMENTS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name.split(path.sep).join('/')}`)
    .sort(),
];

describe('the documentation examples run as written', () => {
  it('the README marks examples of both kinds', () => {
    assert.ok(examples('README.md', RUNS).length > 0);
    assert.ok(examples('README.md', RUNS_WITH_SERVER).length > 0);
  });

  for (const file of DOCUMENTS) {
    for (const example of examples(file, RUNS)) {
      it(`${file}:${example.line}`, async (t: TestContext) => {
        const result = await bash(example.script, installedEnv(tempDir(t)));
        assert.equal(result.code, 0, `${example.script}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
        for (const text of example.shows)
          assert.ok(result.stdout.includes(text), `${file}:${example.line} should show ${JSON.stringify(text)}\nstdout: ${result.stdout}`);
      });
    }

    const found = examples(file, RUNS_WITH_SERVER);
    if (found.length === 0) continue;
    it(`${file}: the examples that need npm start, with it running`, async (t: TestContext) => {
      const { env, hosted, local } = await npmStart(t, tempDir(t));
      const onPorts = (script: string) => script.replaceAll(':8080', `:${hosted}`).replaceAll(':27432', `:${local}`);
      const script = found.map((example) => onPorts(example.script)).join(`\necho; echo '${BETWEEN_BLOCKS}'\n`);
      const result = await bash(script, env);
      const outputs = result.stdout.split(`${BETWEEN_BLOCKS}\n`);
      assert.equal(result.code, 0, `${file}: block ${outputs.length} of ${found.length} failed\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
      found.forEach((example, i) => {
        for (const text of example.shows)
          assert.ok(outputs[i]!.includes(text), `${file}:${example.line} should show ${JSON.stringify(text)}\nits output: ${outputs[i]}`);
      });
    });
  }
});
