import type { Logger } from './logger.js';
import { openRedis, type RedisClient, type RedisTarget } from './redis-connection.js';
import { type RedisWatch, watchRedis } from './redis-watch.js';

/**
 * A connection for the request path (src/redis-connection.ts `request`): a command fails within 100 ms
 * when Redis is slow or away, so callers can decide to go on without it. Its outages are told by
 * `watch`, the process's (src/redis-watch.ts); without one, by a watch of its own.
 */
export function connectRedis(
  target: RedisTarget,
  logger: Logger,
  watch: RedisWatch = watchRedis(target, logger),
): RedisClient {
  return watch.client(openRedis(target, 'request'));
}
