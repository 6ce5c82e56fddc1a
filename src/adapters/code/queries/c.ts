// C and C++, both read with the C++ grammar (@vscode/tree-sitter-wasm ships no C grammar of
// its own; C is close to a subset). Functions and prototypes, types, fields, enumerators,
// namespaces, macros, file-level variables; `#include` is an import.
import type { LanguageSpec } from './spec.ts';

const DECLARATOR_NAME = `[(identifier) @name (field_identifier) @name (qualified_identifier scope: (_) @container.name name: (_) @name) (destructor_name) @name (operator_name) @name]`;

export const cpp: LanguageSpec = {
  grammar: 'cpp',
  outline: `
(function_definition declarator: (function_declarator declarator: ${DECLARATOR_NAME})) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: ${DECLARATOR_NAME}))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: ${DECLARATOR_NAME}))) @definition.function
(declaration declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name])) @definition.function
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(field_declaration declarator: (field_identifier) @name) @definition.field
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enumMember
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(namespace_definition name: (namespace_identifier) @name) @definition.namespace
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(preproc_include path: (string_literal (string_content) @import.source)) @import
(preproc_include path: (system_lib_string) @import.source) @import
(comment) @comment
`,
  references: `[(identifier) (field_identifier) (type_identifier) (namespace_identifier)] @reference`,
  wrappers: ['template_declaration'],
};

export const c: LanguageSpec = cpp;
