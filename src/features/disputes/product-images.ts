import { CancelError, got } from 'got';
import type { Db, Tx } from '../../db/client.js';
import type { Product } from '../../domain/evidence.js';
import type { FileType, ProductImage } from '../../domain/evidence-files.js';
import { inspectFile, looksLikePdf } from '../../domain/file-inspection.js';
import { filteringAgents, type OutboundOptions, outboundFailure } from '../../outbound.js';
import { removeOwnedFiles } from '../files/owned.js';
import { heldFileBytes, recordFile } from '../files/records.js';
import { type FileStorage, postgresFileStorage } from '../files/storage.js';
import type { Tenant } from '../tenancy.js';
import { findDispute } from './records.js';

/**
 * Products' `image` URLs, fetched when the evidence is saved and kept with the dispute
 * (docs/api.md, "Files", "Product images"), so that a preview and the submission draw the same bytes.
 * Fetching happens before the dispute's transaction (no transaction waits on the network); keeping the
 * files happens inside it, so a refused request keeps nothing.
 */

/** The bytes of one image, or why there are none; `fetch` never throws. */
export type FetchedImage = { type: FileType; bytes: Buffer } | { problem: string };

export interface ProductImageFetcher {
  fetch(url: string): Promise<FetchedImage>;
}

/** docs/api.md, "Files", "Product images": 2 MB and 5 s for each image. */
const maxProductImageBytes = 2 * 1024 * 1024;
const defaultTimeoutMs = 5_000;
/** Images fetched at once for one request: enough to hide latency, few enough to spare the hosts. */
const parallelFetches = 4;
/**
 * No fetch starts this long after the first: a request naming 100 slow images answers within about this
 * and one image's timeout, and the images it did not reach are fetched by the next save of the products.
 */
const defaultBudgetMs = 10_000;

/**
 * GETs images through the filtering agents (src/outbound.ts): https only, no redirects followed, at
 * most `maxProductImageBytes` read (the transfer is cut beyond), `timeoutMs` for the whole request, and
 * kept only when the bytes are a whole PNG or JPEG.
 */
export function createProductImageFetcher(
  options: OutboundOptions & { timeoutMs?: number },
): ProductImageFetcher {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const client = got.extend({
    agent: filteringAgents(options),
    timeout: { request: timeoutMs },
    retry: { limit: 0 },
    followRedirect: false,
    throwHttpErrors: false,
    decompress: false,
    responseType: 'buffer',
    headers: {
      'user-agent': 'Rebuttal-Images/1',
      accept: 'image/png, image/jpeg',
      'accept-encoding': 'identity',
    },
  });
  return {
    async fetch(url) {
      if (URL.parse(url)?.protocol !== 'https:') return { problem: 'not an https URL' };
      const request = client.get(url);
      let tooLarge = false;
      // Only a 200's body is wanted, and only up to the limit: anything else is cut off at once.
      request.on('response', (response: { statusCode: number }) => {
        if (response.statusCode !== 200) request.cancel();
      });
      request.on('downloadProgress', ({ transferred, total }: { transferred: number; total?: number }) => {
        if (transferred <= maxProductImageBytes && (total ?? 0) <= maxProductImageBytes) return;
        tooLarge = true;
        request.cancel();
      });
      let response: { statusCode: number; body: Buffer };
      try {
        response = await request;
      } catch (error) {
        const status = error instanceof CancelError ? error.response?.statusCode : undefined;
        if (status !== undefined && status !== 200) return { problem: `HTTP ${status}` };
        if (error instanceof CancelError && tooLarge) return { problem: 'larger than 2 MB' };
        return { problem: outboundFailure(error, timeoutMs) };
      }
      if (response.statusCode !== 200) return { problem: `HTTP ${response.statusCode}` };
      // A PDF is never a product image: refused by its header, never parsed.
      const inspection = looksLikePdf(response.body) ? null : await inspectFile(response.body);
      if (!inspection || 'problem' in inspection || inspection.type === 'pdf') {
        return { problem: 'not a PNG or JPEG image' };
      }
      return { type: inspection.type, bytes: response.body };
    },
  };
}

