// Bash: functions and top-level variables; `source` and `.` are imports.
import type { LanguageSpec } from './spec.ts';

export const bash: LanguageSpec = {
  grammar: 'bash',
  outline: `
(function_definition name: (word) @name) @definition.function
(program (variable_assignment name: (variable_name) @name) @definition.variable)
(command name: (command_name (word) @_command) argument: (word) @import.source (#any-of? @_command "source" ".")) @import
(comment) @comment
`,
  references: `
(variable_name) @reference
(command_name (word) @reference)
`,
};
