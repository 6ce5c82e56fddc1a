// `loom composer "prompt" …` and `loom composer status|cancel|watch|diff|apply ID`: composer
// sessions on a hosted server (docs/composer.md), from the command line. The session runs on
// the server; `apply` is the only step that writes on this machine, all or nothing.
import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { followComposerEvents } from '../../client/composer-events.ts';
import { HostedApiError } from '../../client/hosted.ts';
import { COMPOSER_MODES, type ComposerSession } from '../../contracts/composer.ts';
import { ApplyFailed, ApplyRefused, applyEdits } from '../composer/apply.ts';
import { collectAttachments } from '../composer/attachments.ts';
import { connect, refusal, type ComposerConnection } from '../composer/connection.ts';
import { describeEdit, describeEvent, describePlan, describeSession, patchOf } from '../composer/render.ts';
import { CliError, cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { oneLine, print, printJson, printProblem, printWarning, toJson } from '../output.ts';

interface ServerOptions {
  server?: string;
  token?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `loom composer`.
 *
 * @example await buildProgram().parseAsync(['node', 'loom', 'composer', 'Fix add', '--files', 'src/**', '--attach', '--watch']);
 */
export function composerCommand(): Command {
  const start = withServer(
    new Command('start')
      .description('start a session (the default: `loom composer "prompt" …` is `loom composer start "prompt" …`)')
      .argument('<prompt>', 'what the session should do, in your words')
      .option('--files <glob>', 'files the session may change (repeatable), e.g. "src/**"; relative to the workspace, or to --dir with --attach', collect)
      .addOption(new Option('--mode <mode>', 'edit: make the change; plan: say what would change').choices(COMPOSER_MODES).default('edit'))
      .option('--workspace <name>', 'a workspace the server operator registered (default: its only one)')
      .option('--attach', 'send the local files matching --files instead of using a workspace')
      .option('--dir <folder>', 'the folder --attach reads (default: the current folder)')
      .option('--watch', 'follow the session: print its plan or its diffs as they come, then its end (exit 1 unless it completes)')
      .option('--json', 'print JSON: the answer {sessionId, status, workspace}; with --watch, one event per line (NDJSON) and the session last'),
  ).action(cliAction(create));
  // Each subcommand has its own options: the parent has none that could take a subcommand's --json.
  const command = new Command('composer')
    .description('multi-file editing sessions on a hosted server: start one, follow it, apply its edits here')
    .addCommand(start, { isDefault: true });
  return command
    .addCommand(
      withServer(new Command('status').description("a session's status, and its plan or its edits").argument('<sessionId>', 'the session id', sessionId))
        .option('--json', 'print the session as JSON')
        .action(
          cliAction(async (id: string, options: ServerOptions & { json?: boolean }) => {
            const session = await getSession(await connect(options), id);
            if (options.json) printJson(session);
            else print(describeSession(session, { diffs: false }));
          }),
        ),
    )
    .addCommand(
      withServer(
        new Command('cancel').description('stop a session (the edits it made so far stay readable)').argument('<sessionId>', 'the session id', sessionId),
      )
        .option('--json', 'print the session after the cancel as JSON')
        .action(
          cliAction(async (id: string, options: ServerOptions & { json?: boolean }) => {
            const connection = await connect(options);
            const session = await connection.call((client) => client.call('cancelComposerSession', { params: { sessionId: id } }));
            if (options.json) printJson(session);
            else print(`${session.sessionId} ${session.status}${session.cancelRequested && session.status === 'running' ? ' (stopping)' : ''}\n`);
          }),
        ),
    )
    .addCommand(
      withServer(
        new Command('watch')
          .description('follow a session to its end: its plan or its diffs as they come (exit 1 unless it completes)')
          .argument('<sessionId>', 'the session id', sessionId),
      )
        .option('--json', 'one event per line (NDJSON), the session last')
        .action(
          cliAction(async (id: string, options: ServerOptions & { json?: boolean }) => {
            await watchToEnd(await connect(options), id, options.json === true);
          }),
        ),
    )
    .addCommand(
      withServer(new Command('diff').description("a session's edits as one patch (unified diffs)").argument('<sessionId>', 'the session id', sessionId))
        .option('--json', 'print the edits as JSON: [{file, action, from?, diff, baseHash, content}]')
        .action(
          cliAction(async (id: string, options: ServerOptions & { json?: boolean }) => {
            const session = await getSession(await connect(options), id);
            if (session.mode === 'plan') throw new CliError(`${id} is a plan session: it has a plan, not edits (loom composer status ${id})`);
            if (options.json) return printJson(session.edits);
            print(patchOf(session.edits));
          }),
        ),
    )
    .addCommand(
      withServer(
        new Command('apply')
          .description("write a session's edits into this checkout, all or nothing; refused when a file changed since the session read it")
          .argument('<sessionId>', 'the session id', sessionId),
      )
        .option('--dir <folder>', 'the checkout to write into (default: the current folder)')
        .option('--dry-run', 'check everything and say what would be written, write nothing')
        .option('--partial', 'apply the edits of a session that failed or was cancelled (by default only a completed one)')
        .option('--json', 'print {sessionId, applied, dryRun, edits} (or the refusal: {sessionId, applied: false, hostile, conflicts})')
        .action(cliAction(apply)),
    );
}

interface CreateOptions extends ServerOptions {
  files?: string[];
  mode: (typeof COMPOSER_MODES)[number];
  workspace?: string;
  attach?: boolean;
  dir?: string;
  watch?: boolean;
  json?: boolean;
}

async function create(prompt: string, options: CreateOptions): Promise<void> {
  const files = options.files ?? [];
  if (files.length === 0) throw new CliError('--files is needed: the files the session may change, e.g. --files "src/**"', EXIT.usage);
  if (options.attach && options.workspace !== undefined)
    throw new CliError('--workspace and --attach exclude each other: a session works on one or the other', EXIT.usage);
  if (options.dir !== undefined && !options.attach) throw new CliError('--dir says where --attach reads files; add --attach', EXIT.usage);
  const body: {
    prompt: string;
    files: string[];
    mode: typeof options.mode;
    workspace?: string;
    attachments?: { path: string; content: string }[];
  } = { prompt, files, mode: options.mode };
  if (options.workspace !== undefined) body.workspace = options.workspace;
  // Signed in or not is known before the files are read: a missing token fails fast.
  const connection = await connect(options);
  if (options.attach) {
    const { attachments, skipped } = await collectAttachments(folderOption(options.dir), files);
    if (skipped.length) printWarning(`left out ${skipped.length} binary file${skipped.length === 1 ? '' : 's'}: ${skipped.join(', ')}`);
    body.attachments = attachments;
  }
  const created = await connection.call((client) => client.call('createComposerSession', { body }));
  if (options.watch) return watchToEnd(connection, created.sessionId, options.json === true);
  if (options.json) return printJson(created);
  const where = created.workspace ? ` on workspace ${oneLine(created.workspace)}` : ` on ${body.attachments?.length ?? 0} attached files`;
  print(`${created.sessionId} ${created.status}${where}; follow it with: loom composer watch ${created.sessionId}\n`);
}

/**
 * Follows a session's events to its end, printing each (NDJSON with `json`), then sets exit 1
 * unless it completed. A person sees each edit's diff as it lands: the event names the file,
 * the session holds its diff.
 */
async function watchToEnd(connection: ComposerConnection, id: string, json: boolean): Promise<void> {
  const shown = new Map<string, string>();
  try {
    for await (const event of followComposerEvents({
      url: connection.server,
      token: connection.token(),
      sessionId: id,
      onReconnect: (after, why) => printProblem(`the event stream broke off (${why}); resuming after event ${after}`),
    })) {
      if (json) {
        print(`${toJson(event)}\n`);
        continue;
      }
      const line = describeEvent(event);
      if (line) print(line);
      if (event.type === 'plan' && event.data.plan && typeof event.data.plan === 'object')
        print(describePlan(event.data.plan as NonNullable<ComposerSession['plan']>));
      if (event.type === 'edit') await showEdit(connection, id, String(event.data.file), shown);
    }
  } catch (error) {
    if (error instanceof HostedApiError) throw refusal(error, connection.server, false);
    throw error;
  }
  const session = await getSession(connection, id);
  if (json) print(`${toJson(session)}\n`);
  else print(ending(session));
  if (session.status !== 'completed') process.exitCode = EXIT.failure;
}

/** The diff of an edit that just landed (once per version of it: a file edited twice shows its new diff). */
async function showEdit(connection: ComposerConnection, id: string, file: string, shown: Map<string, string>): Promise<void> {
  const session = await getSession(connection, id);
  const edit = session.edits.find((candidate) => candidate.file === file);
  if (!edit) return;
  print(`${describeEdit(edit)}\n`);
  if (shown.get(file) === edit.diff) return;
  shown.set(file, edit.diff);
  print(patchOf([edit]));
}

/** The last lines of a watch: how it ended and what to do next. */
function ending(session: ComposerSession): string {
  const lines: string[] = [];
  if (session.summary) lines.push(session.summary);
  if (session.status === 'completed' && session.mode === 'edit') {
    lines.push(
      session.edits.length
        ? `${session.edits.length} edit${session.edits.length === 1 ? '' : 's'}; write them here with: loom composer apply ${session.sessionId}`
        : 'No edits.',
    );
    if (session.branch) lines.push(`On branch ${oneLine(session.branch)}${session.pushed ? ' (pushed)' : ''}.`);
  }
  if (session.status === 'failed' && session.error) lines.push(`Failed: ${oneLine(session.error)}`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

async function apply(id: string, options: ServerOptions & { dir?: string; dryRun?: boolean; partial?: boolean; json?: boolean }): Promise<void> {
  const folder = folderOption(options.dir);
  const session = await getSession(await connect(options), id);
  if (session.mode === 'plan') throw new CliError(`${id} is a plan session: it has a plan, not edits to apply`);
  if (session.status === 'queued' || session.status === 'running') {
    throw new CliError(`${id} is still ${session.status}; wait for its end with: loom composer watch ${id}`);
  }
  if (session.status !== 'completed' && !options.partial) {
    throw new CliError(`${id} ended ${session.status}, so its edits may be half done; apply them anyway with --partial`);
  }
  let applied;
  try {
    applied = applyEdits(folder, session.edits, { dryRun: options.dryRun === true });
  } catch (error) {
    if (error instanceof ApplyRefused) {
      if (options.json) printJson({ sessionId: id, applied: false, hostile: error.hostile, conflicts: error.conflicts });
      throw new CliError(error.message);
    }
    if (error instanceof ApplyFailed) throw new CliError(error.message);
    throw error;
  }
  if (options.json) return printJson({ sessionId: id, applied: options.dryRun !== true, dryRun: options.dryRun === true, edits: applied });
  if (applied.length === 0) return print(`${id} has no edits; nothing to apply.\n`);
  const head = options.dryRun
    ? `Would apply ${applied.length} edit${applied.length === 1 ? '' : 's'} to ${folder}`
    : `Applied ${applied.length} edit${applied.length === 1 ? '' : 's'} to ${folder}`;
  print(`${head}:\n${applied.map((edit) => `  ${describeEdit(edit)}\n`).join('')}`);
}

async function getSession(connection: ComposerConnection, id: string): Promise<ComposerSession> {
  return connection.call((client) => client.call('getComposerSession', { params: { sessionId: id } }));
}

function withServer(command: Command): Command {
  return command
    .option('--server <url>', 'the hosted server (env LOOM_SERVER; default the configured hosted API, http://127.0.0.1:8080)')
    .option('--token <token>', 'an API key or access token (env LOOM_TOKEN; default the sign-in of loom login)');
}

/** A folder option: an existing folder, made absolute (default: the current folder). */
function folderOption(value: string | undefined): string {
  const folder = path.resolve(value ?? '.');
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`--dir: ${folder} is not a folder`, EXIT.usage);
  return folder;
}

/** Globs are taken whole (a glob may hold commas: `src/**\/*.{ts,tsx}`), repeatable. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function sessionId(value: string): string {
  if (!UUID.test(value)) throw new InvalidArgumentError('a session id (a UUID, as loom composer printed it)');
  return value.toLowerCase();
}
