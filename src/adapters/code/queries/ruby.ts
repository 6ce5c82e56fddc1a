// Ruby: modules, classes, methods, constants; `require` and friends are imports.
import type { LanguageSpec } from './spec.ts';

export const ruby: LanguageSpec = {
  grammar: 'ruby',
  outline: `
(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant
(call method: (identifier) @_require arguments: (argument_list . (string (string_content) @import.source)) (#any-of? @_require "require" "require_relative" "load")) @import
(comment) @comment
`,
  references: `[(identifier) (constant)] @reference`,
};
