// The builtin provider: the embedded model behind the provider contract. It is synchronous
// and takes milliseconds, so a request is checked for abortion before and after it runs.
//
// With a scope source (the code index's names in scope, scope.ts) a request whose word being
// typed has no evidence is asked again with the names in scope; the index is read only then.

import type { CompletionProvider, ProviderCapabilities, ProviderRequest, ProviderResult } from '../provider.ts';
import type { BuiltinModel, SuggestInput } from './model.ts';
import type { ScopeSource } from './scope.ts';

export class BuiltinProvider implements CompletionProvider {
  readonly kind = 'builtin' as const;
  readonly name = 'builtin';
  readonly capabilities: ProviderCapabilities = { fim: true, chat: false, tools: false };

  /**
   * @example
   * new BuiltinProvider(model);                                  // the project's tokens only
   * new BuiltinProvider(model, new IndexScope(code.index));      // and the names the code index says are in scope
   */
  constructor(
    readonly model: BuiltinModel,
    private readonly scope?: ScopeSource,
  ) {}

  async complete(request: ProviderRequest): Promise<ProviderResult> {
    request.signal.throwIfAborted();
    // Not a chat model: an instruction in prose has no code to continue.
    if (request.mode !== 'fim') return { text: '', tokens: 0 };
    const input: SuggestInput = {
      prefix: request.prefix,
      suffix: request.suffix,
      filePath: request.filePath,
      language: request.language,
      maxTokens: request.maxTokens,
      stop: request.stop,
    };
    let result = this.model.suggest(input);
    if (result.scopeWanted && this.scope) {
      const scope = await this.scope.scopeOf(input, request.signal);
      request.signal.throwIfAborted();
      if (scope) result = this.model.suggest({ ...input, scope });
    }
    request.signal.throwIfAborted();
    return { text: result.text, tokens: result.tokens };
  }

  async close(): Promise<void> {}
}
