import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { connectedAccounts } from '../../db/schema/index.js';
import { statement } from '../../db/statements.js';
import type { NormalizedAlert } from '../../processors/alert-types.js';
import { type AlertEvent, recordAlertEvents, recordDisputeEvents } from '../webhooks/events.js';
import { linkByCharges, withLinks } from './link.js';
import { type AlertAccount, upsertAlerts } from './upsert.js';

/**
 * The transactions alerts are mirrored in (docs/architecture.md, "Alerts"), as disputes are
 * (features/mirroring/write.ts): a polled page with the account's new alert cursor, or the alerts a push
 * described; each with the links to disputes it makes and the events of both, in one transaction.
 */

export type AlertMirrorResult =
  /** `written`: the uids of the alerts created or changed, for the refund rule (refund-dispatch.ts). */
  | { outcome: 'mirrored'; created: number; updated: number; unchanged: number; written: string[] }
  /** The account is gone, paused, or another run moved its alert cursor: nothing was written. */
  | { outcome: 'stale' };

/** Far above any page an adapter asks for (100), as for disputes. */
const maxPageSize = 1000;

/**
 * Writes one polled page of the account's alerts and moves its alert cursor to `nextCursor`, in one
 * transaction. The account row is locked first (as dispute pages lock it): a page listed from a cursor
 * another run has moved since is dropped (`stale`), not written twice.
 */
export async function mirrorAlertPage(
  db: Db,
  account: AlertAccount & { alertCursor: string | null },
  page: readonly NormalizedAlert[],
  nextCursor: string | null,
): Promise<AlertMirrorResult> {
  if (page.length > maxPageSize) throw new Error(`a page of ${page.length} alerts is over ${maxPageSize}`);
  return db.transaction(async (tx): Promise<AlertMirrorResult> => {
    const [current] = await lockAccount.run(tx, { uid: account.uid });
    if (current?.status !== 'active' || current.alertCursor !== account.alertCursor)
      return { outcome: 'stale' };
    const [result] = await Promise.all([
      writeAlerts(tx, account, page, true),
      moveCursor.run(tx, { uid: account.uid, cursor: nextCursor }),
    ]);
    return result;
  });
}

/**
 * Alerts a processor pushed, written like a polled page but as unordered news (upsert.ts), without
 * checking or moving the cursor: a push tells one alert's news, not where the processor's list stands.
 */
export async function mirrorAlerts(
  db: Db,
  account: AlertAccount,
  alerts: readonly NormalizedAlert[],
): Promise<AlertMirrorResult> {
  return db.transaction(async (tx): Promise<AlertMirrorResult> => {
    const [current] = await lockAccount.run(tx, { uid: account.uid });
    if (current?.status !== 'active') return { outcome: 'stale' };
    const totals = {
      outcome: 'mirrored' as const,
      created: 0,
      updated: 0,
      unchanged: 0,
      written: [] as string[],
    };
    for (let at = 0; at < alerts.length; at += maxPageSize) {
      const result = await writeAlerts(tx, account, alerts.slice(at, at + maxPageSize), false);
      totals.created += result.created;
      totals.updated += result.updated;
      totals.unchanged += result.unchanged;
      totals.written.push(...result.written);
    }
    return totals;
  });
}

/** The page's alerts, each id once (its last mention), in id order: concurrent writers lock rows alike. */
function inIdOrder(page: readonly NormalizedAlert[]): NormalizedAlert[] {
  const latest = new Map(page.map((alert) => [alert.id, alert]));
  return [...latest.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

async function writeAlerts(
  tx: Tx,
  account: AlertAccount,
  page: readonly NormalizedAlert[],
  ordered: boolean,
): Promise<Extract<AlertMirrorResult, { outcome: 'mirrored' }>> {
  const unique = inIdOrder(page);
  const written = await upsertAlerts(tx, account, unique, ordered);
  const charges = written.flatMap((alert) => (alert.charge === null ? [] : [alert.charge]));
  const linked = await linkByCharges(tx, account, charges);
  const events = withLinks(
    {
      alerts: written.map(
        ({ inserted, ...alert }): AlertEvent => ({
          type: inserted ? 'alert.created' : 'alert.updated',
          alert,
        }),
      ),
      disputes: [],
    },
    linked,
  );
  await Promise.all([recordAlertEvents(tx, events.alerts), recordDisputeEvents(tx, events.disputes)]);
  const created = written.filter((alert) => alert.inserted).length;
  return {
    outcome: 'mirrored',
    created,
    updated: written.length - created,
    unchanged: unique.length - written.length,
    written: written.map((alert) => alert.uid),
  };
}

const lockAccount = statement<{ uid: string }>(sql`
  select ${connectedAccounts.alertCursor} as "alertCursor", ${connectedAccounts.status} from ${connectedAccounts}
  where ${connectedAccounts.uid} = ${sql.placeholder('uid')} for update`);

const moveCursor = statement<{ uid: string; cursor: string | null }>(sql`
  update ${connectedAccounts} set alert_cursor = ${sql.placeholder('cursor')}, updated_at = now()
  where ${connectedAccounts.uid} = ${sql.placeholder('uid')}`);
