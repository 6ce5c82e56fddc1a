// Extraction per language: definitions with kind, container, signature line and doc comment;
// references (identifier occurrences, definitions' names not among them); imports. Positions
// are Loom's: 1-based lines and UTF-16 columns.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { CodeLanguage, Definition, FileOutline } from '../../../src/core/code/model.ts';
import { Extractor } from '../../../src/adapters/code/extract.ts';
import { indexContent } from '../../../src/adapters/code/index-content.ts';
import { decodeReferences } from '../../../src/core/code/references-codec.ts';

const extractor = new Extractor();
after(() => extractor.dispose());

function outline(language: CodeLanguage, source: string): Promise<FileOutline> {
  return extractor.extract(source, language);
}

/** `container.name kind`, for one-line comparisons. */
function summary(definitions: Definition[]): string[] {
  return definitions.map((d) => `${d.container ? `${d.container}.` : ''}${d.name} ${d.kind}`);
}

function find(definitions: Definition[], name: string): Definition {
  const found = definitions.find((d) => d.name === name);
  assert.ok(found, `no definition named ${name} in ${summary(definitions).join(', ')}`);
  return found;
}

describe('extraction', () => {
  it('TypeScript: classes, members, interfaces, types, enums, functions, constants; docs and signatures', async () => {
    const source = [
      "import { a, b as c } from './x';",
      "import * as ns from 'y';",
      '/** Says hello. */',
      'export class Greeter<T> extends Base {',
      '  // how many',
      '  private count = 1;',
      '  constructor() { super(); }',
      '  /** Greets someone. */',
      '  async greet(name: string): Promise<void> { this.count++; }',
      '}',
      'export interface Shape { area(): number; sides: number }',
      'export type Id = string;',
      'export enum Color { Red, Green = 2 }',
      'export function helper(x: number): number { const local = 1; return x + local; }',
      'export const LIMIT = 3, run = () => helper(LIMIT);',
      'namespace Space { export const inner = 1; }',
    ].join('\n');
    const result = await outline('typescript', source);
    assert.deepEqual(summary(result.definitions), [
      'Greeter class',
      'Greeter.count field',
      'Greeter.constructor constructor',
      'Greeter.greet method',
      'Shape interface',
      'Shape.area method',
      'Shape.sides property',
      'Id type',
      'Color enum',
      'Color.Red enumMember',
      'Color.Green enumMember',
      'helper function',
      'LIMIT constant',
      'run function',
      'Space namespace',
      'Space.inner constant',
    ]);
    const greeter = find(result.definitions, 'Greeter');
    assert.equal(greeter.doc, 'Says hello.');
    assert.equal(greeter.signature, 'export class Greeter<T> extends Base {');
    assert.deepEqual(greeter.range, { start: { line: 4, column: 8 }, end: { line: 10, column: 2 } });
    assert.deepEqual(greeter.nameRange, { start: { line: 4, column: 14 }, end: { line: 4, column: 21 } });
    const greet = find(result.definitions, 'greet');
    assert.equal(greet.doc, 'Greets someone.');
    assert.equal(greet.signature, 'async greet(name: string): Promise<void> { this.count++; }');
    assert.equal(find(result.definitions, 'count').doc, 'how many');
    // A local variable is no definition.
    assert.equal(
      result.definitions.find((d) => d.name === 'local'),
      undefined,
    );
    assert.deepEqual(
      result.imports.map((i) => [i.source, i.names, i.range.start.line]),
      [
        ['./x', ['a', 'b'], 1],
        ['y', ['ns'], 2],
      ],
    );
    const names = result.references.map((r) => r.name);
    assert.ok(names.includes('Base') && names.includes('Promise') && names.includes('local'), names.join(' '));
    // The definitions' own names are not references; their uses are.
    assert.equal(result.references.filter((r) => r.name === 'helper').length, 1);
    const use = result.references.find((r) => r.name === 'helper')!;
    assert.deepEqual(use.range, { start: { line: 15, column: 37 }, end: { line: 15, column: 43 } });
  });

  it('TSX and JavaScript: components, classes, arrow functions, require and dynamic import', async () => {
    const tsx = await outline('tsx', 'export function App(): JSX.Element { return <div className="a">{title}</div>; }\n');
    assert.deepEqual(summary(tsx.definitions), ['App function']);
    assert.ok(tsx.references.some((r) => r.name === 'title'));
    const js = await outline(
      'javascript',
      [
        "const fs = require('node:fs');",
        '/** Adds. */',
        'function add(a, b) { return a + b; }',
        'class Box { open() {} static size = 1; #secret = 2; }',
        'export const twice = (x) => add(x, x);',
        "const lazy = () => import('./lazy.js');",
      ].join('\n'),
    );
    assert.deepEqual(summary(js.definitions), [
      'fs constant',
      'add function',
      'Box class',
      'Box.open method',
      'Box.size field',
      'Box.#secret field',
      'twice function',
      'lazy function',
    ]);
    assert.equal(find(js.definitions, 'add').doc, 'Adds.');
    assert.deepEqual(
      js.imports.map((i) => i.source),
      ['node:fs', './lazy.js'],
    );
  });

  it('Python: classes, methods, docstrings, module constants, imports', async () => {
    const result = await outline(
      'python',
      [
        'import os, sys as system',
        'from pkg.mod import a, b as c',
        'LIMIT = 10',
        'class Store(Base):',
        '    """Keeps things.',
        '',
        '    Many of them."""',
        '    kind = "store"',
        '    def put(self, item):',
        '        """Adds an item."""',
        '        count = 1',
        '        return count',
        '    @property',
        '    def size(self): return 0',
        '# Makes one.',
        'def make():',
        '    def inner(): pass',
        '    return Store()',
      ].join('\n'),
    );
    assert.deepEqual(summary(result.definitions), [
      'LIMIT constant',
      'Store class',
      'Store.kind field',
      'Store.put method',
      'Store.size method',
      'make function',
      'make.inner function',
    ]);
    assert.equal(find(result.definitions, 'Store').doc, 'Keeps things.\n\nMany of them.');
    assert.equal(find(result.definitions, 'put').doc, 'Adds an item.');
    assert.equal(find(result.definitions, 'make').doc, 'Makes one.');
    assert.equal(find(result.definitions, 'put').signature, 'def put(self, item):');
    assert.deepEqual(
      result.imports.map((i) => [i.source, i.names]),
      [
        ['os', []],
        ['sys', []],
        ['pkg.mod', ['a', 'b']],
      ],
    );
    assert.ok(result.references.some((r) => r.name === 'Base'));
  });

  it('Go: functions, methods with their receiver as container, types, fields, constants, imports', async () => {
    const result = await outline(
      'go',
      [
        'package main',
        'import (',
        '  "fmt"',
        '  str "strings"',
        ')',
        '// Point is a place.',
        'type Point struct {',
        '  X int',
        '}',
        'type Shape interface { Area() float64 }',
        'const Max = 3',
        '// Move moves it.',
        'func (p *Point) Move(dx int) { p.X += dx }',
        'func main() { fmt.Println(str.ToUpper("x")) }',
      ].join('\n'),
    );
    assert.deepEqual(summary(result.definitions), [
      'Point struct',
      'Point.X field',
      'Shape interface',
      'Shape.Area method',
      'Max constant',
      'Point.Move method',
      'main function',
    ]);
    assert.equal(find(result.definitions, 'Point').doc, 'Point is a place.');
    assert.equal(find(result.definitions, 'Move').doc, 'Move moves it.');
    assert.deepEqual(
      result.imports.map((i) => i.source),
      ['fmt', 'strings'],
    );
  });

  it('Rust: items, impl blocks as containers, doc comments past attributes, use', async () => {
    const result = await outline(
      'rust',
      [
        'use std::collections::HashMap;',
        '/// A counter.',
        '#[derive(Debug)]',
        'pub struct Counter { pub n: u32 }',
        'pub enum Mode { Fast, Slow(u8) }',
        'pub trait Tick { fn tick(&mut self); }',
        'impl Counter {',
        '    /// Makes one.',
        '    pub fn new() -> Self { Counter { n: 0 } }',
        '}',
        'macro_rules! twice { ($e:expr) => { $e * 2 } }',
        'mod util { pub fn help() {} }',
      ].join('\n'),
    );
    assert.deepEqual(summary(result.definitions), [
      'Counter struct',
      'Counter.n field',
      'Mode enum',
      'Mode.Fast enumMember',
      'Mode.Slow enumMember',
      'Tick trait',
      'Tick.tick method',
      'Counter.new method',
      'twice macro',
      'util module',
      'util.help function',
    ]);
    assert.equal(find(result.definitions, 'Counter').doc, 'A counter.');
    assert.equal(find(result.definitions, 'new').doc, 'Makes one.');
    assert.deepEqual(
      result.imports.map((i) => i.source),
      ['std::collections::HashMap'],
    );
  });

  it('Java: classes, constructors, methods, fields, nested types, Javadoc, imports', async () => {
    const result = await outline(
      'java',
      [
        'package app;',
        'import java.util.List;',
        '/** The app. */',
        'public class App {',
        '  private int count = 0;',
        '  /** Builds it. */',
        '  public App() {}',
        '  public void run(List<String> args) { count++; }',
        '  enum Mode { ON, OFF }',
        '}',
      ].join('\n'),
    );
    assert.deepEqual(summary(result.definitions), [
      'App class',
      'App.count field',
      'App.App constructor',
      'App.run method',
      'App.Mode enum',
      'Mode.ON enumMember',
      'Mode.OFF enumMember',
    ]);
    assert.equal(find(result.definitions, 'App').doc, 'The app.');
    assert.equal(result.definitions.find((d) => d.kind === 'constructor')!.doc, 'Builds it.');
    assert.deepEqual(
      result.imports.map((i) => i.source),
      ['java.util.List'],
    );
  });

  it('C and C++: functions, structs, classes, namespaces, macros, includes', async () => {
    const c = await outline(
      'c',
      [
        '#include <stdio.h>',
        '#include "util.h"',
        '#define MAX 10',
        '// A point.',
        'struct point { int x; };',
        'static int total = 0;',
        'int add(int a, int b) { return a + b; }',
      ].join('\n'),
    );
    assert.deepEqual(summary(c.definitions), ['MAX macro', 'point struct', 'point.x field', 'total variable', 'add function']);
    assert.equal(find(c.definitions, 'point').doc, 'A point.');
    assert.deepEqual(
      c.imports.map((i) => i.source),
      ['stdio.h', 'util.h'],
    );
    const cpp = await outline(
      'cpp',
      ['namespace geo {', 'class Shape { public: virtual double area(); };', '}', 'double geo::Shape::area() { return 0; }'].join('\n'),
    );
    assert.deepEqual(summary(cpp.definitions), ['geo namespace', 'geo.Shape class', 'Shape.area method', 'geo::Shape.area function']);
  });

  it('C#, Ruby, PHP and Bash', async () => {
    const csharp = await outline(
      'csharp',
      [
        'using System;',
        'namespace App {',
        '  /// <summary>A tool.</summary>',
        '  public class Tool {',
        '    public int Size { get; set; }',
        '    public void Use() {}',
        '  }',
        '}',
      ].join('\n'),
    );
    assert.deepEqual(summary(csharp.definitions), ['App namespace', 'App.Tool class', 'Tool.Size property', 'Tool.Use method']);
    assert.equal(find(csharp.definitions, 'Tool').doc, '<summary>A tool.</summary>');
    assert.deepEqual(
      csharp.imports.map((i) => i.source),
      ['System'],
    );
    const ruby = await outline(
      'ruby',
      ["require 'json'", '# Tools.', 'module Kit', '  class Box', '    SIZE = 1', '    def open; end', '  end', 'end'].join('\n'),
    );
    assert.deepEqual(summary(ruby.definitions), ['Kit module', 'Kit.Box class', 'Box.SIZE constant', 'Box.open method']);
    assert.equal(find(ruby.definitions, 'Kit').doc, 'Tools.');
    assert.deepEqual(
      ruby.imports.map((i) => i.source),
      ['json'],
    );
    const php = await outline(
      'php',
      ['<?php', 'use Lib\\Thing;', 'class Cart { const MAX = 5; public function add($item) {} }', 'function total() {}'].join('\n'),
    );
    assert.deepEqual(summary(php.definitions), ['Cart class', 'Cart.MAX constant', 'Cart.add method', 'total function']);
    assert.deepEqual(
      php.imports.map((i) => i.source),
      ['Lib\\Thing'],
    );
    const bash = await outline('bash', ['#!/bin/sh', 'source ./lib.sh', '# Greets.', 'greet() { echo "hi $NAME"; }', 'NAME=world'].join('\n'));
    assert.deepEqual(summary(bash.definitions), ['greet function', 'NAME variable']);
    assert.equal(find(bash.definitions, 'greet').doc, 'Greets.');
    assert.deepEqual(
      bash.imports.map((i) => i.source),
      ['./lib.sh'],
    );
  });

  it('columns count UTF-16 code units, as JavaScript strings and LSP do', async () => {
    const result = await outline('javascript', 'const é😀 = 1; const after = é😀;\n');
    const after = find(result.definitions, 'after');
    // "const é😀 = 1; const " is 21 code units (the emoji is two).
    assert.deepEqual(after.nameRange.start, { line: 1, column: 22 });
    assert.deepEqual(result.references[0]!.range, { start: { line: 1, column: 30 }, end: { line: 1, column: 33 } });
  });

  it('the same outline whatever the query window (a definition or reference across a window edge is found once)', async () => {
    const source = Array.from(
      { length: 60 },
      (_, i) => `/** Doc ${i}. */\nexport function fn${i}(arg${i}: number) {\n  return arg${i} + fn${Math.max(0, i - 1)}(1);\n}\n`,
    ).join('');
    const whole = await outline('typescript', source);
    const small = new Extractor({ parseTimeoutMs: 10_000, maxDefinitions: 5000, maxReferences: 20_000, maxImports: 1000, windowChars: 97 });
    try {
      const windowed = await small.extract(source, 'typescript');
      assert.equal(whole.definitions.length, 60);
      assert.deepEqual(windowed.definitions, whole.definitions);
      assert.deepEqual(windowed.references, whole.references);
    } finally {
      small.dispose();
    }
  });

  it('caps definitions and references per file, and says the outline is cut', async () => {
    const source = Array.from({ length: 300 }, (_, i) => `function f${i}() { return a + b + c; }`).join('\n');
    const capped = new Extractor({ parseTimeoutMs: 10_000, maxDefinitions: 50, maxReferences: 100, maxImports: 10, windowChars: 1000 });
    try {
      const result = await capped.extract(source, 'javascript');
      assert.equal(result.definitions.length, 50);
      assert.equal(result.references.length, 100);
      assert.equal(result.truncated, true);
    } finally {
      capped.dispose();
    }
  });

  it('indexContent: parsed files get an outline, packed references and chunks; text files words only', async () => {
    const parsed = await indexContent(extractor, 'def load_config(path):\n    return read(path)\n', 'python');
    assert.equal(parsed.state, 'parsed');
    assert.deepEqual(
      decodeReferences(parsed.references).map((r) => r.name),
      ['path', 'read', 'path'],
    );
    assert.equal(parsed.chunks.length, 1);
    assert.match(parsed.chunks[0]!.symbols, /loadconfig load config/);
    const text = await indexContent(extractor, '# Notes\nSee parseHeader.\n', 'text');
    assert.equal(text.state, 'lexical');
    assert.deepEqual(text.definitions, []);
    assert.match(text.chunks[0]!.body, /parseheader parse header/);
    const minified = await indexContent(extractor, `var a=${'1+'.repeat(15_000)}1;`, 'javascript');
    assert.equal(minified.state, 'skipped');
    assert.equal(minified.reason, 'minified');
  });
});
