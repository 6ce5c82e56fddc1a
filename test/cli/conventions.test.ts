// The conventions every command follows (docs/cli.md, "Conventions"), checked on the real binary:
// --json everywhere, one parsable JSON answer; the documented exit codes; no colour or control
// codes on a pipe or with NO_COLOR; defaults in --help; shell completion scripts that the
// shells accept and that complete what the program has.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { commandTree } from '../../src/cli/commands/completion.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { buildProgram } from '../../src/cli/main.ts';
import { cleanEnv, hasStackTrace, runLoom, tempDir, type LoomResult } from '../support/cli.ts';

/** Commands whose output is not an answer: a shell script, or a protocol on stdio. */
const NOT_JSON = new Set(['loom completion', 'loom help', 'loom mcp']);

/** A port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function assertPlain(result: LoomResult, what: string): void {
  assert.doesNotMatch(result.stdout + result.stderr, /\x1b/, `${what}: an escape code`);
  assert.ok(!hasStackTrace(result.stderr), `${what}: a stack trace\n${result.stderr}`);
}

describe('loom conventions', () => {
  it('every command that answers takes --json', () => {
    const leaves = commandTree(buildProgram()).filter((node) => node.subcommands.length === 0 && !NOT_JSON.has(node.path));
    assert.ok(leaves.length > 30, `only ${leaves.length} commands`);
    const without = leaves.filter((node) => !node.options.some((option) => option.flags.includes('--json'))).map((node) => node.path);
    assert.deepEqual(without, []);
  });

  it('answers with one JSON value on stdout, with NO_COLOR and off a terminal nothing but text', async (t: TestContext) => {
    const home = tempDir(t);
    const env = cleanEnv(home, { NO_COLOR: '1' });
    const token = await runLoom(['token', '--json'], env);
    assert.equal(token.code, EXIT.ok, token.stderr);
    assert.match(JSON.parse(token.stdout).token, /^loom_/);

    const status = await runLoom(['status', '--json', '--port', String(await closedPort())], env);
    assert.equal(status.code, EXIT.ok, status.stderr);
    const report = JSON.parse(status.stdout);
    assert.equal(report.local.running, false);
    assert.equal(report.store.kind, 'sqlite');
    assert.deepEqual(report.signIns, []);

    const doctor = await runLoom(['doctor', '--json', '--port', '0'], env);
    const checks = JSON.parse(doctor.stdout);
    assert.equal(doctor.code, checks.ok ? EXIT.ok : EXIT.failure);
    assert.deepEqual(
      checks.checks.map((check: { name: string }) => check.name),
      ['node', 'git', 'store', 'local API', 'hosted API', 'models', 'chromium', 'sign-in', 'folders', 'cli'],
    );
    const signIn = checks.checks.find((check: { name: string }) => check.name === 'sign-in');
    assert.equal(signIn.state, 'warn');
    assert.match(signIn.fix, /LOOM_CODEHOST_CLIENT_ID/);

    const text = await runLoom(['doctor', '--port', '0'], env);
    const models = await runLoom(['models', 'list'], env);
    for (const [what, result] of Object.entries({ token, status, doctor, text, models })) assertPlain(result, what);
  });

  it('exits 2 for usage, 3 when the server is not there, 4 when a sign-in is needed; one line on stderr', async (t: TestContext) => {
    const home = tempDir(t);
    const env = cleanEnv(home);
    const port = String(await closedPort());
    const server = `http://127.0.0.1:${port}`;
    // A server that answers (its health), where no sign-in is stored: what is missing is the sign-in.
    const answering = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => answering.close(() => resolve())));
    const up = `http://127.0.0.1:${(answering.address() as net.AddressInfo).port}`;
    const cases: [string[], number][] = [
      [['nope'], EXIT.usage],
      [['agent', 'list', '--bogus'], EXIT.usage],
      [['complete'], EXIT.usage],
      [['complete', 'README.md:99999:1'], EXIT.usage],
      [['completion', 'tcsh'], EXIT.usage],
      [['downloads', 'list', '--platform', 'beos'], EXIT.usage],
      [['events', 'tail', '--type', 'file:explode'], EXIT.usage],
      [['agent', 'list', '--port', port], EXIT.unreachable],
      [['git', 'status', '--port', port], EXIT.unreachable],
      [['events', 'tail', '--port', port], EXIT.unreachable],
      [['downloads', 'list', '--server', server], EXIT.unreachable],
      [['feedback', 'send', '--subject', 'Hi', '--message', 'Hello', '--email', 'ada@example.com', '--server', server], EXIT.unreachable],
      // Nothing answers there: a sign-in would not help, so 3, not 4.
      [['whoami', '--server', server], EXIT.unreachable],
      [['composer', 'status', '00000000-0000-4000-8000-000000000000', '--server', server], EXIT.unreachable],
      [['whoami', '--server', up], EXIT.signInNeeded],
      [['composer', 'status', '00000000-0000-4000-8000-000000000000', '--server', up], EXIT.signInNeeded],
    ];
    for (const [args, code] of cases) {
      const result = await runLoom(args, env);
      assert.equal(result.code, code, `loom ${args.join(' ')}: ${result.stderr}`);
      assertPlain(result, args.join(' '));
      assert.match(result.stderr, /^loom: [^\n]+\n$/, `loom ${args.join(' ')}`);
    }
  });

  it("says a usage error in one line, with commander's suggestion and the --help to read", async (t: TestContext) => {
    const env = cleanEnv(tempDir(t));
    const cases: [string[], string][] = [
      [['stauts'], "loom: unknown command 'stauts' (did you mean status?); see loom --help\n"],
      [['status', '--jsno'], "loom: unknown option '--jsno' (did you mean --json?); see loom status --help\n"],
      [['agent', 'status'], "loom: missing required argument 'taskId'; see loom agent status --help\n"],
      [['admin', 'keys', 'create'], "loom: required option '--user <user>' not specified; see loom admin keys create --help\n"],
    ];
    for (const [args, stderr] of cases) {
      const result = await runLoom(args, env);
      assert.deepEqual({ code: result.code, stdout: result.stdout, stderr: result.stderr }, { code: EXIT.usage, stdout: '', stderr }, `loom ${args.join(' ')}`);
    }
  });

  it('shows each setting option with its environment variable and default in --help', async (t: TestContext) => {
    const help = await runLoom(['serve', '--help'], cleanEnv(tempDir(t)));
    assert.equal(help.code, 0);
    assert.match(help.stdout.replace(/\s+/g, ' '), /--port <value> .*\(env LOOM_LOCAL_PORT; default: 27432\)/);
  });
});

describe('loom completion', () => {
  function bash(script: string, line: string[]): string[] {
    const words = line.map((word) => `'${word}'`).join(' ');
    const program = `source /dev/stdin <<'LOOM'\n${script}\nLOOM\nCOMP_WORDS=(${words}); COMP_CWORD=${line.length - 1}; _loom; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['-c', program], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.split('\n').filter(Boolean);
  }

  it('bash: a valid script that completes commands, subcommands, options and choices', async (t: TestContext) => {
    const home = tempDir(t);
    const result = await runLoom(['completion', 'bash'], cleanEnv(home));
    assert.equal(result.code, 0, result.stderr);
    const file = path.join(home, 'loom.bash');
    fs.writeFileSync(file, result.stdout);
    assert.equal(spawnSync('bash', ['-n', file]).status, 0);
    const script = result.stdout;
    assert.deepEqual(bash(script, ['loom', 'adm']), ['admin']);
    assert.deepEqual(bash(script, ['loom', 'git', '']).sort(), ['branch', 'commit', 'pull', 'push', 'stage', 'status', 'switch', 'unstage']);
    assert.deepEqual(bash(script, ['loom', 'admin', 'keys', '']).sort(), ['create', 'list', 'revoke']);
    assert.deepEqual(bash(script, ['loom', 'downloads', 'list', '--platform', '']).sort(), ['all', 'linux', 'macos', 'windows']);
    assert.ok(bash(script, ['loom', 'git', 'commit', '--']).includes('--message'));
    // A value after an option is not taken for a command: `--port git` stays at the top.
    assert.deepEqual(bash(script, ['loom', 'status', '--port', 'git', '--j']), ['--json']);
  });

  for (const shell of ['zsh', 'fish'] as const) {
    it(`${shell}: a script the shell parses`, async (t: TestContext) => {
      const home = tempDir(t);
      const result = await runLoom(['completion', shell], cleanEnv(home));
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /git/);
      const file = path.join(home, `loom.${shell}`);
      fs.writeFileSync(file, result.stdout);
      const check = spawnSync(shell, shell === 'zsh' ? ['-n', file] : ['--no-execute', file], { encoding: 'utf8' });
      if (check.error && (check.error as NodeJS.ErrnoException).code === 'ENOENT') {
        if (process.env.CI === 'true') assert.fail(`${shell} is not installed`);
        t.diagnostic(`${shell} is not installed: only the script's generation is checked`);
        return;
      }
      assert.equal(check.status, 0, check.stderr);
    });
  }
});
