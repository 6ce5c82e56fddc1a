// JavaScript (with JSX), TypeScript and TSX: the TypeScript grammars add interfaces, types,
// enums, namespaces and signatures to JavaScript's definitions.
import type { LanguageSpec } from './spec.ts';

const COMMON = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @definition.constant)
(variable_declarator name: (identifier) @name) @definition.variable
(assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @definition.function
(import_statement source: (string (string_fragment) @import.source)) @import
(import_specifier name: (_) @import.name)
(import_clause (identifier) @import.name)
(namespace_import (identifier) @import.name)
(export_statement source: (string (string_fragment) @import.source)) @import
(call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import.source)) (#eq? @_require "require")) @import
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.source))) @import
(comment) @comment
`;

const JAVASCRIPT_ONLY = `
(field_definition property: (_) @name) @definition.field
`;

const TYPESCRIPT_ONLY = `
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body name: (property_identifier) @name @definition.enumMember)
(enum_assignment name: (property_identifier) @name) @definition.enumMember
(public_field_definition name: (_) @name value: [(arrow_function) (function_expression)]) @definition.method
(public_field_definition name: (_) @name) @definition.field
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(property_signature name: (_) @name) @definition.property
(function_signature name: (identifier) @name) @definition.function
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module
`;

const WRAPPERS = ['export_statement', 'lexical_declaration', 'variable_declaration', 'expression_statement', 'ambient_declaration'];

export const javascript: LanguageSpec = {
  grammar: 'javascript',
  outline: COMMON + JAVASCRIPT_ONLY,
  references: `[(identifier) (property_identifier) (shorthand_property_identifier) (shorthand_property_identifier_pattern) (private_property_identifier)] @reference`,
  wrappers: WRAPPERS,
};

const TYPESCRIPT_REFERENCES = `[(identifier) (property_identifier) (shorthand_property_identifier) (shorthand_property_identifier_pattern) (private_property_identifier) (type_identifier)] @reference`;

export const typescript: LanguageSpec = {
  grammar: 'typescript',
  outline: COMMON + TYPESCRIPT_ONLY,
  references: TYPESCRIPT_REFERENCES,
  wrappers: WRAPPERS,
};

export const tsx: LanguageSpec = { ...typescript, grammar: 'tsx' };
