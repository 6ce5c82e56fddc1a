import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import YAML from 'yaml';
import { CatalogFile, type Catalog } from './schema.ts';

export const DEFAULT_CATALOG_PATH = fileURLToPath(new URL('./default-catalog.yaml', import.meta.url));

export class CatalogError extends Error {
  override name = 'CatalogError';
}

const checkCatalog = Compile(CatalogFile);

/** Reads and validates a catalog file (YAML or JSON, by extension; YAML is a superset anyway). */
export function loadCatalog(file: string = DEFAULT_CATALOG_PATH): Catalog {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CatalogError(`cannot read catalog ${file}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = path.extname(file).toLowerCase() === '.json' ? JSON.parse(text) : YAML.parse(text);
  } catch (error) {
    throw new CatalogError(`catalog ${file} does not parse: ${(error as Error).message}`);
  }
  return parseCatalog(data, file);
}

export function parseCatalog(data: unknown, origin = 'catalog'): Catalog {
  if (!checkCatalog.Check(data)) {
    const problems = [...checkCatalog.Errors(data)].slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new CatalogError(`${origin} is not a valid catalog:\n  ${problems.join('\n  ')}`);
  }
  const catalog = data as Catalog;
  const seenProducts = new Set<string>();
  for (const product of catalog.products) {
    if (seenProducts.has(product.id)) throw new CatalogError(`${origin}: product ${product.id} is listed twice`);
    seenProducts.add(product.id);
    const keys = new Set<string>();
    for (const asset of product.assets) {
      if (keys.has(asset.key)) throw new CatalogError(`${origin}: product ${product.id} has asset ${asset.key} twice`);
      keys.add(asset.key);
    }
  }
  const names = new Set<string>();
  for (const model of catalog.models) {
    if (names.has(model.name)) throw new CatalogError(`${origin}: model ${model.name} is listed twice`);
    names.add(model.name);
  }
  return catalog;
}
