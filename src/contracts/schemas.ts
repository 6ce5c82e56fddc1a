// The resources of the hosted API, as OpenAPI and docs/api.md describe them.
import { Type, type Static } from 'typebox';
import { StringEnum, Text } from './schema-helpers.ts';

import { PLATFORMS, PRODUCT_IDS } from './products.ts';

// The names alone live in products.ts, free of the schema library, for the CLI's quick start-up.
export { PLATFORMS, PRODUCT_IDS, type Platform, type ProductId } from './products.ts';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Machine-readable error code, e.g. not_found.' }),
    message: Type.String({ description: 'Human-readable explanation.' }),
    hint: Type.Optional(Type.String({ description: 'What to do about it.' })),
    error_description: Type.Optional(Type.String({ description: 'OAuth errors only: the message again, for OAuth clients (RFC 6749 §5.2).' })),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({ description: 'Where the problem is, e.g. body.email.' }),
          message: Type.String(),
        }),
        { description: 'On validation_error: every failing field.' },
      ),
    ),
  },
  { $id: 'Error', title: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const Health = Type.Object(
  {
    ok: Type.Boolean({ description: 'True when the service (and, in v2, every check) is healthy.' }),
    version: Type.String({ description: 'Service version.' }),
    uptime: Type.Number({ description: 'Seconds since the process started.' }),
    checks: Type.Optional(
      Type.Object(
        {
          store: Type.Object({
            ok: Type.Boolean(),
            latencyMs: Type.Number({ description: 'Round trip of a trivial query, in milliseconds.' }),
          }),
        },
        { description: 'Only with API-Version: v2: the state of what the service depends on.' },
      ),
    ),
  },
  { title: 'Health' },
);
export type Health = Static<typeof Health>;

export const DownloadAsset = Type.Object(
  {
    key: Type.String({ description: 'Asset key, platform-architecture form (e.g. linux-x64).' }),
    name: Type.String({ description: 'Display name.' }),
    url: Type.String({ format: 'uri', description: 'Direct release URL on a code-hosting platform.' }),
    platform: StringEnum(PLATFORMS),
    size: Type.Optional(Type.Integer({ minimum: 0, description: 'File size in bytes.' })),
    sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Hex SHA-256 of the file.' })),
  },
  { title: 'DownloadAsset' },
);
export type DownloadAsset = Static<typeof DownloadAsset>;

export const ProductDownloads = Type.Object(
  {
    id: StringEnum(PRODUCT_IDS),
    name: Type.String({ description: 'Display name.' }),
    version: Type.Optional(Type.String()),
    assets: Type.Array(DownloadAsset),
  },
  { title: 'ProductDownloads' },
);
export type ProductDownloads = Static<typeof ProductDownloads>;

export const Model = Type.Object(
  {
    name: Type.String(),
    provider: Type.String(),
    params: Type.String({ description: 'Parameter count label, e.g. 1.5B.' }),
    description: Type.Optional(Type.String()),
    url: Type.String({ format: 'uri', description: 'Model hub page.' }),
    // Beyond the spec: the GGUF file Loom downloads for this model, and whether this server has it.
    size: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Size in bytes of the GGUF file `loom models pull` downloads (absent when the catalog does not know it).' }),
    ),
    sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Hex SHA-256 of the GGUF file; a download is checked against it.' })),
    quantization: Type.Optional(Type.String({ description: 'Quantization of the GGUF file, e.g. Q4_K_M or Q8_0.' })),
    installed: Type.Optional(
      Type.Boolean({ description: "True when the GGUF file is present and complete in this server's models folder (LOOM_MODELS_DIR)." }),
    ),
  },
  { title: 'Model' },
);
export type Model = Static<typeof Model>;

export const FeedbackRequest = Type.Object(
  {
    name: Text({ minLength: 1, maxLength: 100 }),
    email: Type.Optional(
      Type.String({ format: 'email', maxLength: 254, description: 'Required without a token; taken from the signed-in user when omitted with one.' }),
    ),
    subject: Text({ minLength: 1, maxLength: 200 }),
    message: Text({ minLength: 1, maxLength: 5000 }),
  },
  { additionalProperties: false, title: 'FeedbackRequest' },
);
export type FeedbackRequest = Static<typeof FeedbackRequest>;

export const FeedbackStored = Type.Object({ id: Type.String(), ok: Type.Boolean() }, { title: 'FeedbackStored' });
export type FeedbackStored = Static<typeof FeedbackStored>;

/** Language ids as editors name them (typescript, python, cpp, c#, objective-c++, …). */
export const LanguageId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.+#-]+$', description: 'Language id, e.g. typescript.' });

export const TabCompleteRequest = Type.Object(
  {
    language: LanguageId,
    prefix: Type.String({
      maxLength: 4_000_000,
      description: 'Text before the cursor (the server keeps only its budget: completion.prefixChars, cut at a line start).',
    }),
    suffix: Type.String({ maxLength: 4_000_000, description: 'Text after the cursor (cut to completion.suffixChars at a line end).' }),
    filePath: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: "The document's path; keys the type-ahead cache and supersession of earlier requests for it.",
      }),
    ),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Beyond the spec: a model this server serves (builtin, gguf, openai, or a model name); the configured default when absent.',
      }),
    ),
  },
  { additionalProperties: false, title: 'TabCompleteRequest' },
);
export type TabCompleteRequest = Static<typeof TabCompleteRequest>;

/**
 * What a completion wrote past characters the line already has after the cursor: an editor's
 * auto-closed quote in `import fs from 'node:|'` gets `completion` `fs` and this `{skip: 1, text: ";"}`.
 */
export const CompletionContinuation = Type.Object(
  {
    skip: Type.Integer({ minimum: 1, description: 'How many characters of the text after the cursor the model passed through.' }),
    text: Type.String({ minLength: 1, description: 'What it wrote after them: it goes right after those characters.' }),
  },
  { additionalProperties: false, title: 'CompletionContinuation' },
);
export type CompletionContinuation = Static<typeof CompletionContinuation>;

export const TabCompletion = Type.Object(
  {
    completion: Type.String({
      description: 'Text to insert at the cursor; it never repeats the text after the cursor (`suffix`). Empty when the model has nothing it is sure of.',
    }),
    continuation: Type.Optional(CompletionContinuation),
    latencyMs: Type.Integer({ minimum: 0, description: 'Server-side time from receiving the request to the answer.' }),
    model: Type.Optional(Type.String({ description: 'The model that answered.' })),
  },
  { title: 'TabCompletion' },
);
export type TabCompletion = Static<typeof TabCompletion>;
