import type { Logger } from './logger.js';
import type { RedisClient } from './redis-connection.js';

/**
 * A token bucket in Redis, refilled at `rate` a second up to `capacity`, timed by Redis's own clock so that
 * every web process agrees; atomic in one script. Taking grants up to `want` tokens, none while fewer than
 * one is left, and says in how many milliseconds one is back. Charging (`force`) takes `want` whatever is
 * left, into debt (a negative `want` gives tokens back): what a request turned out to cost, known only
 * once it was answered. The key lives until the bucket would be full again, so a debt is never forgotten.
 */
const takeTokens = `
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local force = ARGV[4] == '1'
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + (now - at) * rate / 1000)
local granted = want
local wait = 0
if not force then
  granted = math.min(want, math.floor(tokens))
  if granted < 1 then
    granted = 0
    wait = math.ceil((1 - tokens) * 1000 / rate)
  end
end
tokens = math.min(capacity, tokens - granted)
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) * 1000 / rate) + 1000)
return {granted, wait}
`;

type TakeTokens = (
  key: string,
  rate: number,
  capacity: number,
  want: number,
  force: 0 | 1,
) => Promise<[number, number]>;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** How long leased tokens stay usable here; unused ones are then dropped (the bucket never refunds them). */
const leaseMs = 1000;

/**
 * A rate limit per subject (an API key, a client's address, a processor account): `perSecond` tokens a
 * second with bursts of `burst` (twice the rate unless given), shared by every process through Redis. A
 * process leases up to a tenth of a second's tokens at once and spends them locally, so a busy subject
 * costs one Redis call per lease, not per request; tokens leave the shared bucket when leased, so the
 * limit is never exceeded. When Redis cannot answer, requests go through: refusing merchants because the
 * limiter's store is away would turn a Redis outage into an API outage.
 */
export class RateLimiter {
  private readonly leases = new Map<string, { tokens: number; until: number }>();
  private readonly refills = new Map<string, Promise<RateDecision>>();
  private readonly batch: number;
  private readonly takeTokens: TakeTokens;
  private lastWarning = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    readonly perSecond: number,
    private readonly logger: Logger,
    readonly burst = perSecond * 2,
  ) {
    this.batch = Math.max(1, Math.min(Math.floor(perSecond / 10), Math.floor(burst)));
    if (!('rebuttalTakeTokens' in redis)) {
      redis.defineCommand('rebuttalTakeTokens', { numberOfKeys: 1, lua: takeTokens });
    }
    const command = (redis as unknown as { rebuttalTakeTokens: TakeTokens }).rebuttalTakeTokens;
    this.takeTokens = command.bind(redis);
  }

  /** One token for the subject, or how long until there is one. */
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

  /**
   * Takes `tokens` more from the subject, beyond the one its request took, even into debt: what a request
   * cost once it was answered. Its next requests wait until the debt is repaid. Negative gives tokens back
   * (up to the burst). Spends this process's lease first; never fails (fails open like `take`).
   */
  async charge(subject: string, tokens: number): Promise<void> {
    let owed = tokens;
    const lease = this.leases.get(subject);
    if (owed > 0 && lease && lease.until > Date.now()) {
      const paid = Math.min(lease.tokens, owed);
      lease.tokens -= paid;
      owed -= paid;
    }
    if (owed === 0) return;
    try {
      await this.takeTokens(this.keyOf(subject), this.perSecond, this.burst, owed, 1);
    } catch (error) {
      this.skipped(error);
    }
  }

  /** Leases a batch of tokens and spends the first on the request that asked. */
  private async refill(subject: string): Promise<RateDecision> {
    try {
      const [granted, waitMs] = await this.takeTokens(
        this.keyOf(subject),
        this.perSecond,
        this.burst,
        this.batch,
        0,
      );
      if (granted === 0) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
      // Leases of keys gone quiet are simply forgotten once many have gathered.
      if (this.leases.size > 10_000) this.leases.clear();
      this.leases.set(subject, { tokens: granted - 1, until: Date.now() + leaseMs });
      return { allowed: true };
    } catch (error) {
      this.skipped(error);
      return { allowed: true };
    }
  }

  private keyOf(subject: string): string {
    return `${this.prefix}:rate:${subject}`;
  }

  private skipped(error: unknown): void {
    // A connection that is down is the process's Redis watch's to tell (src/redis-watch.ts), once.
    if (this.redis.status === 'ready' && Date.now() - this.lastWarning > 60_000) {
      this.lastWarning = Date.now();
      this.logger.warn(
        { problem: error instanceof Error ? error.message : String(error) },
        'rate limit skipped',
      );
    }
  }
}