/** The image URLs the products name, each once, in the products' order (at most 100: one a product). */
function imageUrls(products: readonly Product[]): string[] {
  return [...new Set(products.flatMap((product) => (product.image === undefined ? [] : [product.image])))];
}

/** What fetching needs: the fetcher, and FILES_MAX_BYTES, which bounds what is kept. */
export interface ImageDeps {
  productImages: ProductImageFetcher;
  filesMaxBytes: number;
  /** How long a request starts fetches for (default 10 s). */
  fetchBudgetMs?: number;
}

/** Images fetched before a dispute's transaction; `keep` finishes inside it. */
export interface FetchedImages {
  /**
   * The dispute's product images once the products are saved: an image kept before stays, a fetched one
   * is kept as a file of purpose `product_image`, a failure is noted with its problem; entries whose URL
   * no product names any more are dropped, and their files deleted.
   */
  keep(tx: Tx, owner: Tenant, stored: readonly ProductImage[]): Promise<ProductImage[]>;
}

/**
 * Fetches, a few at a time, each image the products name that the dispute had not kept when the
 * request began (`stored`); one that failed before is tried again.
 */
export async function fetchProductImages(
  deps: ImageDeps,
  storage: FileStorage,
  stored: readonly ProductImage[],
  products: readonly Product[],
): Promise<FetchedImages> {
  const urls = imageUrls(products);
  const kept = new Set(stored.flatMap((entry) => (entry.file === null ? [] : [entry.url])));
  const pending = urls.filter((url) => !kept.has(url));
  const fetched = new Map<string, FetchedImage>();
  const until = Date.now() + (deps.fetchBudgetMs ?? defaultBudgetMs);
  const worker = async () => {
    for (let url = pending.shift(); url !== undefined && Date.now() < until; url = pending.shift()) {
      fetched.set(url, await deps.productImages.fetch(url));
    }
  };
  await Promise.all(Array.from({ length: parallelFetches }, worker));
  return {
    async keep(tx, owner, current) {
      const before = new Map(current.map((entry) => [entry.url, entry]));
      const images: ProductImage[] = [];
      // Kept images count against FILES_MAX_BYTES like uploads (docs/api.md, "Uploading").
      let held = fetched.size > 0 ? await heldFileBytes(tx, owner) : 0;
      for (const url of urls) {
        const had = before.get(url);
        const image = fetched.get(url);
        if (had?.file || !image) {
          // Not fetched by this request: kept already, or kept when this request began and dropped since
          // by another (the next save of the products fetches it).
          images.push(had ?? { url, file: null, problem: 'not fetched yet: send the products again' });
        } else if ('problem' in image) {
          images.push({ url, file: null, problem: image.problem });
        } else if (held + image.bytes.length > deps.filesMaxBytes) {
          images.push({
            url,
            file: null,
            problem: 'the organisation keeps FILES_MAX_BYTES of files already',
          });
        } else {
          held += image.bytes.length;
          const file = { purpose: 'product_image', pages: null, ...image } as const;
          const row = await recordFile(tx, storage, owner, {
            ...file,
            filename: `product-image.${image.type}`,
          });
          images.push({ url, file: row.id, problem: null });
        }
      }
      const still = new Set(images.map((entry) => entry.file));
      const dropped = current.flatMap((entry) =>
        entry.file !== null && !still.has(entry.file) ? [entry.file] : [],
      );
      await removeOwnedFiles(tx, storage, owner, dropped);
      return images;
    },
  };
}

/** The same for a request on a stored dispute: what it had kept when the request began is not fetched. */
export async function imagesForDispute(
  deps: ImageDeps & { db: Db },
  tenant: Tenant,
  id: string,
  products: readonly Product[],
): Promise<FetchedImages> {
  const { dispute } = await findDispute(deps.db, tenant, id);
  return fetchProductImages(deps, postgresFileStorage(deps.db), dispute.productImages, products);
}
