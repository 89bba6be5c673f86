import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { apiKeys, organisations } from '../../db/schema/index.js';
import { isApiVersion, latestVersion } from '../../domain/versions.js';
import type { Principal } from '../tenancy.js';
import { authInvalidationChannel, hashApiKey, hashesEqual, looksLikeApiKey } from './api-keys.js';

interface Cached {
  principal: Principal;
  hash: string;
  expiresAt: number;
}

const maxCachedKeys = 10_000;

const lookupKey = preparedFor((db) =>
  db
    .select({
      hash: apiKeys.hash,
      orgId: apiKeys.orgId,
      livemode: apiKeys.livemode,
      apiVersion: organisations.apiVersion,
      queueLeadMinutes: organisations.queueLeadMinutes,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .innerJoin(organisations, eq(organisations.id, apiKeys.orgId))
    .where(
      and(
        eq(apiKeys.hash, sql.placeholder('hash')),
        // A key replaced with grace works until its revoked_at (features/organisations/organisations.ts).
        or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, sql`now()`)),
      ),
    )
    .prepare('lookup_api_key'),
);

/**
 * This process's resolvers. A rotation made in this process drops the old key from them as soon as it
 * commits; other processes learn of it from the notification, a few milliseconds later.
 */
const localResolvers = new Set<KeyResolver>();

export function invalidateLocally(payload: string): void {
  for (const resolver of localResolvers) resolver.invalidate(payload);
}

/**
 * Resolves API keys to principals without a database round trip on the hot path: answers are cached for
 * a short TTL, and dropped at once when any process announces a rotation on the invalidation channel.
 * Only known keys are cached, so a flood of made-up keys cannot push real ones out.
 */
export class KeyResolver {
  private readonly cache = new Map<string, Cached>();
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly database: Database,
    private readonly ttlMs: number,
  ) {}

  /**
   * Every (re)start of listening also empties the cache: a rotation committed while the connection was
   * down sent its notification to nobody, and its key may be cached here.
   */
  async listen(): Promise<void> {
    this.unlisten = await this.database.listen(
      authInvalidationChannel,
      (payload) => this.invalidate(payload),
      () => this.cache.clear(),
    );
    localResolvers.add(this);
  }

  async close(): Promise<void> {
    localResolvers.delete(this);
    await this.unlisten?.();
  }

  /** `key:<hash>` drops one key; `org:<id>` drops every key of an organisation (its settings changed). */
  invalidate(payload: string): void {
    const [kind, value] = [payload.slice(0, payload.indexOf(':')), payload.slice(payload.indexOf(':') + 1)];
    if (kind === 'key') this.cache.delete(value);
    if (kind === 'org') {
      for (const [hash, entry] of this.cache) if (entry.principal.orgId === value) this.cache.delete(hash);
    }
  }

  /** The key's principal if this process resolved it within the TTL: no database round trip. */
  cached(key: string): Principal | null {
    return looksLikeApiKey(key) ? this.fromCache(hashApiKey(key)) : null;
  }

  async resolve(key: string): Promise<Principal | null> {
    if (!looksLikeApiKey(key)) return null;
    const hash = hashApiKey(key);
    const known = this.fromCache(hash);
    if (known) return known;

    const [row] = await lookupKey(this.database.db).execute({ hash });
    if (!row || !hashesEqual(row.hash, hash)) {
      this.cache.delete(hash);
      return null;
    }
    const principal: Principal = {
      orgId: row.orgId,
      livemode: row.livemode,
      apiVersion: isApiVersion(row.apiVersion) ? row.apiVersion : latestVersion,
      queueLeadMinutes: row.queueLeadMinutes,
    };
    if (this.ttlMs > 0) {
      if (this.cache.size >= maxCachedKeys) this.cache.clear();
      // A key in its grace is cached no longer than it works: no notification comes when the grace ends.
      const expiresAt = Math.min(
        Date.now() + this.ttlMs,
        row.revokedAt?.getTime() ?? Number.POSITIVE_INFINITY,
      );
      this.cache.set(hash, { principal, hash, expiresAt });
    }
    return principal;
  }

  private fromCache(hash: string): Principal | null {
    const cached = this.cache.get(hash);
    return cached && cached.expiresAt > Date.now() && hashesEqual(cached.hash, hash)
      ? cached.principal
      : null;
  }
}
