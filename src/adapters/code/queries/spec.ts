// What extraction needs to know of a language: its grammar and two tree-sitter queries.
//
// The outline query names, with captures:
// - `@definition.<kind>` on a definition's node (a SymbolKind: function, class…) and `@name` on
//   its name; `@container.name` when the container is not the enclosing definition (a Go
//   method's receiver type); `@doc` on a docstring (Python);
// - `@container` (with `@name`) on a node that contains definitions without being one (a Rust
//   `impl` block: its methods' container is the type);
// - `@import` on an import statement, `@import.source` on what it imports, `@import.name` on a
//   name it takes (gathered into the import that holds it);
// - `@comment` on comments (the doc of the definition that follows).
// When patterns match the same name, the first pattern wins (specific before general).
//
// The references query captures each identifier occurrence as `@reference`.

export interface LanguageSpec {
  /** The grammar's file in @vscode/tree-sitter-wasm's wasm folder. */
  grammar: string;
  outline: string;
  references: string;
  /** Node types around a definition whose start is where its doc comment ends (`export`, a decorator). */
  wrappers?: readonly string[];
  /** Sibling nodes before a definition that stand between it and its doc comment (Rust's `#[…]`). */
  attributes?: readonly string[];
}
