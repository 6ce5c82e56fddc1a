// Code-aware terms for the ranked search, chunks, and packed references.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkRanges } from '../../../src/core/code/chunks.ts';
import { decodeReferences, encodeReferences, referencedNames } from '../../../src/core/code/references-codec.ts';
import { identifierTerms, queryTerms, splitIdentifier, termsOfText } from '../../../src/core/code/tokens.ts';
import type { Reference } from '../../../src/core/code/model.ts';

describe('terms', () => {
  it('splits identifiers at humps, acronyms, underscores and digits', () => {
    assert.deepEqual(splitIdentifier('getUserName'), ['get', 'user', 'name']);
    assert.deepEqual(splitIdentifier('get_user_name'), ['get', 'user', 'name']);
    assert.deepEqual(splitIdentifier('HTTPServer2xx'), ['http', 'server', '2', 'xx']);
    assert.deepEqual(splitIdentifier('utf8Decode'), ['utf', '8', 'decode']);
    assert.deepEqual(splitIdentifier('__init__'), ['init']);
    assert.deepEqual(splitIdentifier('éCole'), ['é', 'cole']);
  });

  it('indexes identifiers whole and split, so both spellings find each other', () => {
    assert.deepEqual(identifierTerms('parseConfigFile'), ['parseconfigfile', 'parse', 'config', 'file']);
    assert.deepEqual(identifierTerms('parse_config_file'), ['parseconfigfile', 'parse', 'config', 'file']);
    assert.deepEqual(queryTerms('parse config_file'), ['parse', 'configfile', 'config', 'file']);
    const terms = termsOfText('x = a + a + a + a + a').split(' ');
    // A term counts at most three times in a chunk.
    assert.equal(terms.filter((term) => term === 'a').length, 3);
  });

  it('cuts chunks at top-level definitions, at least 20 and at most 80 lines', () => {
    assert.deepEqual(chunkRanges(120, [30, 45, 90]), [
      { start: 1, end: 29 },
      { start: 30, end: 89 },
      { start: 90, end: 120 },
    ]);
    assert.deepEqual(chunkRanges(200, []), [
      { start: 1, end: 80 },
      { start: 81, end: 160 },
      { start: 161, end: 200 },
    ]);
    assert.deepEqual(chunkRanges(0, []), []);
  });

  it('packs references and reads them back, all or by name', () => {
    const references: Reference[] = [
      { name: 'alpha', range: { start: { line: 1, column: 5 }, end: { line: 1, column: 10 } } },
      { name: 'βeta', range: { start: { line: 1, column: 12 }, end: { line: 1, column: 16 } } },
      { name: 'alpha', range: { start: { line: 300, column: 70_000 }, end: { line: 300, column: 70_005 } } },
    ];
    const packed = encodeReferences(references);
    assert.deepEqual(decodeReferences(packed), references);
    assert.deepEqual(decodeReferences(packed, 'alpha'), [references[0], references[2]]);
    assert.deepEqual(decodeReferences(packed, 'missing'), []);
    assert.deepEqual(referencedNames(packed), ['alpha', 'βeta']);
    assert.ok(packed.length < 30);
  });

  it('reads no bytes (a file indexed as text) as no references', () => {
    assert.deepEqual(decodeReferences(new Uint8Array(0)), []);
    assert.deepEqual(decodeReferences(new Uint8Array(0), 'add'), []);
    assert.deepEqual(referencedNames(new Uint8Array(0)), []);
  });
});
