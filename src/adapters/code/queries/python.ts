// Python: classes, functions (methods inside classes), module and class variables; the
// docstring is a definition's doc.
import type { LanguageSpec } from './spec.ts';

export const python: LanguageSpec = {
  grammar: 'python',
  outline: `
(class_definition name: (identifier) @name body: (block . (expression_statement (string) @doc))) @definition.class
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name body: (block . (expression_statement (string) @doc))) @definition.function
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)
(class_definition body: (block (expression_statement (assignment left: (identifier) @name)) @definition.field))
(import_statement name: (dotted_name) @import.source) @import
(import_statement name: (aliased_import name: (dotted_name) @import.source)) @import
(import_from_statement module_name: (_) @import.source) @import
(import_from_statement name: (dotted_name) @import.name)
(import_from_statement name: (aliased_import name: (dotted_name) @import.name))
(comment) @comment
`,
  references: `(identifier) @reference`,
  wrappers: ['decorated_definition'],
};
