import type { Logger } from '../logger.js';
import { RateLimiter } from '../rate-limiter.js';
import type { RedisClient } from '../redis-connection.js';
import { loggedPath } from './call-path.js';
import type { CallGuard } from './http.js';
import { ProcessorError } from './types.js';

/**
 * What stands between an account's calls and its processor, held in Redis so that every worker process
 * agrees (docs/architecture.md, "Processors"):
 * - a rate limit per account, below the processor's own (a token bucket, src/rate-limiter.ts): a call
 *   waits for a token up to `maxWaitMs`, then fails as transient, and the job retries later;
 * - a circuit breaker per account: after `threshold` calls in a row found the processor away (no answer,
 *   5xx), calls fail at once for a cooldown that doubles with each trip (up to 5 minutes), so an outage
 *   does not spend every job's retries in minutes. When the cooldown ends one call goes through as a
 *   probe; its success closes the circuit, its failure opens it again.
 * Both show in the log and in the job's failure reason. When Redis cannot answer, calls go through.
 */

const breakerScript = `
-- KEYS[1] breaker hash; ARGV[1] 'admit' | 'success' | 'failure'; ARGV[2] threshold; ARGV[3] base cooldown ms
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local state = redis.call('HMGET', KEYS[1], 'failures', 'openUntil', 'trips', 'probe')
local failures = tonumber(state[1]) or 0
local openUntil = tonumber(state[2]) or 0
local trips = tonumber(state[3]) or 0
local probe = tonumber(state[4]) or 0
if ARGV[1] == 'admit' then
  if openUntil == 0 then return {1, 0, failures} end
  if now < openUntil then return {0, openUntil - now, failures} end
  -- Half open: one probe at a time, for as long as a call may take.
  if probe > now then return {0, probe - now, failures} end
  redis.call('HSET', KEYS[1], 'probe', now + 35000)
  return {1, 0, failures}
end
if ARGV[1] == 'success' then
  redis.call('DEL', KEYS[1])
  return {1, 0, 0}
end
failures = failures + 1
redis.call('HSET', KEYS[1], 'failures', failures, 'probe', 0)
-- Trips from closed, or again on a failed probe; calls admitted before a trip that fail after it (even
-- once the cooldown is over) do not trip it again.
local opened = 0
if failures >= tonumber(ARGV[2]) and (openUntil == 0 or (now >= openUntil and probe > 0)) then
  local cooldown = math.min(tonumber(ARGV[3]) * math.pow(2, trips), 300000)
  redis.call('HSET', KEYS[1], 'openUntil', now + cooldown, 'trips', trips + 1)
  opened = cooldown
end
redis.call('PEXPIRE', KEYS[1], 3600000)
return {1, 0, failures, opened}
`;

type Breaker = (key: string, action: string, threshold: number, cooldownMs: number) => Promise<number[]>;

/** The Redis hash of one account's circuit breaker, which `breakerScript` keeps. */
function breakerKey(prefix: string, accountUid: string): string {
  return `${prefix}:breaker:${accountUid}`;
}

export const breakerStates = ['closed', 'open', 'half_open'] as const;
export type BreakerState = (typeof breakerStates)[number];

export interface BreakerReading {
  state: BreakerState;
  /** Calls in a row that found the processor away (reset by a success). */
  failures: number;
}

/**
 * Each account's circuit as `admit` would judge it now, on Redis's clock, without touching it: `open`
 * while its cooldown runs; `half_open` once the cooldown is over (the next call is the probe, or the probe
 * is out); `closed` otherwise, including an account with no breaker hash (never failed, or an hour since).
 * For the metrics: unlike the guard itself, a reading fails when Redis does not answer.
 */
