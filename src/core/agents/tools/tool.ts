// What a tool is to the loop: its declaration for the model, and how it runs. A tool never
// throws for what the model got wrong (a bad argument, a refused path, an edit that does not
// apply): it answers `ok: false` with words the model can act on.
import type { ChatTool } from '../../completion/chat.ts';
import { LoomError } from '../../errors.ts';
import type { AgentFiles } from '../files/agent-files.ts';
import type { EditChecks, StepDiagnostics } from '../intel/edit-checks.ts';
import type { AgentIntel } from '../intel/intel.ts';
import type { TaskFiles } from '../files/task-files.ts';
import { ToolFailure } from '../files/task-files.ts';

/** The user's answer to a request to run a command, as the tool sees it. */
export type ApprovalOutcome =
  | { approved: true; how: 'once' | 'always' }
  /** `denied_before`: the user denied the same command earlier in this work; `not_answering`: an earlier request expired. */
  | { approved: false; why: 'denied' | 'denied_before' | 'not_answering' }
  | { approved: false; why: 'expired'; seconds: number };

export interface ToolContext {
  files: TaskFiles;
  /** For walking the workspace (list, search). */
  workspace: AgentFiles;
  /**
   * Asks the user to approve a command settings.json does not list, and waits for the answer;
   * rejects with the signal's reason when the task ends meanwhile. Absent where nothing may be
   * asked: then only listed commands run.
   */
  approve?(command: string): Promise<ApprovalOutcome>;
  /** The code index and language servers, where the task has them (the code tools use them). */
  intel?: AgentIntel;
  /** Diagnostics before and after each change, where a language server runs. */
  checks?: EditChecks;
  signal: AbortSignal;
}

export interface ToolOutcome {
  ok: boolean;
  /** What the model is told. */
  text: string;
  /** What the call changed, as a unified diff (for progress events and the step log). */
  diff?: string;
  /** The files it changed (workspace keys): their diagnostics are checked after it. */
  changed?: string[];
  /** What the change did to the diagnostics (the loop adds it). */
  diagnostics?: StepDiagnostics;
}

export interface AgentTool {
  declaration: ChatTool;
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome>;
  /**
   * The files a call may change, known before it runs (their diagnostics are taken first, to
   * compare with after). Throws nothing: a path it cannot read is left out.
   */
  targets?(args: Record<string, unknown>, context: ToolContext): string[];
}

/** The workspace keys of the path arguments `names` of a call, those that resolve (for `targets`). */
export function pathTargets(args: Record<string, unknown>, context: ToolContext, ...names: string[]): string[] {
  const keys: string[] = [];
  for (const name of names) {
    const value = args[name];
    if (typeof value !== 'string' || value.length > MAX_PATH_CHARS) continue;
    try {
      keys.push(context.files.resolve(value));
    } catch {
      // refused or unreadable: the call itself will say so
    }
  }
  return keys;
}

/** The longest path a tool takes, as for edit blocks and globs: what a refusal may echo back is bounded. */
const MAX_PATH_CHARS = 1024;

/** The arguments of a call, read with messages for the model when one is missing or of the wrong type. */
export class Arguments {
  constructor(
    private readonly args: Record<string, unknown>,
    private readonly tool: string,
  ) {}

  string(name: string): string {
    const value = this.args[name];
    if (typeof value !== 'string') throw new ToolFailure(`${this.tool}: "${name}" must be a string${value === undefined ? ' and is missing' : ''}.`);
    return value;
  }

  /** A path: a string of at most 1024 characters, so that no answer echoes an unbounded one. */
  path(name: string): string {
    const value = this.string(name);
    if (value.length > MAX_PATH_CHARS)
      throw new ToolFailure(`${this.tool}: "${name}" is ${value.length} characters long; a path has at most ${MAX_PATH_CHARS}.`);
    return value;
  }

  optionalString(name: string): string | undefined {
    return this.args[name] === undefined || this.args[name] === null ? undefined : this.string(name);
  }

  optionalInteger(name: string, min: number): number | undefined {
    const value = this.args[name];
    if (value === undefined || value === null) return undefined;
    // Models write numbers as strings now and then; a whole number in a string is taken.
    const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number) || number < min)
      throw new ToolFailure(`${this.tool}: "${name}" must be a whole number of at least ${min}.`);
    return number;
  }

  optionalBoolean(name: string): boolean | undefined {
    const value = this.args[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new ToolFailure(`${this.tool}: "${name}" must be true or false.`);
  }
}

/**
/**
 * Runs a tool's work, turning a ToolFailure, or a LoomError from the workspace's gate (a glob
 * whose folder leads out of the workspace, a protected path), into the `ok: false` answer the
 * model reads. With `signal`: work that stops because the task is ending (a cancel, the time
 * budget: a walk or a search rejects with the signal's reason) answers so too; the loop then
 * ends the task with the reason the signal carries, not as Loom's own failure.
 */
export async function outcomeOf(work: () => Promise<ToolOutcome>, signal?: AbortSignal): Promise<ToolOutcome> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ToolFailure) return { ok: false, text: error.message };
    if (signal?.aborted && error === signal.reason) return { ok: false, text: 'Stopped: the task is ending.' };
    if (error instanceof LoomError) return { ok: false, text: error.hint ? `${error.message} ${error.hint}` : error.message };
    throw error;
  }
}
