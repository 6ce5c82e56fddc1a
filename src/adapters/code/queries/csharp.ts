// C#: types, members, namespaces; `using` is an import.
import type { LanguageSpec } from './spec.ts';

export const csharp: LanguageSpec = {
  grammar: 'c-sharp',
  outline: `
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(enum_member_declaration name: (identifier) @name) @definition.enumMember
(record_declaration name: (identifier) @name) @definition.class
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(property_declaration name: (identifier) @name) @definition.property
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(namespace_declaration name: (_) @name) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace
(delegate_declaration name: (identifier) @name) @definition.type
(using_directive [(identifier) (qualified_name)] @import.source) @import
(comment) @comment
`,
  references: `(identifier) @reference`,
};
