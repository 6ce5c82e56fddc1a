// The Node lines Loom supports, said in four places that must agree: the table
// (src/cli/node-lines.ts), package.json's engines, the lines .ci/run tests and the README; and
// what `loom doctor` says of each kind of Node.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { checkNode } from '../../src/cli/commands/doctor.ts';
import { enginesRange, NODE_LINES, nodeSupport, testedLines } from '../../src/cli/node-lines.ts';
import { ROOT } from '../support/cli.ts';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('the Node lines', () => {
  it('package.json engines, .ci/run and the README say what the table says', () => {
    assert.equal(JSON.parse(read('package.json')).engines.node, enginesRange());
    assert.equal(JSON.parse(read('package-lock.json')).packages[''].engines.node, enginesRange());
    const ciLines = /^NODE_LINES=\(([^)]*)\)$/m.exec(read('.ci/run'))?.[1]?.split(/\s+/).map(Number);
    assert.deepEqual(
      ciLines,
      NODE_LINES.map((line) => line.major),
    );
    assert.ok(read('README.md').includes(`tested on Node ${testedLines()}`), 'README: tested on Node …');
  });

  it('the running Node is one of them (CI runs the suite on each)', () => {
    assert.equal(nodeSupport(process.versions.node).kind, 'tested', process.versions.node);
  });

  it('loom doctor: a tested line is ok, one past its end of life a warning, a newer one a warning, the rest a failure with the fix', () => {
    assert.equal(checkNode('24.22.3').state, 'ok');
    assert.match(checkNode('22.23.5').detail, /tested on Node 20, 22 and 24/);
    const ended = checkNode('20.20.2');
    assert.equal(ended.state, 'warn');
    assert.match(ended.detail, /supported and tested, but its line reached its end of life on 2026-04-30/);
    assert.match(ended.fix!, /Node 24/);
    assert.equal(checkNode('26.1.0').state, 'warn');
    assert.match(checkNode('26.1.0').detail, /newer than the lines Loom is tested on/);
    for (const [version, why] of [
      ['20.11.0', /older than 20\.19\.0/],
      ['22.12.0', /older than 22\.13\.0/],
      ['23.11.0', /not supported/],
      ['18.20.4', /not supported/],
    ] as const) {
      const check = checkNode(version);
      assert.equal(check.state, 'fail', version);
      assert.match(check.detail, why);
      assert.ok(check.fix, version);
    }
  });
});
