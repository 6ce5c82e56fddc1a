// Rust: items, enum variants, struct fields; an `impl` block is its methods' container (the
// type it implements), not a definition.
import type { LanguageSpec } from './spec.ts';

export const rust: LanguageSpec = {
  grammar: 'rust',
  outline: `
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(enum_variant name: (identifier) @name) @definition.enumMember
(trait_item name: (type_identifier) @name) @definition.trait
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(field_declaration name: (field_identifier) @name) @definition.field
(impl_item type: [(type_identifier) @name (generic_type type: (type_identifier) @name) (scoped_type_identifier name: (type_identifier) @name)]) @container
(use_declaration argument: (_) @import.source) @import
(extern_crate_declaration name: (identifier) @import.source) @import
(line_comment) @comment
(block_comment) @comment
`,
  references: `[(identifier) (type_identifier) (field_identifier)] @reference`,
  attributes: ['attribute_item'],
};
