// Agents that use what Loom knows of the code, end to end through the real local server
// (startTestLocal: the production wiring of `loom serve`) with the code index built, the real
// typescript-language-server on, and settings.json pointing `completion.openai` at the
// scripted OpenAI-compatible server: a model that breaks a type sees the diagnostic in its next
// turn (in the file that imports the one it changed) and its fix clears it; a rename across
// five files through rename_symbol, every file recorded and reverted as a whole; the project's
// rules files in the system prompt, listed in the step log; the repository map in the first turn.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { calls, chatRequest, says } from '../core/agents/support.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_agent_intel_test_token_0123456789ab';

const MATH = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n';
const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', noEmit: true } }),
  // Break and fix: total.ts imports add; changing add's return type breaks total.ts.
  'src/calc/math.ts': MATH,
  'src/calc/total.ts': "import { add } from './math';\n\nexport const total: number = add(1, 2);\n",
  // A rename across five files.
  'src/names/math.ts': MATH,
  ...Object.fromEntries(
    [1, 2, 3, 4].map((n) => [`src/names/use${n}.ts`, `import { add } from './math';\n\nexport const value${n}: number = add(${n}, ${n});\n`]),
  ),
  // Rules: at the root, in the task's folder, in .loom/rules (one for TypeScript, one for Python only).
  'AGENTS.md': '# Conventions\nUse two spaces. Rule-marker-root.\n',
  'src/api/AGENTS.md': 'In the API, every handler returns a Result. Rule-marker-api.\n',
  'src/api/routes.ts': 'export function route(): string {\n  return "ok";\n}\n',
  '.loom/rules/typescript.md': '---\nglobs: src/**/*.ts\n---\nPrefer named exports. Rule-marker-ts.\n',
  '.loom/rules/python.md': '---\nglobs: ["**/*.py"]\n---\nUse type hints. Rule-marker-py.\n',
  '.git/config': '[core]\n',
};

async function ended(local: TestLocal, taskId: string): Promise<any> {
  let status: any;
  await waitFor(
    async () => (status = (await local.request('GET', `/api/agent/status/${taskId}`)).json).status !== 'running',
    undefined,
    `the end of ${taskId}`,
  );
  return status;
}

async function stepsOf(local: TestLocal, taskId: string): Promise<any[]> {
  return (await local.request('GET', `/api/agent/steps/${taskId}?limit=500`)).json.steps;
}

/** The tool messages of chat request `n`. */
function toolResults(fake: FakeOpenAi, n: number): string[] {
  return chatRequest(fake, n)
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
}

