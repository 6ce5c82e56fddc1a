// A default install carries node-llama-cpp's CPU (and Metal) binaries only: its CUDA and Vulkan
// packages (~700 MB) are replaced by an empty stub through package.json `overrides`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

const root = new URL('../../../', import.meta.url);
const pkg = JSON.parse(fs.readFileSync(new URL('package.json', root), 'utf8'));
const GPU_PACKAGES = ['linux-x64-cuda', 'linux-x64-cuda-ext', 'linux-x64-vulkan', 'win-x64-cuda', 'win-x64-cuda-ext', 'win-x64-vulkan'].map(
  (name) => `@node-llama-cpp/${name}`,
);

describe('lean install', () => {
  it('overrides every CUDA and Vulkan binary package of node-llama-cpp with the empty stub', () => {
    for (const name of GPU_PACKAGES) assert.equal(pkg.overrides?.[name], 'file:./packaging/no-gpu-binaries', name);
    const optional = Object.keys(JSON.parse(fs.readFileSync(new URL('node_modules/node-llama-cpp/package.json', root), 'utf8')).optionalDependencies);
    const gpu = optional.filter((name) => /cuda|vulkan/.test(name));
    assert.deepEqual(gpu.sort(), [...GPU_PACKAGES].sort(), 'a new GPU package of node-llama-cpp needs an override too');
  });

  it('installed the stub in their place, and the CPU binaries for this machine', () => {
    const require = createRequire(new URL('package.json', root));
    for (const name of GPU_PACKAGES.filter((n) => n.includes(process.platform === 'win32' ? 'win' : 'linux'))) {
      const installed = require(`${name}/package.json`);
      assert.equal(installed.name, 'loom-no-gpu-binaries', name);
    }
    if (process.platform === 'linux' && process.arch === 'x64') {
      assert.ok(fs.existsSync(new URL('node_modules/@node-llama-cpp/linux-x64/bins', root)), 'CPU binaries present');
    }
  });
});
