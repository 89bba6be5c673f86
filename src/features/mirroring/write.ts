import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { connectedAccounts } from '../../db/schema/index.js';
import { statement } from '../../db/statements.js';
import { latestById } from '../../domain/mirrored-changes.js';
import { serviceLocalStates } from '../../domain/states.js';
import type { Logger } from '../../logger.js';
import type { DisputeAttribute, NormalizedDispute } from '../../processors/types.js';
import { linkByCharges, withLinks } from '../alerts/link.js';
import { recordAlertEvents, recordDisputeEvents } from '../webhooks/events.js';
import { lockStoredRows, type StoredRow, upsertPage } from './upsert.js';

/**
 * The transactions mirroring writes in: pages of a connected account's disputes (a poll), and disputes a
 * processor pushed or its report holds, each written in one transaction with the events it causes (and, for a poll, the
 * account's new cursor). The rules of what is written are those of the one upsert statement (upsert.ts).
 */

/** The account a page belongs to, and the cursor the page was listed from. */
export interface MirrorAccount {
  uid: string;
  orgId: string;
  livemode: boolean;
  /** The account's name: mirrored disputes carry it as `account`. */
  id: string;
  processor: string;
  cursor: string | null;
}

export type MirrorResult =
  | {
      outcome: 'mirrored';
      created: number;
      updated: number;
      closed: number;
      /** Listed but identical to what is stored: not written. */
      unchanged: number;
      /** Ids held by another account's dispute or a standalone one: not written. */
      foreign: string[];
    }
  /** The account is gone, disabled, or another run moved its cursor: nothing was written. */
  | { outcome: 'stale' };

export interface MirrorOptions {
  /** Where arrival rules warn of a template that no longer exists. */
  logger?: Logger;
  /** What the news tells without the processor's signature: it fills what is unknown (upsert.ts). */
  unsigned?: readonly DisputeAttribute[];
}

/** Far above any page an adapter asks for (100), well below Postgres's 65,535 parameters per statement. */
const maxPageSize = 1000;

const serviceLocal = new Set<string>(serviceLocalStates);

/**
 * Writes one page of the account's disputes and moves the account's cursor to `nextCursor`, in one
 * transaction. The account row is locked first: pages of one account commit one at a time, and a page
 * listed from a cursor that another run has since moved is dropped (`stale`) rather than written twice.
 */
export async function mirrorPage(
  db: Db,
  account: MirrorAccount,
  page: readonly NormalizedDispute[],
  nextCursor: string | null,
  options: MirrorOptions = {},
): Promise<MirrorResult> {
  const unique = checkedPage(account, page);
  return db.transaction(async (tx): Promise<MirrorResult> => {
    // Sent together; the page's rows are read and locked only once the account's lock is held.
    const [current, before] = await Promise.all([
      lockAccountOf(tx, account),
      unique.length === 0 ? [] : lockStoredRows(tx, account, unique),
    ]);
    if (current?.cursor !== account.cursor) return { outcome: 'stale' };
    const [result] = await Promise.all([
      writePage(tx, account, unique, { ordered: true, before }, options),
      moveCursor.run(tx, { uid: account.uid, cursor: nextCursor }),
    ]);
    return result;
  });
}

/**
 * Disputes the processor pushed (its webhooks) or its report file holds (`dispute import`), or one it was
 * asked for after a push (`ordered`: its current state), written like a polled page, with the same rules
 * and events, all in one transaction (in pages of at most 1,000); a repeat writes nothing. The account's
 * cursor is neither checked nor moved: a push tells the news of one dispute, not where the processor's
 * list stands. `stale`: the account is paused or gone, and nothing was written.
 */
