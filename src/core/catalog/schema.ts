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

export const CatalogFile = Type.Object(
  {
    products: Type.Array(CatalogProduct),
    models: Type.Array(Model),
  },
  { additionalProperties: false },
);

export type Catalog = Static<typeof CatalogFile>;
