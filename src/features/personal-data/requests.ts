import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { personalDataRequests } from '../../db/schema/index.js';
import { formatTimestamp } from '../../domain/disputes.js';
import type { SealedAt, SecretBox } from '../../secrets.js';
import { sealedAt } from '../secrets/sealed-columns.js';

/**
 * Personal data requests as the operator reads them (`npm run cli -- privacy`): the list of an
 * organisation's requests, and the export of a retrieve request, opened for sending on.
 */

export type PersonalDataRequestRow = typeof personalDataRequests.$inferSelect;

/** A request as the operator sees it: the address to answer, opened; the person it was about, never. */
export function describeRequest(secrets: SecretBox, row: PersonalDataRequestRow) {
  return {
    id: row.id,
    org: row.orgId,
    mode: row.livemode ? 'live' : 'test',
    kind: row.kind,
    notification_email:
      row.notificationEmail === null
        ? null
        : openSealed(secrets, row.notificationEmail, sealedAt('requestNotificationEmail', row.id)),
    export: row.kind === 'retrieve' ? (row.export === null ? 'deleted' : 'available') : null,
    summary: row.summary,
    created: formatTimestamp(row.createdAt),
    completed: formatTimestamp(row.completedAt),
    failure: row.failure,
  };
}

export async function listPersonalDataRequests(
  db: Db,
  query: { org: string; mode?: 'test' | 'live' },
): Promise<PersonalDataRequestRow[]> {
  return db
    .select()
    .from(personalDataRequests)
    .where(
      and(
        eq(personalDataRequests.orgId, query.org),
        query.mode === undefined ? undefined : eq(personalDataRequests.livemode, query.mode === 'live'),
      ),
    )
    .orderBy(desc(personalDataRequests.createdAt), desc(personalDataRequests.id));
}

/** The export of a retrieve request, opened; an error says why there is none. */
export async function readPersonalDataExport(db: Db, secrets: SecretBox, id: string): Promise<unknown> {
  const [row] = await db.select().from(personalDataRequests).where(eq(personalDataRequests.id, id));
  if (!row) throw new Error(`no personal data request ${id}`);
  if (row.kind !== 'retrieve')
    throw new Error(`${id} is a ${row.kind} request: only retrieve requests have an export`);
  if (row.export === null) {
    throw new Error(`the export of ${id} was deleted: the person's data has since been removed`);
  }
  return JSON.parse(openSealed(secrets, row.export, sealedAt('requestExport', row.id)));
}

function openSealed(secrets: SecretBox, sealed: string, at: SealedAt): string {
  try {
    return secrets.open(sealed, at);
  } catch {
    throw new Error('a sealed value cannot be opened: this process has a different APP_SECRET');
  }
}
