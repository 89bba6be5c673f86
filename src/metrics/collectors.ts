import { Gauge, type Registry } from 'prom-client';
import { describeError, type Logger } from '../logger.js';
import { within } from '../time-limit.js';

/**
 * A source of metrics read at scrape time (Redis, Postgres). Reading and setting are apart: the reading
 * may take a while, the setting is one synchronous step, so a scrape never shows half of a reading and a
 * reading that came too late changes nothing.
 */
export interface Collector {
  /** The `collector` label of rebuttal_metrics_collector_up, and what a warning names. */
  name: string;
  /** Reads the source; resolves to the function that sets the collector's metrics from what it read. */
  read(): Promise<() => void>;
  /** Drops the collector's series: a source that did not answer shows no values rather than stale ones. */
  clear(): void;
}

/**
 * Long enough for a healthy Postgres or Redis under load; short enough that a scrape (every collector at
 * once) answers within a couple of seconds, below Prometheus's default scrape timeout of 10 s.
 */
export const collectorTimeoutMs = 1500;

/**
 * Runs every collector at once, each within `timeoutMs`. One whose source fails or does not answer in time
 * is cleared, and the rest of the scrape stands; rebuttal_metrics_collector_up says which ones answered.
 * A collector's failure is logged when it starts and its recovery when it ends, not at every scrape: an
 * outage of Postgres or Redis is a warning, not one per scrape (docs/operations.md, "Faults").
 */
export function collectAll(
  registry: Registry,
  collectors: readonly Collector[],
  logger: Logger,
  timeoutMs = collectorTimeoutMs,
): () => Promise<void> {
  const up = new Gauge({
    name: 'rebuttal_metrics_collector_up',
    help: 'Whether the scrape-time collector read its source (1) or its source failed or did not answer in time (0).',
    labelNames: ['collector'],
    registers: [registry],
  });
  const failing = new Set<string>();
  return async () => {
    await Promise.all(
      collectors.map(async (collector) => {
        try {
          const apply = await within(collector.read(), timeoutMs, collector.name);
          apply();
          up.set({ collector: collector.name }, 1);
          if (failing.delete(collector.name)) {
            logger.info({ collector: collector.name }, 'metrics: a collector reads its source again');
          }
        } catch (error) {
          collector.clear();
          up.set({ collector: collector.name }, 0);
          if (failing.has(collector.name)) return;
          failing.add(collector.name);
          logger.warn(
            { collector: collector.name, err: describeError(error) },
            'metrics: a collector failed; its metrics are left out of scrapes until it reads again',
          );
        }
      }),
    );
  };
}

/**
 * The collector, reading its source at most once every `ms`: scrapes in between (several Prometheus
 * replicas, several web processes' worth) reuse the last reading, and a slow reading is not started again
 * while it runs. For counts over whole tables, whose cost grows with history.
 */
export function readAtMostEvery(ms: number, collector: Collector): Collector {
  let last: { at: number; reading: Promise<() => void> } | undefined;
  return {
    ...collector,
    read() {
      if (!last || Date.now() - last.at >= ms) {
        const reading = collector.read();
        last = { at: Date.now(), reading };
        // A failed reading is not kept: the next scrape tries again.
        reading.catch(() => {
          if (last?.reading === reading) last = undefined;
        });
      }
      return last.reading;
    },
  };
}
