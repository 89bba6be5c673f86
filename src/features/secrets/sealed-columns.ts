import { getTableName } from 'drizzle-orm';
import { connectedAccounts, personalDataRequests, webhookEndpoints } from '../../db/schema/index.js';
import type { SealedAt } from '../../secrets.js';

/**
 * Every column holding sealed values (src/secrets.ts), with the column naming its row: the place each value
 * is bound to when it is sealed and opened, and what `secrets reseal` walks (reseal.ts). A column that
 * starts holding sealed values is added here. `column` is the SQL name: bound into every value sealed
 * there, it must never change.
 */
export const sealedColumns = {
  webhookSecret: { table: webhookEndpoints, column: 'secret', id: webhookEndpoints.id },
  webhookPreviousSecret: { table: webhookEndpoints, column: 'previous_secret', id: webhookEndpoints.id },
  accountCredentials: { table: connectedAccounts, column: 'credentials', id: connectedAccounts.uid },
  requestNotificationEmail: {
    table: personalDataRequests,
    column: 'notification_email',
    id: personalDataRequests.id,
  },
  requestSubject: { table: personalDataRequests, column: 'subject', id: personalDataRequests.id },
  requestExport: { table: personalDataRequests, column: 'export', id: personalDataRequests.id },
} as const;

export type SealedColumn = keyof typeof sealedColumns;

/** Where a value of `column` in row `row` is sealed. */
export function sealedAt(column: SealedColumn, row: string): SealedAt {
  const { table, column: name } = sealedColumns[column];
  return { table: getTableName(table), column: name, row };
}
