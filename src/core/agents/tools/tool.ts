// What a tool is to the loop: its declaration for the model, and how it runs. A tool never
// throws for what the model got wrong (a bad argument, a refused path, an edit that does not
// apply): it answers `ok: false` with words the model can act on.
import type { ChatTool } from '../../completion/chat.ts';
import type { AgentFiles } from '../files/agent-files.ts';
import type { TaskFiles } from '../files/task-files.ts';
import { ToolFailure } from '../files/task-files.ts';
import type { CommandRunner } from './run-command.ts';

export interface ToolContext {
  files: TaskFiles;
  /** For walking the workspace (list, search). */
  workspace: AgentFiles;
  /** Absent when settings.json lists no commands. */
  commands?: CommandRunner;
  signal: AbortSignal;
}

export interface ToolOutcome {
  ok: boolean;
  /** What the model is told. */
  text: string;
  /** What the call changed, as a unified diff (for progress events and the step log). */
  diff?: string;
}

export interface AgentTool {
  declaration: ChatTool;
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome>;
}

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

/** Runs a tool's work, turning a ToolFailure into the `ok: false` answer the model reads. */
export async function outcomeOf(work: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ToolFailure) return { ok: false, text: error.message };
    throw error;
  }
}
