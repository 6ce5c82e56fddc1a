// The models folder as the servers see it: the catalog's models and which of them are
// installed (src/adapters/models/library.ts reads the folder on each call).
import type { Catalog } from '../core/catalog/schema.ts';
import type { ModelListing } from '../core/catalog/model-listing.ts';
import { ModelLibrary } from '../adapters/models/library.ts';

/**
 * The catalog's models as installed in `modelsDir`.
 *
 * @example
 * const models = createModelLibrary(loadCatalog(), config.modelsDir);
 * models.listing().filter((model) => model.installed);
 */
export function createModelLibrary(catalog: Pick<Catalog, 'models'>, modelsDir: string): ModelListing {
  return new ModelLibrary(catalog, modelsDir);
}
