import { describe, expect, it } from 'vitest';
import { type Collector, readAtMostEvery } from '../../src/metrics/collectors.js';

function countingCollector(fail = false) {
  const counts = { reads: 0 };
  const collector: Collector = {
    name: 'counting',
    async read() {
      counts.reads += 1;
      if (fail) throw new Error('away');
      return () => {};
    },
    clear() {},
  };
  return { counts, collector };
}

describe('readAtMostEvery', () => {
  it('reuses a reading within the interval, and reads again after it', async () => {
    const { counts, collector } = countingCollector();
    const throttled = readAtMostEvery(50, collector);
    await Promise.all([throttled.read(), throttled.read(), throttled.read()]);
    expect(counts.reads).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    await throttled.read();
    expect(counts.reads).toBe(2);
  });

  it('does not keep a failed reading: the next scrape tries again', async () => {
    const { counts, collector } = countingCollector(true);
    const throttled = readAtMostEvery(60_000, collector);
    await expect(throttled.read()).rejects.toThrow('away');
    await expect(throttled.read()).rejects.toThrow('away');
    expect(counts.reads).toBe(2);
  });
});