export async function mirrorDisputes(
  db: Db,
  account: Omit<MirrorAccount, 'cursor'>,
  disputes: readonly NormalizedDispute[],
  options: MirrorOptions & { ordered?: boolean } = {},
): Promise<MirrorResult> {
  // Sorted as a whole before it is cut into pages: every row lock the transaction takes is in id order.
  const all = inIdOrder(account, disputes);
  return db.transaction(async (tx): Promise<MirrorResult> => {
    if (!(await lockAccountOf(tx, account))) return { outcome: 'stale' };
    const totals = { outcome: 'mirrored' as const, ...nothingWritten, foreign: [] as string[] };
    for (let at = 0; at < all.length; at += maxPageSize) {
      const page = all.slice(at, at + maxPageSize);
      const result = await writePage(tx, account, page, { ordered: options.ordered ?? false }, options);
      totals.created += result.created;
      totals.updated += result.updated;
      totals.closed += result.closed;
      totals.unchanged += result.unchanged;
      totals.foreign.push(...result.foreign);
    }
    return totals;
  });
}

/** The page in id order, one entry a dispute, refused whole if an adapter reported a state of ours. */
function checkedPage(
  account: Pick<MirrorAccount, 'processor'>,
  page: readonly NormalizedDispute[],
): NormalizedDispute[] {
  if (page.length > maxPageSize) throw new Error(`a page of ${page.length} disputes is over ${maxPageSize}`);
  return inIdOrder(account, page);
}

function inIdOrder(
  account: Pick<MirrorAccount, 'processor'>,
  page: readonly NormalizedDispute[],
): NormalizedDispute[] {
  // In id order: two transactions that meet the same ids (an id listed by two accounts) lock and insert
  // them in the same order, so they wait for each other instead of deadlocking.
  const unique = latestById(page).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const local = unique.find((dispute) => serviceLocal.has(dispute.state));
  // An adapter maps processor statuses; this service's own states are never the processor's to report.
  if (local) throw new Error(`the ${account.processor} adapter reported ${local.id} as '${local.state}'`);
  return unique;
}

/** Locks the account row first (pages of one account commit one at a time); undefined unless active. */
async function lockAccountOf(tx: Tx, account: { uid: string }) {
  const [current] = await lockAccount.run(tx, { uid: account.uid });
  return current?.status === 'active' ? current : undefined;
}

/**
 * Writes one checked page inside the caller's transaction, which holds the account's lock. `ordered`: the
 * news comes in the processor's order (a poll); `before`: the page's stored rows, when already locked.
 */
async function writePage(
  tx: Tx,
  account: Omit<MirrorAccount, 'cursor'>,
  unique: NormalizedDispute[],
  { ordered, before }: { ordered: boolean; before?: StoredRow[] },
  options: MirrorOptions,
): Promise<Extract<MirrorResult, { outcome: 'mirrored' }>> {
  if (unique.length === 0) return { outcome: 'mirrored', ...nothingWritten, foreign: [] };
  const stored = before ?? (await lockStoredRows(tx, account, unique));
  const { events, ...counts } = await upsertPage(tx, account, unique, stored, ordered, options);
  // A dispute written links to its charge's alert, whichever came first (docs/api.md, "Alerts").
  const charges = events.flatMap(({ dispute }) => (dispute.charge === null ? [] : [dispute.charge]));
  const linked = withLinks({ alerts: [], disputes: events }, await linkByCharges(tx, account, charges));
  await Promise.all([recordDisputeEvents(tx, linked.disputes), recordAlertEvents(tx, linked.alerts)]);
  return { outcome: 'mirrored', ...counts };
}

const nothingWritten = { created: 0, updated: 0, closed: 0, unchanged: 0, foreign: [] as string[] };

const lockAccount = statement<{ uid: string }>(sql`
  select ${connectedAccounts.cursor}, ${connectedAccounts.status} from ${connectedAccounts}
  where ${connectedAccounts.uid} = ${sql.placeholder('uid')} for update`);

const moveCursor = statement<{ uid: string; cursor: string | null }>(sql`
  update ${connectedAccounts}
  set cursor = ${sql.placeholder('cursor')}, last_polled_at = now(), last_error = null, updated_at = now()
  where ${connectedAccounts.uid} = ${sql.placeholder('uid')}`);
