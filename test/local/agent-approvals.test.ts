// Asking before a command, end to end on the real server (`startLocal`) with the scripted model:
// a command not in settings.json's `agents.commands` pauses the task and emits agent:approval;
// only the window signed in by its one-time link may answer (the user at the keyboard) — the API
// token is 403 WINDOW_REQUIRED and nothing runs, and so is a window signed in with the token;
// approving needs a trusted workspace; "once" runs it and the next call asks again, "always"
// writes settings.json and the next call runs without asking; "deny" and no answer in time tell
// the model, and the task goes on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { calls, says } from '../core/agents/support.ts';
import { ended, openEvents, signInWindow, startAgentLocal, type AgentLocal, type WindowHeaders } from '../support/agent-local.ts';
import { waitFor } from '../support/wait.ts';

/** Appends an x to ran.txt in the workspace: how many times it ran is on disk. */
const MARK = `node -e "require('fs').appendFileSync('ran.txt', 'x')"`;

interface Served extends AgentLocal {
  events: any[];
  /** The `n`-th request (1-based) of the task to approve a command, once emitted. */
  asked(taskId: string, n: number): Promise<{ approvalId: string; command: string; cwd: string; expiresAt: string }>;
  answer(taskId: string, body: unknown, headers: WindowHeaders): Promise<{ status: number; json: any }>;
}

async function serve(t: TestContext, settings: Record<string, unknown> = {}): Promise<Served> {
  const served = await startAgentLocal(t, { settings });
  const events = await openEvents(t, served.local);
  const asking = (taskId: string) => events.filter((event) => event.type === 'agent:approval' && event.data.taskId === taskId && !event.data.decision);
  return {
    ...served,
    events,
    asked: async (taskId, n) => {
      await waitFor(() => asking(taskId).length >= n, undefined, `approval request ${n}`);
      return asking(taskId)[n - 1].data;
    },
    answer: (taskId, body, headers) => served.local.request('POST', `/api/agent/approve/${taskId}`, body, headers),
  };
}

/** Trusts the workspace, from the window. */
async function trust(served: Served, window: WindowHeaders): Promise<void> {
  const trusted = await served.local.request('POST', '/api/workspace/trust', { trusted: true }, window);
  assert.equal(trusted.status, 200, trusted.text);
}

