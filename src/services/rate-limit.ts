import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/**
 * A token bucket in Redis, refilled at `rate` a second up to twice that. Atomic in one script, timed by
 * Redis's own clock so that every web process agrees.
 */
const takeToken = `
local rate = tonumber(ARGV[1])
local capacity = rate * 2
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + (now - at) * rate / 1000)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity * 1000 / rate) + 1000)
return wait
`;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Requests per API key (API.md section 9): `perSecond` a second with bursts of twice that. When Redis
 * cannot answer, requests go through: refusing merchants because the limiter's store is away would turn a
 * Redis outage into an API outage.
 */
export class RateLimiter {
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly perSecond: number,
    private readonly logger: Logger,
  ) {}

  async take(subject: string): Promise<RateDecision> {
    try {
      const waitMs = Number(
        await this.redis.eval(takeToken, 1, `${this.prefix}:rate:${subject}`, this.perSecond),
      );
      return waitMs === 0
        ? { allowed: true }
        : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    } catch (error) {
      if (Date.now() - this.lastWarning > 60_000) {
        this.lastWarning = Date.now();
        this.logger.warn(
          { problem: error instanceof Error ? error.message : String(error) },
          'rate limit skipped',
        );
      }
      return { allowed: true };
    }
  }
}
