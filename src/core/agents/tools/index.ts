// The tools an agent task is offered, and running a call by name.
import type { ChatTool } from '../../completion/chat.ts';
import { runCommandTool } from './command-tool.ts';
import { listFiles, readFile, search } from './read-tools.ts';
import type { CommandRunner } from './run-command.ts';
import type { AgentTool } from './tool.ts';
import { createFile, deleteFile, editFile, renameFile } from './write-tools.ts';

export { applyEditBlock } from './write-tools.ts';
export { CommandRunner, type CommandRunnerOptions } from './run-command.ts';
export type { AgentTool, ToolContext, ToolOutcome } from './tool.ts';

/** A task's tools: the file tools always, run_command when commands are listed. */
export class Toolbox {
  private readonly tools: Map<string, AgentTool>;

  constructor(commands?: CommandRunner) {
    const tools = [listFiles, readFile, search, editFile, createFile, deleteFile, renameFile];
    if (commands && commands.commands().length > 0) tools.push(runCommandTool(commands));
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
