// The builtin provider: the embedded model behind the provider contract. It is synchronous
// and takes milliseconds, so a request is checked for abortion before and after it runs.

import type { CompletionProvider, ProviderCapabilities, ProviderRequest, ProviderResult } from '../provider.ts';
import type { BuiltinModel } from './model.ts';

export class BuiltinProvider implements CompletionProvider {
  readonly kind = 'builtin' as const;
  readonly name = 'builtin';
  readonly capabilities: ProviderCapabilities = { fim: true, chat: false, tools: false };

  constructor(readonly model: BuiltinModel) {}

  async complete(request: ProviderRequest): Promise<ProviderResult> {
    request.signal.throwIfAborted();
    // Not a chat model: an instruction in prose has no code to continue.
    if (request.mode !== 'fim') return { text: '', tokens: 0 };
    const result = this.model.suggest({
      prefix: request.prefix,
      suffix: request.suffix,
      filePath: request.filePath,
      language: request.language,
      maxTokens: request.maxTokens,
      stop: request.stop,
    });
    request.signal.throwIfAborted();
    return result;
  }

  async close(): Promise<void> {}
}
