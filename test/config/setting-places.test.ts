// Hints whose way out is a setting say where it is set: the file and key, the environment
// variable; in the desktop app, settings.json's completion keys first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainSettings, settingPlaces } from '../../src/config/setting-places.ts';

const HOSTED = { configFile: '/home/ada/.config/loom/config.json' };
const DESKTOP = { ...HOSTED, settingsFile: '/home/ada/.config/loom/settings.json' };

describe('where a setting is set', () => {
  it('names the config file and key and the environment variables; settings.json first where the process reads it', () => {
    assert.equal(settingPlaces('gguf.model', HOSTED), '"gguf": {"model": …} in /home/ada/.config/loom/config.json, or LOOM_GGUF_MODEL');
    assert.equal(
      settingPlaces('openai.apiKey', DESKTOP),
      '"completion": {"openai": {"apiKey": …}} in /home/ada/.config/loom/settings.json (applies at once), or "openai": {"apiKey": …} in /home/ada/.config/loom/config.json, or LOOM_OPENAI_API_KEY or OPENAI_API_KEY',
    );
    // Not a completion setting: settings.json does not hold it.
    assert.equal(settingPlaces('oidc.issuer', DESKTOP), '"oidc": {"issuer": …} in /home/ada/.config/loom/config.json, or LOOM_OIDC_ISSUER');
  });

  it('adds one sentence to a hint for the settings it names, and leaves other hints as they are', () => {
    const explain = explainSettings(HOSTED);
    assert.equal(
      explain('Set gguf.model to a .gguf file, or completion.provider to builtin.'),
      'Set gguf.model to a .gguf file, or completion.provider to builtin. Where: completion.provider is "completion": {"provider": …} in /home/ada/.config/loom/config.json, or LOOM_COMPLETION_PROVIDER; gguf.model is "gguf": {"model": …} in /home/ada/.config/loom/config.json, or LOOM_GGUF_MODEL.',
    );
    assert.equal(explain('Open another folder in the workspace.'), 'Open another folder in the workspace.');
    // Once: a hint explained already is not explained again.
    assert.equal(explain(explain('Lower gguf.contextSize.')), explain('Lower gguf.contextSize.'));
    // A key inside another word or key is not the setting.
    assert.equal(explain('See xgguf.model and gguf.modelsDir.'), 'See xgguf.model and gguf.modelsDir.');
  });
});
