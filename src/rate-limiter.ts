import type { Redis } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * A token bucket in Redis, refilled at `rate` a second up to twice that, from which a caller takes up to
 * `want` tokens at once. Atomic in one script, timed by Redis's own clock so that every web process agrees.
 * Returns the tokens granted and, when none, the milliseconds until one is back.
 */
const takeTokens = `
local rate = tonumber(ARGV[1])
local want = tonumber(ARGV[2])
local capacity = rate * 2
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + (now - at) * rate / 1000)
local granted = math.min(want, math.floor(tokens))
local wait = 0
if granted < 1 then
  granted = 0
  wait = math.ceil((1 - tokens) * 1000 / rate)
end
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity * 1000 / rate) + 1000)
return {granted, wait}
`;

type TakeTokens = (key: string, rate: number, want: number) => Promise<[number, number]>;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** How long leased tokens stay usable here; unused ones are then dropped (the bucket never refunds). */
const leaseMs = 1000;

/**
 * Requests per API key (docs/api.md, "Limits"): `perSecond` a second with bursts of twice that, shared by every
 * process through Redis. A process leases up to a tenth of a second's tokens at once and spends them
 * locally, so a busy key costs one Redis call per lease, not per request; tokens leave the shared bucket
 * when leased, so the limit is never exceeded. When Redis cannot answer, requests go through: refusing
 * merchants because the limiter's store is away would turn a Redis outage into an API outage.
 */
export class RateLimiter {
  private readonly leases = new Map<string, { tokens: number; until: number }>();
  private readonly refills = new Map<string, Promise<RateDecision>>();
  private readonly batch: number;
  private readonly takeTokens: TakeTokens;
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly perSecond: number,
    private readonly logger: Logger,
  ) {
    this.batch = Math.max(1, Math.floor(perSecond / 10));
    if (!('rebuttalTakeTokens' in redis)) {
      redis.defineCommand('rebuttalTakeTokens', { numberOfKeys: 1, lua: takeTokens });
    }
    const command = (redis as unknown as { rebuttalTakeTokens: TakeTokens }).rebuttalTakeTokens;
    this.takeTokens = command.bind(redis);
  }

  async take(subject: string): Promise<RateDecision> {
    for (;;) {
      const lease = this.leases.get(subject);
      if (lease && lease.tokens > 0 && lease.until > Date.now()) {
        lease.tokens -= 1;
        return { allowed: true };
      }
      // One refill per key at a time: requests arriving meanwhile wait for its lease instead of each
      // leasing a batch of their own (which would drain the shared bucket for nothing).
      const inFlight = this.refills.get(subject);
      if (!inFlight) break;
      const outcome = await inFlight;
      if (!outcome.allowed) return outcome;
    }
    const refill = this.refill(subject);
    this.refills.set(subject, refill);
    try {
      return await refill;
    } finally {
      this.refills.delete(subject);
    }
  }

  /** Leases a batch of tokens and spends the first on the request that asked. */
  private async refill(subject: string): Promise<RateDecision> {
    try {
      const [granted, waitMs] = await this.takeTokens(
        `${this.prefix}:rate:${subject}`,
        this.perSecond,
        this.batch,
      );
      if (granted === 0) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
      // Leases of keys gone quiet are simply forgotten once many have gathered.
      if (this.leases.size > 10_000) this.leases.clear();
      this.leases.set(subject, { tokens: granted - 1, until: Date.now() + leaseMs });
      return { allowed: true };
    } catch (error) {
      // A connection that is down is the process's Redis watch's to tell (src/redis-watch.ts), once.
      if (this.redis.status === 'ready' && Date.now() - this.lastWarning > 60_000) {
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
