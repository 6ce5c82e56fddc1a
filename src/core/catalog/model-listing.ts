// What the hosted API's `GET /models` needs of a models folder: the catalog's models, each
// saying whether its file is installed there. The folder is read by ModelLibrary
// (src/adapters/models/library.ts), which compose builds (src/compose/models.ts).
import type { Model } from '../../contracts/schemas.ts';

/**
 * The catalog's models as installed in one models folder.
 *
 * @example
 * const models: ModelListing = createModelLibrary(catalog, config.modelsDir);
 * models.listing(); // [{ name: 'qwen2.5-coder-1.5b', installed: false, … }]
 */
export interface ModelListing {
  /** The `GET /models` listing: the spec's fields plus size, sha256, quantization, installed. */
  listing(): Model[];
}