describe('local API: an agent asks before a command', () => {
  it('pauses the task and asks; the token and a token-signed window are refused and nothing runs; the window runs it once, asks again, and "always" writes settings.json', async (t) => {
    const served = await serve(t);
    const { local, fake, file } = served;
    fake.chat.queue(
      calls(['run_command', { command: MARK }]),
      calls(['run_command', { command: MARK }]),
      calls(['run_command', { command: MARK }]),
      says('Ran it three times.'),
    );
    const { taskId } = (await local.request('POST', '/api/agent/run', { task: 'Run the marker', files: ['src/**'] })).json;
    const asked = await served.asked(taskId, 1);
    assert.deepEqual([asked.command, asked.cwd], [MARK, fs.realpathSync(local.workspace)]);
    const waiting = (await local.request('GET', `/api/agent/status/${taskId}`)).json;
    assert.equal(waiting.status, 'running');
    assert.deepEqual([waiting.approval.approvalId, waiting.approval.command, waiting.approval.expiresAt], [asked.approvalId, MARK, asked.expiresAt]);

    // The bare API token — what scripts, extensions and MCP clients hold — never approves.
    const byToken = await served.answer(taskId, { approvalId: asked.approvalId, decision: 'once' }, {});
    assert.deepEqual([byToken.status, byToken.json.error.code], [403, 'WINDOW_REQUIRED']);
    assert.match(byToken.json.error.message, /the API token \(which scripts, extensions and MCP clients hold\) never may/);
    assert.match(byToken.json.error.hint, /loom serve --open/);
    // Nor does a window signed in with the token: anything holding the token could sign in so.
    const tokenWindow = await signInWindow(local, 'token');
    assert.equal((await local.request('GET', '/api/session', undefined, tokenWindow)).json.runsCode, false);
    const byTokenWindow = await served.answer(taskId, { approvalId: asked.approvalId, decision: 'always' }, tokenWindow);
    assert.deepEqual([byTokenWindow.status, byTokenWindow.json.error.code], [403, 'WINDOW_REQUIRED']);
    // The window signed in by its link, but without its CSRF value: a page elsewhere cannot approve.
    const window = await signInWindow(local, 'link');
    assert.equal((await local.request('GET', '/api/session', undefined, window)).json.runsCode, true);
    const noProof = await served.answer(taskId, { approvalId: asked.approvalId, decision: 'once' }, { ...window, 'x-loom-csrf': '' });
    assert.deepEqual([noProof.status, noProof.json.error.code], [403, 'FORBIDDEN']);
    // An untrusted workspace: approving would run its code.
    const untrusted = await served.answer(taskId, { approvalId: asked.approvalId, decision: 'once' }, window);
    assert.deepEqual([untrusted.status, untrusted.json.error.code], [403, 'WORKSPACE_UNTRUSTED']);
    assert.equal(file('ran.txt'), null, 'nothing ran');
    assert.equal((await local.request('GET', `/api/agent/status/${taskId}`)).json.approval.approvalId, asked.approvalId, 'still waiting');

    await trust(served, window);
    const once = await served.answer(taskId, { approvalId: asked.approvalId, decision: 'once' }, window);
    assert.equal(once.status, 200, JSON.stringify(once.json));
    assert.equal(once.json.approval, undefined);
    assert.equal((await served.answer(taskId, { approvalId: asked.approvalId, decision: 'once' }, window)).status, 404, 'answered once only');

    // "once" ran it; the next call asks again.
    const again = await served.asked(taskId, 2);
    assert.equal(file('ran.txt'), 'x');
    assert.notEqual(again.approvalId, asked.approvalId);
    // In a trusted workspace too, the token never approves.
    const trustedByToken = await served.answer(taskId, { approvalId: again.approvalId, decision: 'always' }, {});
    assert.deepEqual([trustedByToken.status, trustedByToken.json.error.code], [403, 'WINDOW_REQUIRED']);
    assert.equal(file('ran.txt'), 'x');
    const always = await served.answer(taskId, { approvalId: again.approvalId, decision: 'always' }, window);
    assert.equal(always.status, 200, JSON.stringify(always.json));
    const status = await ended(local, taskId);
    assert.deepEqual([status.status, status.reason], ['completed', 'done']);
    assert.equal(file('ran.txt'), 'xxx', 'the third call ran without asking');
    assert.equal(served.events.filter((event) => event.type === 'agent:approval' && !event.data.decision).length, 2);
    assert.deepEqual(
      served.events.filter((event) => event.type === 'agent:approval' && event.data.decision).map((event) => event.data.decision),
      ['once', 'always'],
    );
    const written = JSON.parse(fs.readFileSync(path.join(local.configDir, 'settings.json'), 'utf8'));
    assert.deepEqual(written.agents.commands, [MARK]);
    assert.equal(written.apiToken, local.token(), 'the rest of settings.json is kept');
    const results = (await local.request('GET', `/api/agent/steps/${taskId}`)).json.steps.filter((step: any) => step.tool === 'run_command');
    assert.deepEqual(
      results.map((step: any) => [step.ok, step.text.split('\n')[0]]),
      [
        [true, 'The user approved this command for this once.'],
        [true, 'The user approved this command, and it now runs without asking.'],
        [true, `$ ${MARK}`],
      ],
    );
  });

  it('deny: nothing runs, the model is told, and the task goes on', async (t) => {
    const served = await serve(t);
    const { local, fake, file } = served;
    fake.chat.queue(calls(['run_command', { command: MARK }]), says('I could not run it.'));
    const { taskId } = (await local.request('POST', '/api/agent/run', { task: 'Run the marker', files: ['src/**'] })).json;
    const asked = await served.asked(taskId, 1);
    const window = await signInWindow(local, 'link');
    // Deny needs no trust: it runs nothing.
    const denied = await served.answer(taskId, { approvalId: asked.approvalId, decision: 'deny' }, window);
    assert.equal(denied.status, 200, JSON.stringify(denied.json));
    const status = await ended(local, taskId);
    assert.deepEqual([status.status, status.reason, status.summary], ['completed', 'done', 'I could not run it.']);
    assert.equal(file('ran.txt'), null);
    const told = fake.requests.filter((request) => request.path === '/v1/chat/completions')[1]!.body.messages.at(-1).content;
    assert.match(told, /^The user did not approve "node -e \\"require\('fs'\)\.appendFileSync\('ran\.txt', 'x'\)\\""\. It was not run\./);
    const invalid = await served.answer(taskId, { approvalId: asked.approvalId, decision: 'sometimes' }, window);
    assert.equal(invalid.json.error.code, 'VALIDATION_ERROR');
  });

  it('no answer within agents.approvalTimeoutSeconds: denied, the model told, the task goes on', async (t) => {
    const served = await serve(t, { agents: { approvalTimeoutSeconds: 1 } });
    const { local, fake, file } = served;
    fake.chat.queue(calls(['run_command', { command: MARK }]), says('Could not run it.'));
    const { taskId } = (await local.request('POST', '/api/agent/run', { task: 'Run the marker', files: ['src/**'] })).json;
    await served.asked(taskId, 1);
    await waitFor(() => served.events.some((event) => event.type === 'agent:approval' && event.data.decision === 'expired'), undefined, 'the expiry');
    const status = await ended(local, taskId);
    assert.deepEqual([status.status, status.reason], ['completed', 'done']);
    assert.equal(file('ran.txt'), null);
    const told = fake.requests.filter((request) => request.path === '/v1/chat/completions')[1]!.body.messages.at(-1).content;
    assert.match(told, /^The user did not approve .*: there was no answer within 1 seconds\. It was not run\./);
  });
});
