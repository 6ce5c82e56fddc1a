// `loom downloads list|get`: the builds the hosted API offers (GET /api/v1/download), and one
// asset fetched to a file: resolved by the server (GET /download/{product}/{asset}, which checks
// the release exists), downloaded with progress on stderr, resumed from `FILE.partial` after an
// interruption (HTTP Range), and checked against the sha256 and size the server gives.
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { LOOM_VERSION } from '../../config/version.ts';
import { PLATFORMS, PRODUCT_IDS, type Platform, type ProductId } from '../../contracts/products.ts';
import { CliError, cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { hostedCall, hostedClientFor, withHostedServerOption } from '../hosted-server.ts';
import { formatBytes, formatTable, oneLine, print, printJson, printProblem, printWarning } from '../output.ts';

const PRODUCTS: readonly string[] = PRODUCT_IDS;

/** `loom downloads …`. */
export function downloadsCommand(): Command {
  const list = withHostedServerOption(
    new Command('list')
      .description('the products (ide, omni, cli) and their release assets')
      .addOption(new Option('--product <id>', 'only this product').choices(PRODUCTS))
      .addOption(new Option('--platform <name>', 'only assets for this platform').choices([...PLATFORMS, 'all']).default('all'))
      .option('--json', 'print the answer as JSON'),
  ).action(
    cliAction(async (options: { product?: ProductId; platform: Platform | 'all'; json?: boolean; server?: string }) => {
      const { client } = await hostedClientFor(options.server);
      const answer = await hostedCall(() => client.call('listDownloads', { query: { product: options.product, platform: options.platform } }));
      if (options.json) return printJson(answer);
      const rows = answer.products.flatMap((product) =>
        product.assets.map((asset) => [product.id, product.version ?? '-', asset.key, asset.size !== undefined ? formatBytes(asset.size) : '-', asset.name]),
      );
      if (rows.length === 0) return print('No downloads match.\n');
      print(`${formatTable([['PRODUCT', 'VERSION', 'ASSET', 'SIZE', 'NAME'], ...rows])}\n\nFetch one: loom downloads get PRODUCT ASSET\n`);
    }),
  );

  const get = withHostedServerOption(
    new Command('get')
      .description('download an asset to a file, with progress on stderr; resumes an interrupted download and verifies its sha256')
      .argument('<product>', `${PRODUCTS.join(', ')}`)
      .argument('<asset>', 'the asset key, e.g. linux-x64 (loom downloads list shows them)')
      .option('-o, --output <file>', 'where to write it (default: the file name of its URL, in the current folder)')
      .option('--force', 'download again even when the file is there')
      .option('--json', 'print {product, asset, path, size, sha256, verified, url}'),
  ).action(
    cliAction(async (product: string, assetKey: string, options: { output?: string; force?: boolean; json?: boolean; server?: string }) => {
      if (!PRODUCTS.includes(product)) throw new CliError(`unknown product "${product}": one of ${PRODUCTS.join(', ')}`, EXIT.usage);
      const { client } = await hostedClientFor(options.server);
      const asset = await hostedCall(() => client.call('getDownloadAsset', { params: { product: product as ProductId, asset: assetKey } }));
      const fileName = path.basename(new URL(asset.url).pathname) || `${product}-${asset.key}`;
      const dest = path.resolve(options.output ?? fileName);
      const [{ DownloadError, downloadFile, partialPathOf }, { progressReporter }] = await Promise.all([
        import('../../adapters/models/download.ts'),
        import('../progress.ts'),
      ]);
      if (fs.existsSync(dest) && !options.force) throw new CliError(`${dest} exists already; --force downloads it again, -o writes elsewhere`);
      if (options.force) fs.rmSync(partialPathOf(dest), { force: true });
      if (!asset.sha256) printWarning(`the server gives no sha256 for ${product}/${asset.key}: the file is not verified (its sha256 is printed at the end)`);

      const controller = new AbortController();
      const stop = () => controller.abort(new Error('interrupted'));
      process.once('SIGINT', stop).once('SIGTERM', stop);
      const progress = progressReporter(`${product} ${asset.key}`, asset.url);
      try {
        const result = await downloadFile({
          url: asset.url,
          dest,
          sha256: asset.sha256,
          size: asset.size,
          signal: controller.signal,
          onProgress: progress.update,
          headers: { 'user-agent': `loom/${LOOM_VERSION}` },
        });
        progress.stop();
        const view = {
          product,
          asset: asset.key,
          path: result.path,
          size: result.size,
          sha256: result.sha256,
          verified: Boolean(asset.sha256),
          url: asset.url,
        };
        if (options.json) return printJson(view);
        print(`Saved ${oneLine(result.path)} (${formatBytes(result.size)}, sha256 ${result.sha256}${asset.sha256 ? ', verified' : ', not verified'})\n`);
      } catch (error) {
        progress.stop();
        if (controller.signal.aborted) {
          printProblem(`download interrupted; run the same command again to resume it.`);
          process.exitCode = EXIT.interrupted;
          return;
        }
        if (error instanceof DownloadError) {
          const kept = fs.statSync(partialPathOf(dest), { throwIfNoEntry: false })?.size ?? 0;
          const resume = kept > 0 ? ` The ${formatBytes(kept)} that arrived are kept: run the same command again to resume.` : '';
          throw new CliError(`${error.message}${resume}`);
        }
        throw error;
      } finally {
        process.removeListener('SIGINT', stop).removeListener('SIGTERM', stop);
      }
    }),
  );

  return new Command('downloads').description('builds of the editor and the CLI offered by the hosted API').addCommand(list).addCommand(get);
}
