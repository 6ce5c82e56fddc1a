// Java: types, methods, constructors, fields, enum constants.
import type { LanguageSpec } from './spec.ts';

export const java: LanguageSpec = {
  grammar: 'java',
  outline: `
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_constant name: (identifier) @name) @definition.enumMember
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(import_declaration [(scoped_identifier) (identifier)] @import.source) @import
(block_comment) @comment
(line_comment) @comment
`,
  references: `[(identifier) (type_identifier)] @reference`,
};
