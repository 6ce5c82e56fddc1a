// PHP: classes, interfaces, traits, enums, functions, methods, properties, constants,
// namespaces; `use`, `require` and `include` are imports.
import type { LanguageSpec } from './spec.ts';

export const php: LanguageSpec = {
  grammar: 'php',
  outline: `
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(property_element name: (variable_name (name) @name)) @definition.property
(const_element (name) @name) @definition.constant
(namespace_definition name: (namespace_name) @name) @definition.namespace
(namespace_use_clause [(qualified_name) (name)] @import.source) @import
([(require_expression) (require_once_expression) (include_expression) (include_once_expression)] (string (string_content) @import.source)) @import
(comment) @comment
`,
  references: `(name) @reference`,
};
