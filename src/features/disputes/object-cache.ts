import type { Db } from '../../db/client.js';
import { toDisputeObject } from '../../domain/disputes.js';
import type { Caller } from '../tenancy.js';
import { type DisputeStamp, type ListQuery, listDisputes } from './list.js';
import { loadDisputes } from './records.js';

const stampKey = (stamp: DisputeStamp) =>
  `${stamp.uid}:${stamp.version}:${stamp.templateUid ?? '-'}:${stamp.templateVersion ?? 0}`;

/**
 * Dispute objects as JSON text, cached in this process under a stamp of everything they derive from: the
 * dispute row's version and its template's. Every write bumps one of them, so an entry is never stale:
 * a changed dispute is simply asked for under a new stamp, and the old entry ages out.
 *
 * Why: decoding a dispute row (44 columns) and serializing it dominate a list of 100, and clients mostly
 * poll the newest page, whose disputes rarely change between polls. A list then reads five columns a row.
 */
export class DisputeObjectCache {
  private readonly entries = new Map<string, string>();
  private size = 0;

  /**
   * `maxChars` bounds the memory held (64 Mi characters: 128 MiB at worst); an object over `maxObjectChars`
   * is served but not kept, so a few huge disputes cannot push out everyone else's.
   */
  constructor(
    private readonly maxChars = 64 * 1024 * 1024,
    private readonly maxObjectChars = 256 * 1024,
  ) {}

  async list(db: Db, caller: Caller, query: ListQuery): Promise<{ data: string[]; hasMore: boolean }> {
    const page = await listDisputes(db, caller, query);
    // Hits are taken first: storing the misses below may evict entries once the cache is full.
    const texts = page.data.map((stamp) => this.recall(stampKey(stamp)));
    const missing = page.data.filter((_, index) => texts[index] === undefined).map((stamp) => stamp.uid);
    // A dispute written since the page was read loads at its newer version; this request serves that one.
    const loaded = new Map<string, string>();
    for (const { dispute, template } of await loadDisputes(db, caller, missing)) {
      const json = JSON.stringify(toDisputeObject(dispute, template));
      loaded.set(dispute.uid, json);
      const stamp = { uid: dispute.uid, version: dispute.version, templateUid: template?.uid ?? null };
      this.remember(stampKey({ ...stamp, templateVersion: template?.version ?? null }), json);
    }
    const data = page.data.flatMap((stamp, index) => {
      const json = texts[index] ?? loaded.get(stamp.uid);
      return json === undefined ? [] : [json];
    });
    return { data, hasMore: page.hasMore };
  }

  /** Least recently used entries go first once the cache is full. */
  private recall(key: string): string | undefined {
    const json = this.entries.get(key);
    if (json !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, json);
    }
    return json;
  }

  private remember(key: string, json: string): void {
    if (json.length > this.maxObjectChars || this.entries.has(key)) return;
    this.entries.set(key, json);
    this.size += json.length;
    for (const [oldest, text] of this.entries) {
      if (this.size <= this.maxChars) break;
      this.entries.delete(oldest);
      this.size -= text.length;
    }
  }
}
