import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * A Redis connection for the request path: a command fails within 100 ms when Redis is slow or away
 * (instead of queueing until it returns), so callers can decide to go on without it.
 */
export function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    commandTimeout: 100,
    connectTimeout: 2000,
  });
  let lastWarning = 0;
  redis.on('error', (error: Error) => {
    // ioredis reports every failed reconnection; one line a minute says enough.
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    logger.warn({ problem: error.message }, 'redis unavailable');
  });
  return redis;
}
