import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceStack } from '../../src/compose/resources.ts';

describe('ResourceStack', () => {
  it('closes the resources last first, each step in its place', async () => {
    const closed: string[] = [];
    const resources = new ResourceStack();
    resources.push({ close: async () => void closed.push('store') });
    resources.onClose(() => void closed.push('flush'));
    const app = resources.push({ name: 'app', close: async () => void closed.push('app') });
    assert.equal(app.name, 'app');
    await resources.close();
    assert.deepEqual(closed, ['app', 'flush', 'store']);
  });

  it('closes every resource when some fail, then rejects with the first failure', async () => {
    const closed: string[] = [];
    const resources = new ResourceStack();
    resources.onClose(() => void closed.push('first'));
    resources.onClose(() => {
      throw new Error('second failed');
    });
    resources.onClose(async () => {
      throw new Error('third failed');
    });
    await assert.rejects(resources.close(), /third failed/);
    assert.deepEqual(closed, ['first']);
  });

  it('closes once, however often it is asked', async () => {
    let closes = 0;
    const resources = new ResourceStack();
    resources.onClose(() => void closes++);
    await Promise.all([resources.close(), resources.close()]);
    await resources.close();
    assert.equal(closes, 1);
    assert.throws(() => resources.onClose(() => {}), /already closed/);
  });

  it('closes what a failed start-up opened and throws its error', async () => {
    const closed: string[] = [];
    const resources = new ResourceStack();
    const start = resources.unwindOnFailure(async () => {
      resources.onClose(() => void closed.push('store'));
      throw new Error('the port is taken');
    });
    await assert.rejects(start, /the port is taken/);
    assert.deepEqual(closed, ['store']);
  });
});