export async function readBreakers(
  redis: RedisClient,
  prefix: string,
  accountUids: readonly string[],
): Promise<Map<string, BreakerReading>> {
  const pipeline = redis.pipeline().time();
  for (const uid of accountUids) pipeline.hmget(breakerKey(prefix, uid), 'failures', 'openUntil');
  const replies = (await pipeline.exec()) ?? [];
  const failed = replies.find(([error]) => error);
  if (failed?.[0] || replies.length !== accountUids.length + 1) {
    throw failed?.[0] ?? new Error('Redis answered part of the breaker reading');
  }
  const [seconds = '0', micros = '0'] = (replies[0]?.[1] ?? []) as string[];
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const readings = new Map<string, BreakerReading>();
  accountUids.forEach((uid, index) => {
    const [failures, openUntil] = (replies[index + 1]?.[1] ?? []) as (string | null)[];
    const until = Number(openUntil ?? 0);
    const state: BreakerState = until === 0 ? 'closed' : now < until ? 'open' : 'half_open';
    readings.set(uid, { state, failures: Number(failures ?? 0) });
  });
  return readings;
}

export interface GuardOptions {
  /** Calls in a row that found the processor away before the circuit opens. Default 5. */
  threshold?: number;
  /** The first cooldown. Default 30 s. */
  cooldownMs?: number;
  /** The longest a call waits for the rate limit before failing as transient. Default 10 s. */
  maxWaitMs?: number;
}

export class AccountGuards {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #limiters = new Map<number, RateLimiter>();
  readonly #breaker: Breaker;
  readonly #options: Required<GuardOptions>;

  constructor(redis: RedisClient, prefix: string, logger: Logger, options: GuardOptions = {}) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#logger = logger;
    this.#options = { threshold: 5, cooldownMs: 30_000, maxWaitMs: 10_000, ...options };
    if (!('rebuttalBreaker' in redis)) {
      redis.defineCommand('rebuttalBreaker', { numberOfKeys: 1, lua: breakerScript });
    }
    this.#breaker = (redis as unknown as { rebuttalBreaker: Breaker }).rebuttalBreaker.bind(redis);
  }

  /**
   * The guard of one account's calls, at most `perSecond` calls a second; under `budget`, a rate limit of
   * their own (PayPal's push verifications), so that those calls never spend what the account's polls
   * and submissions need. The circuit breaker is the account's either way.
   */
  for(processor: string, accountUid: string, perSecond: number, budget?: string): CallGuard {
    let limiter = this.#limiters.get(perSecond);
    if (!limiter) {
      limiter = new RateLimiter(this.#redis, `${this.#prefix}:processor`, perSecond, this.#logger);
      this.#limiters.set(perSecond, limiter);
    }
    const rate = limiter;
    const subject = budget ? `${accountUid}:${budget}` : accountUid;
    const key = breakerKey(this.#prefix, accountUid);
    const { threshold, cooldownMs, maxWaitMs } = this.#options;
    const log = this.#logger.child({ processor, accountUid });
    const breaker = async (action: string) => {
      try {
        return await this.#breaker(key, action, threshold, cooldownMs);
      } catch {
        return [1, 0, 0, 0];
      }
    };
    return {
      admit: async (call) => {
        // Which call was held back; the submission it served, if any, comes from the log context.
        const held = { method: call.method, path: loggedPath(call.path) };
        const [allowed = 1, waitMs = 0, failures = 0] = await breaker('admit');
        if (!allowed) {
          log.warn({ ...held, failures, retryInMs: waitMs }, 'circuit open: processor call not sent');
          throw new ProcessorError(
            processor,
            `Circuit open for this account after ${failures} failed calls in a row; not sent. Next try in ${Math.ceil(waitMs / 1000)} s.`,
            { retryable: true, retryAfterSeconds: Math.ceil(waitMs / 1000) },
          );
        }
        const deadline = Date.now() + maxWaitMs;
        for (;;) {
          const decision = await rate.take(subject);
          if (decision.allowed) return;
          const waitMs = decision.retryAfterSeconds * 1000;
          if (Date.now() + waitMs > deadline) {
            log.warn({ ...held, perSecond }, 'rate limit: processor call not sent');
            throw new ProcessorError(
              processor,
              `Rate limit of ${perSecond} calls a second for this account reached; not sent.`,
              { retryable: true, retryAfterSeconds: decision.retryAfterSeconds },
            );
          }
          await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, 250)));
        }
      },
      record: async (outcome) => {
        const [, , failures = 0, openedForMs = 0] = await breaker(outcome);
        if (openedForMs > 0) {
          log.warn(
            { failures, openForMs: openedForMs },
            'circuit opened: the processor is failing for this account',
          );
        }
      },
    };
  }
}
