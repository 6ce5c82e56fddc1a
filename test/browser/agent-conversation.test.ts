// The agents panel as a conversation, end to end in a real browser (Debian's chromium, driven by
// playwright-core) against the real local server with settings.json pointing agents at the
// scripted OpenAI-compatible model on loopback: start a task from the composer (no glob: the
// workspace), see the thread (the message, the tool calls folded, the agent's words) and the
// change as a diff (@codemirror/merge), reject one hunk and accept the other (the file on disk
// holds exactly the kept one), send a follow-up that continues the same task (same id, more
// steps, its change reviewed again), then reject everything that is left; a new conversation
// whose agent asks to run a command shows the request with its buttons, and Deny goes on. In light and dark.
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { calls, MATH, says } from '../core/agents/support.ts';
import { axeFindings, chromiumAvailable, launchChromium, openSignedIn, pageProblems, screenshotFolder } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const available = chromiumAvailable('the agents panel');
const TOKEN = 'loom_agent_window_token_0123456789abcdef';
const SHOTS = screenshotFolder();

/** The task's two edits: add's operands swapped (line 2), sub's result negated twice (line 6). */
const ADD_EDIT = ['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }] as const;
const SUB_EDIT = ['edit_file', { path: 'src/math.ts', search: '  return a - b;\n', replace: '  return -(b - a);\n' }] as const;
const SUB_KEPT = MATH.replace('a - b', '-(b - a)');

describe('the agents panel: a conversation with a review', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  let fake: FakeOpenAi;
  const problems: string[] = [];
  const file = () => fs.readFileSync(path.join(local.workspace, 'src/math.ts'), 'utf8');
  const tasks = async () => (await local.request('GET', '/api/agent/tasks')).json.tasks as any[];

  /** axe over the page as it is: no serious or critical violation (the conversation, the review, light and dark). */
  const accessible = async (view: string) => assert.deepEqual((await axeFindings(page)).serious, [], view);

  before(async () => {
    fake = await startFakeOpenAi();
    local = await startTestLocal({
      files: { 'src/math.ts': MATH, 'README.md': '# demo\n' },
      settings: {
        apiToken: TOKEN,
        rateLimits: { default: 100_000 },
        completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } },
      },
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: 'light', bypassCSP: true });
    page = await context.newPage();
    // bypassCSP: axe comes in past the page's CSP, for this test alone.
    // A guard against hangs, not a measurement: a loaded machine can be slow to render.
    page.setDefaultTimeout(60_000);
    // The workspace is not a repository: the git panel's status is refused, as it should be.
    pageProblems(page, [/status of 409 .*\/api\/git\/status$/], problems);
    await openSignedIn(page, local.signInLink());
  });
  after(async () => {
    await browser?.close();
    await local?.close();
    await fake?.close();
  });

  it('starts a task from the composer, with the workspace as its scope, and shows the conversation', async () => {
    fake.chat.queue(calls([...ADD_EDIT], [...SUB_EDIT]), says('Swapped add and rewrote sub.'));
    await page.locator('#panel-agents').click();
    await page.locator('#agent-scope', { hasText: 'any file of the workspace' }).waitFor();
    await page.locator('#agent-task').fill('Swap add and rewrite sub');
    await page.locator('#agent-send').click();
    await page.locator('#agent-state', { hasText: 'completed' }).waitFor();

    const [task] = await tasks();
    assert.deepEqual([task.files, task.task], [['**'], 'Swap add and rewrite sub']);
    const thread = page.getByRole('log', { name: 'Conversation' });
    assert.deepEqual(await thread.locator('.agent-message.user .agent-text').allInnerTexts(), ['Swap add and rewrite sub']);
    assert.match(await thread.locator('.agent-work summary').innerText(), /2 tool calls: edit_file/);
    assert.equal(await thread.locator('.agent-work').getAttribute('open'), null, 'the tool calls are folded');
    assert.deepEqual(await thread.locator('.agent-message.agent .agent-text').allInnerTexts(), ['Swapped add and rewrote sub.']);
    await page.locator('#agent-send', { hasText: 'Continue' }).waitFor();
  });

  it('shows the change as a diff; rejecting one hunk and accepting the other leaves exactly the kept hunk on disk', async () => {
    const card = page.locator('.agent-file[data-file="src/math.ts"]');
    await card.locator('.cm-deletedChunk').nth(1).waitFor();
    assert.equal(await card.locator('.cm-deletedChunk').count(), 2, 'two changes');
    assert.match(await card.locator('.cm-deletedChunk').nth(0).innerText(), /return a \+ b;/);
    assert.match(await card.locator('.cm-content').innerText(), /return b \+ a;/);
    await page.screenshot({ path: path.join(SHOTS, 'agent-review-light.png') });
    await accessible('the conversation and its review, light');

    // Reject add's change: the server undoes that hunk only.
    await card.getByRole('button', { name: 'Reject this change to src/math.ts' }).first().click();
    await waitFor(() => file() === SUB_KEPT, undefined, 'the first hunk undone on disk');
    await waitFor(async () => (await card.locator('.cm-deletedChunk').count()) === 1, undefined, 'one change left to review');
    assert.match(await card.locator('.cm-deletedChunk').innerText(), /return a - b;/);

    // Accept sub's: nothing to write, the file leaves the review.
    await card.getByRole('button', { name: 'Accept this change to src/math.ts' }).click();
    await page.locator('.agent-file.reviewed[data-file="src/math.ts"]').waitFor();
    await page.locator('#agent-review-left', { hasText: 'all reviewed' }).waitFor();
    assert.equal(file(), SUB_KEPT);
    const status = (await local.request('GET', `/api/agent/status/${(await tasks())[0].taskId}`)).json;
    assert.doesNotMatch(status.changes[0].diff, /b \+ a/, 'the task’s change is what was kept');
  });

  it('continues the same task with a follow-up message: same id, more steps, its change to review', async () => {
    const [before] = await tasks();
    await page.emulateMedia({ colorScheme: 'dark' });
    fake.chat.queue(
      calls(['read_file', { path: 'src/math.ts' }]),
      calls([
        'edit_file',
        {
          path: 'src/math.ts',
          search: 'export function sub(a: number, b: number): number {\n',
          replace: 'export function difference(a: number, b: number): number {\n',
        },
      ]),
      says('Renamed sub to difference.'),
    );
    await page.locator('#agent-task').fill('Now rename sub to difference');
    await page.locator('#agent-send').click();
    await page.locator('.agent-message.agent', { hasText: 'Renamed sub to difference.' }).waitFor();
    await page.locator('#agent-state', { hasText: 'completed' }).waitFor();

    const after = await tasks();
    assert.equal(after.length, 1, 'no new task');
    assert.equal(after[0].taskId, before.taskId);
    assert.ok(after[0].steps > before.steps, `${after[0].steps} steps after ${before.steps}`);
    assert.equal(after[0].conversation.length, 2);
    assert.deepEqual(await page.locator('.agent-message.user .agent-text').allInnerTexts(), ['Swap add and rewrite sub', 'Now rename sub to difference']);
    assert.equal(await page.locator('.agent-task').count(), 1);
    assert.equal(file(), SUB_KEPT.replace('function sub', 'function difference'));

    const card = page.locator('.agent-file[data-file="src/math.ts"]');
    await card.locator('.cm-deletedChunk').first().waitFor();
    assert.match(await card.locator('.cm-deletedChunk').first().innerText(), /function sub/);
    await page.screenshot({ path: path.join(SHOTS, 'agent-review-dark.png') });
    await accessible('the conversation and its review, dark');

    // Reject all: what is left of the task goes, the file is as before it.
    await page.locator('#agent-reject-all').click();
    await waitFor(() => file() === MATH, undefined, 'the file as before the task');
    await waitFor(async () => (await page.locator('.agent-file').count()) === 0, undefined, 'nothing left to review');
  });

  it('asks before a command it may not run: a new conversation, the request in the thread with its buttons, Deny goes on without it', async () => {
    fake.chat.queue(calls(['run_command', { command: 'node --version' }]), says('I could not check the version.'));
    await page.locator('#agent-new').click();
    await page.locator('#agent-scope', { hasText: 'A new task' }).waitFor();
    await page.locator('#agent-task').fill('Check the node version');
    await page.locator('#agent-task').press('Enter');
    const approval = page.getByRole('group', { name: 'The agent asks to run a command' });
    await approval.waitFor();
    assert.equal(await approval.locator('.agent-command').innerText(), 'node --version');
    await accessible('a request to approve');
    await page.locator('#agent-state', { hasText: 'waiting for your approval' }).waitFor();
    assert.equal(await page.locator('#agent-send').isDisabled(), true, 'no message while it works');
    await page.locator('#agent-deny').click();
    await page.locator('.agent-message.agent', { hasText: 'I could not check the version.' }).waitFor();
    await page.locator('#agent-state', { hasText: 'completed' }).waitFor();
    assert.equal(await approval.count(), 0);
    assert.equal((await tasks()).length, 2, 'a second conversation');
    assert.equal(await page.locator('.agent-task').count(), 2);
    assert.deepEqual(problems, []);
  });
});
