import { describe, expect, it } from 'vitest';
import { fetchProductImages, type ProductImageFetcher } from '../../src/features/disputes/product-images.js';
import { postgresFileStorage } from '../../src/features/files/storage.js';

describe('product images (docs/api.md, "Product images")', () => {
  it('start no fetch past the request budget: slow images beyond it wait for the next save', async () => {
    const asked: string[] = [];
    const slow: ProductImageFetcher = {
      async fetch(url) {
        asked.push(url);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { problem: 'no answer within 5 s' };
      },
    };
    const products = Array.from({ length: 40 }, (_, at) => ({
      name: `Item ${at}`,
      quantity: 1,
      amount: 100,
      image: `https://img.example/${at}.png`,
    }));
    // The storage is not reached: nothing is kept before `keep`, which this test does not call.
    const storage = postgresFileStorage(undefined as never);
    await fetchProductImages(
      { productImages: slow, filesMaxBytes: 1 << 30, fetchBudgetMs: 300 },
      storage,
      [],
      products,
    );
    // Four at a time: the first rounds start within the budget, the rest never do.
    expect(asked.length).toBeGreaterThanOrEqual(4);
    expect(asked.length).toBeLessThan(40);
    expect(asked).toEqual(products.slice(0, asked.length).map((product) => product.image));
  });
});