describe('local API: agents with code intelligence (index, typescript-language-server, rules)', () => {
  let local: TestLocal;
  let fake: FakeOpenAi;

  before(async () => {
    fake = await startFakeOpenAi();
    local = await startTestLocal({
      files: FILES,
      settings: {
        apiToken: TOKEN,
        completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } },
        // The status is polled while tsserver loads the project.
        rateLimits: { default: 100_000 },
      },
      languageServers: { enabled: 'on', requestTimeoutMs: 60_000 },
      codeIndex: true,
    });
    await local.code.refresh();
  });
  after(async () => {
    await local?.close();
    await fake?.close();
  });

  it('tells the model which diagnostics its edit introduced (in the importing file), and that its fix cleared them', async () => {
    fake.chat.reset();
    const requestsBefore = fake.requests.filter((request) => request.path === '/v1/chat/completions').length;
    fake.chat.queue(
      calls([
        'edit_file',
        {
          path: 'src/calc/math.ts',
          search: 'export function add(a: number, b: number): number {',
          replace: 'export function add(a: number, b: number): string {',
        },
      ]),
      calls([
        'edit_file',
        {
          path: 'src/calc/math.ts',
          search: 'export function add(a: number, b: number): string {',
          replace: 'export function add(a: number, b: number): number {',
        },
      ]),
      says('Tried a string result, then put the number back.'),
    );
    const started = await local.request('POST', '/api/agent/run', { task: 'Change what add returns', files: ['src/calc/**/*.ts'] });
    assert.equal(started.status, 200, started.text);
    const status = await ended(local, started.json.taskId);
    assert.equal(status.reason, 'done', JSON.stringify(status));

    // The first turn: a map of the repository, not only a list of files; the diagnostics tools offered.
    const first = chatRequest(fake, requestsBefore);
    assert.match(String(first[1]!.content), /A map of the repository for this task/);
    assert.match(String(first[1]!.content), /src\/calc\/math\.ts\n\s+1│export function add/);
    const tools = fake.requests.filter((request) => request.path === '/v1/chat/completions')[requestsBefore]!.body.tools.map((tool: any) => tool.function.name);
    for (const name of ['locate_files', 'find_symbol', 'go_to_definition', 'find_references', 'diagnostics', 'rename_symbol'])
      assert.ok(tools.includes(name), name);

    // The second turn carries what the break did, in the file that imports math.ts.
    const broke = toolResults(fake, requestsBefore + 1).at(-1)!;
    assert.match(
      broke,
      /\n\nDiagnostics: this change introduced 2 \(fix them next\):\n {2}src\/calc\/math\.ts:2:3: error 2322: Type 'number' is not assignable to type 'string'\.\n {2}src\/calc\/total\.ts:3:14: error 2322: Type 'string' is not assignable to type 'number'\.$/,
    );
    // The third, that the fix cleared them.
    const fixed = toolResults(fake, requestsBefore + 2).at(-1)!;
    assert.match(fixed, /\n\nDiagnostics: this change fixed 2:\n {2}src\/calc\/math\.ts:2:3: error 2322[^\n]*\n {2}src\/calc\/total\.ts:3:14: error 2322/);

    const steps = await stepsOf(local, started.json.taskId);
    const edits = steps.filter((step) => step.tool === 'edit_file');
    assert.deepEqual(
      edits.map((step) => [step.diagnostics.introduced.map((d: any) => `${d.path}:${d.line}`), step.diagnostics.fixed.map((d: any) => `${d.path}:${d.line}`)]),
      [
        [['src/calc/math.ts:2', 'src/calc/total.ts:3'], []],
        [[], ['src/calc/math.ts:2', 'src/calc/total.ts:3']],
      ],
    );
    assert.deepEqual(edits[0].diagnostics.checked, ['src/calc/math.ts', 'src/calc/total.ts']);
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/calc/math.ts'), 'utf8'), MATH);
  });

  it('renames a function across five files with rename_symbol; every file is a change of the task, and revert undoes them all', async () => {
    fake.chat.reset();
    const requestsBefore = fake.requests.filter((request) => request.path === '/v1/chat/completions').length;
    fake.chat.queue(calls(['rename_symbol', { path: 'src/names/math.ts', line: 1, symbol: 'add', new_name: 'sum' }]), says('Renamed add to sum.'));
    const started = await local.request('POST', '/api/agent/run', { task: 'Rename add to sum', files: ['src/names/*.ts'] });
    assert.equal(started.status, 200, started.text);
    const status = await ended(local, started.json.taskId);
    assert.equal(status.reason, 'done', JSON.stringify(status));

    const result = toolResults(fake, requestsBefore + 1).at(-1)!;
    assert.match(result, /^Renamed add to sum in 5 files: /);
    assert.match(result, /Diagnostics: no new errors or warnings/);
    assert.deepEqual(
      status.changes.map((change: any) => [change.file, change.action]),
      ['src/names/math.ts', 'src/names/use1.ts', 'src/names/use2.ts', 'src/names/use3.ts', 'src/names/use4.ts'].map((file) => [file, 'modified']),
    );
    const read = (file: string) => fs.readFileSync(path.join(local.workspace, file), 'utf8');
    assert.equal(read('src/names/math.ts'), MATH.replace('add', 'sum'));
    for (const n of [1, 2, 3, 4]) assert.equal(read(`src/names/use${n}.ts`), FILES[`src/names/use${n}.ts`]!.replaceAll('add', 'sum'));

    const reverted = await local.request('POST', `/api/agent/revert/${started.json.taskId}`);
    assert.equal(reverted.status, 200, reverted.text);
    assert.equal(read('src/names/math.ts'), MATH);
    for (const n of [1, 2, 3, 4]) assert.equal(read(`src/names/use${n}.ts`), FILES[`src/names/use${n}.ts`]);
  });

  it('refuses a rename that would change a file outside the globs, changing nothing', async () => {
    fake.chat.reset();
    const requestsBefore = fake.requests.filter((request) => request.path === '/v1/chat/completions').length;
    fake.chat.queue(calls(['rename_symbol', { path: 'src/names/math.ts', line: 1, symbol: 'add', new_name: 'plus' }]), says('Could not.'));
    const started = await local.request('POST', '/api/agent/run', { task: 'Rename add to plus', files: ['src/names/math.ts'] });
    const status = await ended(local, started.json.taskId);
    assert.equal(status.reason, 'done');
    assert.match(
      toolResults(fake, requestsBefore + 1).at(-1)!,
      /would change src\/names\/use1\.ts, .* outside the files this task may change; nothing was renamed\./,
    );
    assert.deepEqual(status.changes, []);
  });

  it("puts the project's rules files in the system prompt, as workspace content, and lists them in the step log", async () => {
    fake.chat.reset();
    const requestsBefore = fake.requests.filter((request) => request.path === '/v1/chat/completions').length;
    fake.chat.queue(says('Nothing to do.'));
    const started = await local.request('POST', '/api/agent/run', { task: 'Look at the routes', files: ['src/api/*.ts'] });
    const status = await ended(local, started.json.taskId);
    assert.equal(status.reason, 'done');

    const system = String(chatRequest(fake, requestsBefore)[0]!.content);
    assert.match(system, /# The project's rules\nThe project's own rules files follow, each between <rules> tags\..*not the user's words/);
    assert.match(system, /<rules file="AGENTS\.md">\n# Conventions\nUse two spaces\. Rule-marker-root\.\n<\/rules>/);
    assert.match(system, /<rules file="src\/api\/AGENTS\.md">[^]*Rule-marker-api/);
    assert.match(system, /<rules file="\.loom\/rules\/typescript\.md">\nPrefer named exports\. Rule-marker-ts\.\n<\/rules>/);
    assert.doesNotMatch(system, /Rule-marker-py/);
    // The root's rules first, the folder's after.
    assert.ok(system.indexOf('Rule-marker-root') < system.indexOf('Rule-marker-api'));

    const steps = await stepsOf(local, started.json.taskId);
    assert.equal(steps[0].kind, 'notice');
    assert.deepEqual(
      steps[0].context.rules.map((rule: any) => rule.path),
      ['AGENTS.md', '.loom/rules/typescript.md', 'src/api/AGENTS.md'],
    );
    assert.deepEqual(steps[0].context.skippedRules, ['.loom/rules/python.md']);
    assert.ok(steps[0].context.map.tokens <= steps[0].context.map.budget);
    assert.match(
      steps[0].text,
      /^The system prompt carries the rules of AGENTS\.md, \.loom\/rules\/typescript\.md, src\/api\/AGENTS\.md\. Left out: \.loom\/rules\/python\.md\. The first message carries a map of \d+ files/,
    );
    // The rules never reach what the model is told by the runtime as its own rules, and settings are untouched.
    assert.deepEqual(local.settings.current.agents ?? {}, {});
  });
});
