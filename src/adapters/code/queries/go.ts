// Go: functions, methods (their receiver's type is their container), types, constants,
// variables, struct fields and interface methods.
import type { LanguageSpec } from './spec.ts';

export const go: LanguageSpec = {
  grammar: 'go',
  outline: `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: [(type_identifier) @container.name (pointer_type (type_identifier) @container.name) (generic_type type: (type_identifier) @container.name) (pointer_type (generic_type type: (type_identifier) @container.name))])) name: (field_identifier) @name) @definition.method
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(const_spec name: (identifier) @name) @definition.constant
(var_spec name: (identifier) @name) @definition.variable
(field_declaration name: (field_identifier) @name) @definition.field
(method_elem name: (field_identifier) @name) @definition.method
(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @import.source)) @import
(comment) @comment
`,
  references: `[(identifier) (type_identifier) (field_identifier) (package_identifier)] @reference`,
  wrappers: ['type_declaration', 'const_declaration', 'var_declaration'],
};
