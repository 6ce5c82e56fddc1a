// The tools an agent task is offered, and running a call by name.
import type { ChatTool } from '../../completion/chat.ts';
import type { AgentIntel } from '../intel/intel.ts';
import { codeTools } from './code-tools.ts';
import { runCommandTool } from './command-tool.ts';
import { listFiles, readFile, search } from './read-tools.ts';
import type { CommandRunner } from './run-command.ts';
import type { AgentTool } from './tool.ts';
import { createFile, deleteFile, editFile, renameFile } from './write-tools.ts';

export { applyEditBlock } from './write-tools.ts';
export { CommandRunner, type CommandRunnerOptions } from './run-command.ts';
export type { AgentTool, ApprovalOutcome, ToolContext, ToolOutcome } from './tool.ts';

/**
 * A task's tools: the file tools always; the code tools its code intelligence allows (the
 * index's: locate_files, find_symbol; the language servers': go_to_definition,
 * find_references, diagnostics, rename_symbol); run_command when the task has a runner (an
 * agent task of the desktop app: listed commands run, others are asked for); without one (a
 * composer session) no command ever runs.
 *
 * @example new Toolbox(commands, { index, languages }).names() // ['list_files', …, 'rename_symbol', 'run_command']
 */
export class Toolbox {
  private readonly tools: Map<string, AgentTool>;

  constructor(commands?: CommandRunner, intel?: AgentIntel) {
    const tools = [listFiles, readFile, search, editFile, createFile, deleteFile, renameFile, ...codeTools(intel)];
    if (commands) tools.push(runCommandTool(commands));
    this.tools = new Map(tools.map((tool) => [tool.declaration.name, tool]));
  }

  declarations(): ChatTool[] {
    return [...this.tools.values()].map((tool) => tool.declaration);
  }

  get(name: string): AgentTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }
}
