// The catalog file: what can be downloaded and which models exist. Checked at start.
import { Type, type Static } from 'typebox';
import { DownloadAsset, Model, PRODUCT_IDS } from '../../contracts/schemas.ts';
import { StringEnum } from '../../contracts/schema-helpers.ts';

export const CatalogProduct = Type.Object(
  {
    id: StringEnum(PRODUCT_IDS),
    name: Type.String({ minLength: 1 }),
    version: Type.Optional(Type.String({ minLength: 1 })),
    assets: Type.Array(DownloadAsset),
  },
  { additionalProperties: false },
);

/** The GGUF file `loom models pull` downloads for a catalog model. */
export const CatalogModelFile = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://', description: 'Direct download URL of the .gguf file (redirects are followed).' }),
    name: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*\\.gguf$',
        description: 'File name in the models folder; by default the last segment of the URL.',
      }),
    ),
    size: Type.Optional(Type.Integer({ minimum: 1, description: 'Bytes; a download of another size is refused.' })),
    sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Hex SHA-256; without it `loom models pull` needs --no-verify.' })),
    quantization: Type.String({ minLength: 1, description: 'e.g. Q4_K_M, Q8_0.' }),
  },
  { additionalProperties: false },
);
export type CatalogModelFile = Static<typeof CatalogModelFile>;

/** A model as the catalog lists it: the spec's Model fields plus, optionally, its GGUF file. */
export const CatalogModel = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    provider: Model.properties.provider,
    params: Model.properties.params,
    description: Model.properties.description,
    url: Model.properties.url,
    file: Type.Optional(CatalogModelFile),
  },
  { additionalProperties: false },
);
export type CatalogModel = Static<typeof CatalogModel>;

export const CatalogFile = Type.Object(
  {
    products: Type.Array(CatalogProduct),
    models: Type.Array(CatalogModel),
  },
  { additionalProperties: false },
);

export type Catalog = Static<typeof CatalogFile>;
