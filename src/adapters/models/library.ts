// The models folder: where a catalog model's GGUF file lives (`<modelsDir>/<file name>`),
// whether it is installed, and how a `gguf.model` setting (a path or a catalog model name)
// becomes a file to load.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Model } from '../../contracts/schemas.ts';
import type { ModelListing } from '../../core/catalog/model-listing.ts';
import type { Catalog, CatalogModel } from '../../core/catalog/schema.ts';
import { LoomError } from '../../core/errors.ts';

/** Suffix of a download in progress, next to the file it becomes. */
export const PARTIAL_SUFFIX = '.partial';

const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.gguf$/;

/**
 * The file name of a catalog model in the models folder: `file.name`, else the last segment of
 * its download URL, else (when that is not a plain `*.gguf` name) one made from the model name.
 * Undefined when the catalog names no file for the model.
 */
export function modelFileName(model: CatalogModel): string | undefined {
  if (!model.file) return undefined;
  if (model.file.name) return model.file.name;
  let last = '';
  try {
    last = decodeURIComponent(new URL(model.file.url).pathname.split('/').pop() ?? '');
  } catch {
    // a malformed URL or escape: fall back to the model name
  }
  return SAFE_FILE_NAME.test(last) ? last : `${model.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'model'}.gguf`;
}

/** Where the model's file is (or would be, once pulled); undefined without a catalog file. */
export function modelFilePath(model: CatalogModel, modelsDir: string): string | undefined {
  const name = modelFileName(model);
  return name === undefined ? undefined : path.join(modelsDir, name);
}

/** The catalog model called `name`: an exact match, else the only case-insensitive one. */
export function findCatalogModel(models: readonly CatalogModel[], name: string): CatalogModel | undefined {
  const wanted = name.trim();
  const exact = models.find((m) => m.name === wanted);
  if (exact) return exact;
  const folded = models.filter((m) => m.name.toLowerCase() === wanted.toLowerCase());
  return folded.length === 1 ? folded[0] : undefined;
}

/**
 * True when the file is there and complete: a regular file of the catalog's size (any size when
 * the catalog gives none). Downloads land under a `.partial` name and are renamed only once
 * verified, so a file under the final name is never half-written by Loom.
 */
export function isModelFileComplete(file: string, size?: number): boolean {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() && stat.size > 0 && (size === undefined || stat.size === size);
  } catch {
    return false;
  }
}

export interface ModelStatus {
  model: CatalogModel;
  /** Where its file is or goes; undefined when the catalog names no file. */
  path?: string;
  installed: boolean;
  /** Bytes: the catalog's figure, else the installed file's. */
  size?: number;
}

/** The catalog's models as found in one models folder. Reads the folder on every call (a few stats). */
export class ModelLibrary implements ModelListing {
  constructor(
    private readonly catalog: Pick<Catalog, 'models'>,
    readonly modelsDir: string,
  ) {}

  get models(): readonly CatalogModel[] {
    return this.catalog.models;
  }

  find(name: string): CatalogModel | undefined {
    return findCatalogModel(this.catalog.models, name);
  }

  status(model: CatalogModel): ModelStatus {
    const file = modelFilePath(model, this.modelsDir);
    if (!file) return { model, installed: false };
    const installed = isModelFileComplete(file, model.file?.size);
    let size = model.file?.size;
    if (size === undefined && installed) size = fs.statSync(file, { throwIfNoEntry: false })?.size;
    return { model, path: file, installed, size };
  }

  list(): ModelStatus[] {
    return this.catalog.models.map((m) => this.status(m));
  }

  /** The `GET /models` listing: the spec's fields plus size, sha256, quantization, installed. */
  listing(): Model[] {
    return this.list().map(({ model, installed, size }) => ({
      name: model.name,
      provider: model.provider,
      params: model.params,
      ...(model.description !== undefined && { description: model.description }),
      url: model.url,
      ...(size !== undefined && { size }),
      ...(model.file?.sha256 && { sha256: model.file.sha256 }),
      ...(model.file && { quantization: model.file.quantization }),
      installed,
    }));
  }
}

/**
 * Turns a `gguf.model` setting into the file to load. The setting is a catalog model name
 * (matched as `findCatalogModel` does; its file must be installed in `modelsDir`) or a path
 * (`~/` expands; a bare file name is also looked up in `modelsDir`). The file must start with
 * the GGUF magic. Throws LoomError `model_unavailable` saying what to do otherwise.
 */
export function resolveGgufModel(setting: string, catalog: Pick<Catalog, 'models'>, modelsDir: string): { file: string; name: string } {
  const value = setting.trim();
  const looksLikePath = value.includes('/') || value.includes('\\') || /\.gguf$/i.test(value);
  const model = looksLikePath ? undefined : findCatalogModel(catalog.models, value);
  if (model) {
    const file = modelFilePath(model, modelsDir);
    if (!file) {
      throw new LoomError(
        'model_unavailable',
        `The catalog model ${model.name} has no GGUF file to install.`,
        'Set gguf.model to the path of a .gguf file instead.',
      );
    }
    if (!isModelFileComplete(file, model.file?.size)) {
      const partial = fs.existsSync(file + PARTIAL_SUFFIX) ? ' (a download was started but is not complete)' : '';
      throw new LoomError(
        'model_unavailable',
        `The model ${model.name} is not installed: ${file} is missing${partial}.`,
        `Run: loom models pull ${model.name}`,
      );
    }
    checkGgufMagic(file);
    return { file, name: model.name };
  }

  const candidates: string[] = [];
  const expanded = value.startsWith('~/') || value.startsWith('~\\') ? path.join(os.homedir(), value.slice(2)) : value;
  if (!path.isAbsolute(expanded) && !looksLikeRelativePath(expanded)) candidates.push(path.join(modelsDir, expanded));
  candidates.push(path.resolve(expanded));
  const file = candidates.find((c) => fs.statSync(c, { throwIfNoEntry: false }) !== undefined);
  if (!file) {
    const names = catalog.models.filter((m) => m.file).map((m) => m.name);
    throw new LoomError(
      'model_unavailable',
      looksLikePath
        ? `The GGUF model file ${path.resolve(expanded)} does not exist.`
        : `gguf.model is "${value}": neither a catalog model nor an existing file.`,
      names.length
        ? `Set gguf.model to a .gguf file or to a catalog model (${names.join(', ')}), installed with: loom models pull NAME`
        : 'Set gguf.model to the path of a .gguf file.',
    );
  }
  if (!fs.statSync(file).isFile()) throw new LoomError('model_unavailable', `The GGUF model path ${file} is not a file.`);
  checkGgufMagic(file);
  return { file, name: path.basename(file).replace(/\.gguf$/i, '') };
}

function looksLikeRelativePath(value: string): boolean {
  return value.startsWith('./') || value.startsWith('../') || value.startsWith('.\\') || value.startsWith('..\\');
}

/** A GGUF file starts with the four bytes `GGUF`. */
function checkGgufMagic(file: string): void {
  let magic = '';
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(4);
      const read = fs.readSync(fd, buffer, 0, 4, 0);
      magic = buffer.subarray(0, read).toString('latin1');
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    throw new LoomError('model_unavailable', `The GGUF model file ${file} cannot be read: ${(error as Error).message}`);
  }
  if (magic !== 'GGUF') throw new LoomError('model_unavailable', `${file} is not a GGUF model file (it does not start with "GGUF").`);
}
