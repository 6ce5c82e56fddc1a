// The CLI's start-up: the compiled build (scripts/build-cli.js) runs the same commands as the
// sources, loads no heavy package before a command runs, and bin/loom.js runs it only while it
// matches the sources file for file (bin/build-stamp.js). Timings are bench/cli.ts's job.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { cleanEnv, ROOT, tempDir } from '../support/cli.ts';

const run = promisify(execFile);

/** `node ARGS` in the checkout; resolves with its exit code and output, whatever the code. */
async function node(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = execFile(process.execPath, args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }, () => {});
  if (input !== undefined) child.stdin!.end(input);
  else child.stdin!.end();
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number>((resolve) => child.on('close', (exitCode) => resolve(exitCode ?? -1)));
  return { code, stdout, stderr };
}

describe('the compiled CLI', () => {
  it('loads no heavy package (servers, drivers, node-llama-cpp) before a command runs', async () => {
    const { stdout } = await run(process.execPath, ['scripts/build-cli.js', '--check'], { cwd: ROOT });
    // commander, bundled into the build, is all: it defines the commands.
    assert.equal(stdout.trim(), 'Packages every command loads: commander');
  });

  it('runs the commands as the sources do: help, version, catalog files beside the sources, stdin completion, doctor', async (t: TestContext) => {
    const home = tempDir(t);
    // Inside the checkout (dist/ is git-ignored): the bundle finds its packages in node_modules from where it is.
    const outdir = path.join(ROOT, 'dist', `test-build-${process.pid}-${Date.now()}`);
    t.after(() => fs.rmSync(outdir, { recursive: true, force: true }));
    await run(process.execPath, ['scripts/build-cli.js', '--outdir', outdir], { cwd: ROOT });
    const env = cleanEnv(home);
    const entry = pathToFileURL(path.join(outdir, 'main.js')).href;
    const loom = (args: string[], input?: string) =>
      node(
        [
          '--input-type=module',
          '-e',
          `const { main } = await import(${JSON.stringify(entry)}); await main(process.argv, { compiled: true });`,
          '--',
          'loom',
          ...args,
        ],
        env,
        input,
      );

    const help = await loom(['--help']);
    assert.equal(help.code, 0, help.stderr);
    for (const command of ['up', 'serve', 'status', 'doctor', 'git', 'events', 'downloads', 'feedback', 'completion'])
      assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`));
    // bin/loom.js prints the text the build rendered beside the code, while the build is current.
    assert.equal(fs.readFileSync(path.join(outdir, 'help.txt'), 'utf8'), help.stdout);
    const version = await loom(['--version']);
    assert.equal(version.stdout.trim(), JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    // The shipped catalog is found next to its source file, not next to the bundle.
    const models = await loom(['models', 'list', '--json']);
    assert.equal(models.code, 0, models.stderr);
    assert.ok(JSON.parse(models.stdout).length > 0);
    const completed = await loom(['complete', '--language', 'typescript', '--workspace', path.join(ROOT, 'src', 'config'), '--json'], "import fs from 'node:");
    assert.equal(completed.code, 0, completed.stderr);
    assert.equal(JSON.parse(completed.stdout).completion, "fs';");
    const doctor = await loom(['doctor', '--json']);
    const cli = JSON.parse(doctor.stdout).checks.find((check: { name: string }) => check.name === 'cli');
    assert.equal(cli.state, 'ok');
  });
});

describe('bin/loom.js runs the build only while it matches the sources', () => {
  /** freshCompiledEntry(root, env) of bin/build-stamp.js, in a child (it is plain JavaScript). */
  async function fresh(root: string, env: Record<string, string> = {}): Promise<string | null> {
    const module = pathToFileURL(path.join(ROOT, 'bin', 'build-stamp.js')).href;
    const code = `const m = await import(${JSON.stringify(module)}); console.log(JSON.stringify(m.freshCompiledEntry(${JSON.stringify(root)}, ${JSON.stringify(env)}) ?? null));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code]);
    return JSON.parse(stdout);
  }
  async function stamp(root: string): Promise<void> {
    const module = pathToFileURL(path.join(ROOT, 'bin', 'build-stamp.js')).href;
    const code = `const m = await import(${JSON.stringify(module)}); process.stdout.write(m.sourceListing(${JSON.stringify(root)}));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code]);
    fs.mkdirSync(path.join(root, 'dist', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dist', 'cli', 'build-stamp.txt'), stdout);
  }

  it('prints loom --help from the build, as commander prints it from the sources', async (t: TestContext) => {
    const env = cleanEnv(tempDir(t));
    const [built, sources] = await Promise.all([node(['bin/loom.js', '--help'], env), node(['bin/loom.js', '--help'], { ...env, LOOM_FROM_SOURCE: '1' })]);
    assert.equal(sources.code, 0, sources.stderr);
    assert.equal(built.code, 0, built.stderr);
    assert.equal(built.stdout, sources.stdout);
    // The same text whatever the terminal's width: src/cli/main.ts lays it out for a fixed one.
    const narrow = await node(
      [
        '--input-type=module',
        '-e',
        "process.stdout.isTTY = true; process.stdout.columns = 50; const { main } = await import('./src/cli/main.ts'); await main(['node', 'loom', '--help']);",
      ],
      {
        ...env,
        NODE_OPTIONS: '--import tsx',
      },
    );
    assert.equal(narrow.stdout, sources.stdout);
  });

  it('reads the prerendered help beside a compiled entry, and none without one', async (t: TestContext) => {
    const root = tempDir(t);
    const module = pathToFileURL(path.join(ROOT, 'bin', 'build-stamp.js')).href;
    const read = async (entry: string | null): Promise<string | null> => {
      const code = `const m = await import(${JSON.stringify(module)}); console.log(JSON.stringify(m.prerenderedHelp(${JSON.stringify(entry ?? undefined)}) ?? null));`;
      return JSON.parse((await run(process.execPath, ['--input-type=module', '-e', code])).stdout);
    };
    const entry = path.join(root, 'main.js');
    assert.equal(await read(null), null, 'no current build');
    assert.equal(await read(entry), null, 'a build without the text');
    fs.writeFileSync(path.join(root, 'help.txt'), 'Usage: loom\n');
    assert.equal(await read(entry), 'Usage: loom\n');
  });

  it('is fresh as built; stale after an edit, a new file, a deleted file; never with LOOM_FROM_SOURCE=1', async (t: TestContext) => {
    const root = tempDir(t);
    fs.mkdirSync(path.join(root, 'src', 'cli'), { recursive: true });
    fs.mkdirSync(path.join(root, 'scripts'));
    fs.writeFileSync(path.join(root, 'src', 'cli', 'main.ts'), 'export {};\n');
    fs.writeFileSync(path.join(root, 'src', 'cli', 'other.ts'), 'export {};\n');
    fs.writeFileSync(path.join(root, 'scripts', 'build-cli.js'), '// build\n');
    assert.equal(await fresh(root), null, 'no build: the sources');

    await stamp(root);
    assert.equal(await fresh(root), path.join(root, 'dist', 'cli', 'main.js'));
    assert.equal(await fresh(root, { LOOM_FROM_SOURCE: '1' }), null);

    // The same size, another modification time: an edit that keeps the length.
    const main = path.join(root, 'src', 'cli', 'main.ts');
    const later = new Date(fs.statSync(main).mtimeMs + 5000);
    fs.utimesSync(main, later, later);
    assert.equal(await fresh(root), null, 'an edit');

    await stamp(root);
    fs.writeFileSync(path.join(root, 'src', 'cli', 'added.ts'), 'export {};\n');
    assert.equal(await fresh(root), null, 'a new file');

    fs.rmSync(path.join(root, 'src', 'cli', 'added.ts'));
    await stamp(root);
    fs.rmSync(path.join(root, 'src', 'cli', 'other.ts'));
    assert.equal(await fresh(root), null, 'a deleted file');

    await stamp(root);
    fs.appendFileSync(path.join(root, 'scripts', 'build-cli.js'), '// changed\n');
    assert.equal(await fresh(root), null, 'a changed build script');
  });
});
