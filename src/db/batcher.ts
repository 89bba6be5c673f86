/**
 * Coalesces concurrent calls into batches: a call made while a batch is running waits for the next one,
 * which takes every call that arrived meanwhile. Idle, a call runs at the end of the current turn of the
 * event loop (with the calls made in that turn); under load, batches grow with the number of concurrent
 * jobs, so they share round trips to Postgres instead of queueing for a connection each.
 *
 * `run` answers each item in order, or throws; a batch that throws is run again one item at a time, so a
 * failure reaches only the calls it belongs to.
 */
export class Batcher<In, Out> {
  readonly #run: (items: In[]) => Promise<Out[]>;
  readonly #maxBatch: number;
  #waiting: { item: In; resolve(out: Out): void; reject(error: unknown): void }[] = [];
  #running = false;

  constructor(run: (items: In[]) => Promise<Out[]>, maxBatch = 100) {
    this.#run = run;
    this.#maxBatch = maxBatch;
  }

  call(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (this.#running) return;
      // The first call of an idle spell waits out the current turn of the event loop, so calls made in
      // the same turn (jobs fetched together) start as one batch.
      this.#running = true;
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, this.#maxBatch);
      try {
        const outs = await this.#run(batch.map((waiting) => waiting.item));
        for (const [index, waiting] of batch.entries()) waiting.resolve(outs[index] as Out);
      } catch (error) {
        if (batch.length === 1) {
          batch[0]?.reject(error);
          continue;
        }
        // One item's trouble (a row another transaction holds, a deadlock) must not fail its neighbours:
        // each is tried again on its own, and only the ones that fail alone are failed.
        for (const waiting of batch) {
          await this.#run([waiting.item]).then(
            ([out]) => waiting.resolve(out as Out),
            (alone: unknown) => waiting.reject(alone),
          );
        }
      }
    }
    this.#running = false;
  }
}
