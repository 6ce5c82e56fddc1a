export { BuiltinModel, type BuiltinModelOptions, type SuggestInput, type Suggestion } from './model.ts';
export { trainOnFolder, acceptsFile, skipsDirectory, type TrainOptions } from './corpus.ts';
export { BuiltinProvider } from './provider.ts';
export { DEFAULT_SETTINGS, type DecoderSettings } from './decoder.ts';
export { IndexScope, type Scope, type ScopeIndex, type ScopeRequest, type ScopeSource } from './scope.ts';
