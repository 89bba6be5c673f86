import { loadConfig } from '../config.js';
import { openQueues, type Queues } from '../jobs/catalog.js';
import { redisTargetFor } from '../local-redis.js';
import { redisSetting } from '../redis-connection.js';
import { within } from '../time-limit.js';

/** How long a command waits for Redis before it gives up with one line, rather than hanging. */
const redisWaitMs = 3000;

/**
 * The queues (REDIS_URL or the cluster or sentinel settings, QUEUE_PREFIX) for the length of one command. A command is a short process that
 * must end: it fails with one line when Redis does not answer (not a stream of connection errors), and
 * its connections are dropped after it, whatever state Redis is in.
 */
export async function withQueues<T>(work: (queues: Queues) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const redis = await redisTargetFor(config);
  const queues = openQueues({ redis, prefix: config.QUEUE_PREFIX });
  try {
    await within(queues.byName.submission.waitUntilReady(), redisWaitMs, `Redis (${redisSetting(redis)})`);
    return await work(queues);
  } finally {
    await within(queues.close(), 1000, 'Redis').catch(() => undefined);
    queues.disconnect();
  }
}
