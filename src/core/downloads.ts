import type { DownloadAsset, Platform, ProductDownloads, ProductId } from '../contracts/schemas.ts';
import type { Catalog } from './catalog/schema.ts';
import { LoomError } from './errors.ts';

export interface DownloadFilter {
  product?: ProductId;
  /** `all` (or none) keeps every asset. */
  platform?: Platform | 'all';
}

/**
 * Narrows the catalog's products: `product` keeps one product; a platform keeps only that
 * platform's assets and drops products that have none left for it.
 */
export function listDownloads(catalog: Catalog, filter: DownloadFilter): ProductDownloads[] {
  const platform = filter.platform === 'all' ? undefined : filter.platform;
  const result: ProductDownloads[] = [];
  for (const product of catalog.products) {
    if (filter.product && product.id !== filter.product) continue;
    const assets = platform ? product.assets.filter((a) => a.platform === platform) : product.assets;
    if (platform && assets.length === 0) continue;
    result.push({ ...product, assets });
  }
  return result;
}

export function findAsset(catalog: Catalog, productId: ProductId, key: string): DownloadAsset {
  const product = catalog.products.find((p) => p.id === productId);
  if (!product) {
    throw new LoomError('not_found', `Product ${productId} has no downloads.`, 'GET /api/v1/download lists what is available.');
  }
  const asset = product.assets.find((a) => a.key === key);
  if (!asset) {
    throw new LoomError('not_found', `Product ${productId} has no asset "${key}".`, `Known assets: ${product.assets.map((a) => a.key).join(', ')}.`);
  }
  return asset;
}
