import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { RateLimiter } from './rate-limiter.js';
import type { RedisClient } from './redis-connection.js';

/** A limit of the API and what a client is told once it has run out (docs/api.md, "Limits"). */
export interface Budget {
  limiter: RateLimiter;
  refusal: string;
}

/** The API's limits, each a bucket of its own per subject, in Redis under QUEUE_PREFIX. */
export interface RateLimits {
  /** Every request, per API key (per client address without one), charged more for a large answer. */
  requests: Budget;
  /** Each full this many bytes of an answer's body count as one more request. */
  responseBytesPerRequest: number;
  /** Personal data requests per API key: a retrieve reads everything the tenant holds. */
  personalData: Budget;
  /** Test disputes made per API key. */
  testDisputes: Budget;
  /** Outcome statistics per API key: each reads a range of the tenant's disputes. */
  stats: Budget;
  /** Refused API keys per client address: each was a lookup in Postgres. */
  failedAuthentications: Budget;
  /** `GET /readyz` per client address: each asks Postgres and Redis. */
  readiness: Budget;
}

export type RateLimitSettings = Pick<
  Config,
  | 'QUEUE_PREFIX'
  | 'RATE_LIMIT_PER_SECOND'
  | 'RATE_LIMIT_RESPONSE_KIB'
  | 'RATE_LIMIT_PERSONAL_DATA_PER_MINUTE'
  | 'RATE_LIMIT_TEST_DISPUTES_PER_MINUTE'
  | 'RATE_LIMIT_STATS_PER_MINUTE'
  | 'RATE_LIMIT_AUTH_FAILURES_PER_MINUTE'
  | 'RATE_LIMIT_READYZ_PER_SECOND'
>;

export function rateLimitsOf(redis: RedisClient, config: RateLimitSettings, logger: Logger): RateLimits {
  const prefix = config.QUEUE_PREFIX;
  const perSecond = (name: string, rate: number) =>
    new RateLimiter(redis, name ? `${prefix}:${name}` : prefix, rate, logger);
  // A minute's allowance may be spent at once, then comes back evenly over the minute.
  const perMinute = (name: string, count: number) =>
    new RateLimiter(redis, `${prefix}:${name}`, count / 60, logger, count);
  const requests = config.RATE_LIMIT_PER_SECOND;
  const kib = config.RATE_LIMIT_RESPONSE_KIB;
  return {
    requests: {
      limiter: perSecond('', requests),
      refusal: `Too many requests: at most ${requests} a second, in bursts of up to ${requests * 2}; every ${kib} KiB of an answer or an uploaded file counts as one more request.`,
    },
    responseBytesPerRequest: kib * 1024,
    personalData: {
      limiter: perMinute('personal-data', config.RATE_LIMIT_PERSONAL_DATA_PER_MINUTE),
      refusal: `Too many personal data requests: at most ${config.RATE_LIMIT_PERSONAL_DATA_PER_MINUTE} a minute.`,
    },
    testDisputes: {
      limiter: perMinute('test-disputes', config.RATE_LIMIT_TEST_DISPUTES_PER_MINUTE),
      refusal: `Too many test disputes: at most ${config.RATE_LIMIT_TEST_DISPUTES_PER_MINUTE} a minute.`,
    },
    stats: {
      limiter: perMinute('stats', config.RATE_LIMIT_STATS_PER_MINUTE),
      refusal: `Too many statistics requests: at most ${config.RATE_LIMIT_STATS_PER_MINUTE} a minute.`,
    },
    failedAuthentications: {
      limiter: perMinute('auth-failures', config.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE),
      refusal: `Too many refused API keys from this address: at most ${config.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE} a minute.`,
    },
    readiness: {
      limiter: perSecond('readyz', config.RATE_LIMIT_READYZ_PER_SECOND),
      refusal: `Too many readiness probes from this address: at most ${config.RATE_LIMIT_READYZ_PER_SECOND} a second, in bursts of up to ${config.RATE_LIMIT_READYZ_PER_SECOND * 2}.`,
    },
  };
}
