// What `loom composer` does (the command definitions are in commands/composer.ts, which loads
// this module only when a composer command runs): start, say, watch, status, cancel, diff, apply.
import fs from 'node:fs';
import path from 'node:path';
import { followComposerEvents } from '../../client/composer-events.ts';
import { HostedApiError } from '../../client/hosted.ts';
import type { ComposerSession } from '../../contracts/composer.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { oneLine, print, printJson, printProblem, printWarning, toJson } from '../output.ts';
import { ApplyFailed, ApplyRefused, applyComposerEdits } from '../../core/workspace/composer-edits.ts';
import { WorkspacePaths, type LoomFolder } from '../../core/workspace/paths.ts';
import { collectAttachments } from './attachments.ts';
import { connect, refusal, type ComposerConnection } from './connection.ts';
import { describeEdit, describeEvent, describePlan, describeSession, patchOf } from './render.ts';

export interface ServerOptions {
  server?: string;
  token?: string;
}

export interface CreateOptions extends ServerOptions {
  files?: string[];
  mode: ComposerSession['mode'];
  workspace?: string;
  attach?: boolean;
  dir?: string;
  watch?: boolean;
  json?: boolean;
}

/**
 * `loom composer "prompt" …`.
 *
 * @example await create('Fix add', { files: ['src/**'], mode: 'edit', attach: true, watch: true });
 */
export async function create(prompt: string, options: CreateOptions): Promise<void> {
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
    const { attachments, skipped } = await collectAttachments(folderOption(options.dir), files, await localLoomFolders());
    if (skipped.length) printWarning(`left out ${skipped.length} binary file${skipped.length === 1 ? '' : 's'}: ${skipped.join(', ')}`);
    body.attachments = attachments;
  }
  const created = await connection.call((client) => client.call('createComposerSession', { body }));
  if (options.watch) return watchToEnd(connection, created.sessionId, options.json === true);
  if (options.json) return printJson(created);
  const where = created.workspace ? ` on workspace ${oneLine(created.workspace)}` : ` on ${body.attachments?.length ?? 0} attached files`;
  print(`${created.sessionId} ${created.status}${where}; follow it with: loom composer watch ${created.sessionId}\n`);
}

export interface SayOptions extends ServerOptions {
  watch?: boolean;
  json?: boolean;
}

/**
 * `loom composer say ID "message"`: continues a session that has ended.
 *
 * @example await say(id, 'Also update the README', { watch: true });
 */
export async function say(id: string, message: string, options: SayOptions): Promise<void> {
  if (message.trim() === '') throw new CliError('the message is empty: say what the session should do next', EXIT.usage);
  const connection = await connect(options);
  const session = await connection.call((client) => client.call('continueComposerSession', { params: { sessionId: id }, body: { message } }));
  if (options.watch) return watchToEnd(connection, id, options.json === true, lastRunStart(session));
  if (options.json) return printJson(session);
  print(`${session.sessionId} ${session.status}; follow it with: loom composer watch ${session.sessionId}\n`);
}

/** The seq after which a session's latest run's events come: that of its last message, or the start. */
function lastRunStart(session: ComposerSession): number {
  const last = session.messages.at(-1);
  return last ? last.seq - 1 : 0;
}

/**
 * Follows a session's events from `after` to its end, printing each (NDJSON with `json`), then
 * sets exit 1 unless it completed. A person sees each edit's diff as it lands: the event names
 * the file, the session holds its diff.
 */
async function watchToEnd(connection: ComposerConnection, id: string, json: boolean, after = 0): Promise<void> {
  const shown = new Map<string, string>();
  try {
    for await (const event of followComposerEvents({
      url: connection.server,
      token: connection.token(),
      sessionId: id,
      after,
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
      // Started over (taken over by another runner): the new attempt's diffs are shown afresh.
      if (event.type === 'status' && event.data.status === 'running') shown.clear();
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

export interface ApplyOptions extends ServerOptions {
  dir?: string;
  dryRun?: boolean;
  partial?: boolean;
  json?: boolean;
}

/** `loom composer apply ID`. */
export async function apply(id: string, options: ApplyOptions): Promise<void> {
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
    // Loom's own folders under `folder` (applying in the home folder) are protected: an edit of settings.json is hostile.
    const paths = new WorkspacePaths(folder, { loomFolders: await localLoomFolders() });
    applied = applyComposerEdits(paths, session.edits, { dryRun: options.dryRun === true });
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

/** `loom composer status ID`. */
export async function status(id: string, options: ServerOptions & { json?: boolean }): Promise<void> {
  const session = await getSession(await connect(options), id);
  if (options.json) printJson(session);
  else print(describeSession(session, { diffs: false }));
}

/** `loom composer cancel ID`. */
export async function cancel(id: string, options: ServerOptions & { json?: boolean }): Promise<void> {
  const connection = await connect(options);
  const session = await connection.call((client) => client.call('cancelComposerSession', { params: { sessionId: id } }));
  if (options.json) printJson(session);
  else print(`${session.sessionId} ${session.status}${session.cancelRequested && session.status === 'running' ? ' (stopping)' : ''}\n`);
}

/** `loom composer watch ID`. */
export async function watch(id: string, options: ServerOptions & { json?: boolean }): Promise<void> {
  const connection = await connect(options);
  // A continued session: its latest run (the events of earlier ones end at their own ends).
  await watchToEnd(connection, id, options.json === true, lastRunStart(await getSession(connection, id)));
}

/** `loom composer diff ID`. */
export async function diff(id: string, options: ServerOptions & { json?: boolean }): Promise<void> {
  const session = await getSession(await connect(options), id);
  if (session.mode === 'plan') throw new CliError(`${id} is a plan session: it has a plan, not edits (loom composer status ${id})`);
  if (options.json) return printJson(session.edits);
  print(patchOf(session.edits));
}

async function getSession(connection: ComposerConnection, id: string): Promise<ComposerSession> {
  return connection.call((client) => client.call('getComposerSession', { params: { sessionId: id } }));
}

/** A folder option: an existing folder, made absolute (default: the current folder). */
/** This machine's Loom folders (config, data, models), from the environment and the config file: never sent, never written. */
async function localLoomFolders(): Promise<LoomFolder[]> {
  const [{ loadConfig }, { loomFolders }] = await Promise.all([import('../../config/load.ts'), import('../../config/folders.ts')]);
  return loomFolders(loadConfig());
}

function folderOption(value: string | undefined): string {
  const folder = path.resolve(value ?? '.');
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`--dir: ${folder} is not a folder`, EXIT.usage);
  return folder;
}
