// The shell examples of README.md and docs/cli.md that need no running server, run as written on
// this checkout: each block marked `<!-- example: runs -->` runs in bash from the repository's
// root with a clean environment (no Loom settings of the developer's) and must exit 0; a
// `# → TEXT` comment says what its output shows, and it must.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { cleanEnv, ROOT, tempDir } from '../support/cli.ts';

const MARK = '<!-- example: runs -->';

interface Example {
  file: string;
  line: number;
  script: string;
  /** What the output must contain: the `# → TEXT` comments. */
  shows: string[];
}

/** The marked ```sh blocks of a Markdown file. */
function runnableExamples(file: string): Example[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== MARK) continue;
    assert.equal(lines[i + 1], '```sh', `${file}:${i + 1}: ${MARK} must be right before a \`\`\`sh block`);
    const end = lines.indexOf('```', i + 2);
    const body = lines.slice(i + 2, end);
    const shows = body.flatMap((text) => {
      const match = / # → (.+)$/.exec(text);
      return match ? [match[1]!.trim()] : [];
    });
    examples.push({ file, line: i + 3, script: body.join('\n'), shows });
  }
  return examples;
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

describe('the documentation examples run as written', () => {
  for (const file of ['README.md', 'docs/cli.md']) {
    const examples = runnableExamples(file);
    it(`${file} marks runnable examples`, () => assert.ok(examples.length > 0));
    for (const example of examples) {
      it(`${file}:${example.line}`, async (t: TestContext) => {
        const result = await bash(example.script, cleanEnv(tempDir(t)));
        assert.equal(result.code, 0, `${example.script}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
        for (const text of example.shows)
          assert.ok(result.stdout.includes(text), `${file}:${example.line} should show ${JSON.stringify(text)}\nstdout: ${result.stdout}`);
      });
    }
  }
});
