import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/db/batcher.js';

describe('Batcher', () => {
  it('batches the calls of one turn, and gathers calls made while a batch runs into the next', async () => {
    const batches: number[][] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batcher = new Batcher<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await gate;
      return items.map((item) => item * 10);
    });
    const first = [1, 2].map((item) => batcher.call(item));
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [3, 4, 5].map((item) => batcher.call(item));
    release();
    expect(await Promise.all([...first, ...rest])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('runs a batch that throws again one item at a time, failing only the item that fails alone', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      runs.push(items);
      if (items.includes(2)) throw new Error('cannot do 2');
      return items;
    });
    const results = [1, 2, 3].map((item) => batcher.call(item).catch((error: Error) => error.message));
    expect(await Promise.all(results)).toEqual([1, 'cannot do 2', 3]);
    expect(runs).toEqual([[1, 2, 3], [1], [2], [3]]);
  });
});
