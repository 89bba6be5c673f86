import { Redis } from 'ioredis';
import type { Logger } from './logger.js';
import { type RedisWatch, watchRedis } from './redis-watch.js';

/**
 * A Redis connection for the request path: a command fails within 100 ms when Redis is slow or away
 * (instead of queueing until it returns), so callers can decide to go on without it. Its outages are
 * told by `watch`, the process's (src/redis-watch.ts); without one, by a watch of its own.
 */
export function connectRedis(
  url: string,
  logger: Logger,
  watch: RedisWatch = watchRedis(url, logger),
): Redis {
  return watch.client(
    new Redis(url, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      commandTimeout: 100,
      connectTimeout: 2000,
    }),
  );
}
