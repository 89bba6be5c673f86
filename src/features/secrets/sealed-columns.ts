import { getTableName } from 'drizzle-orm';
import {
  connectedAccounts,
  idempotencyKeys,
  personalDataRequests,
  webhookEndpoints,
} from '../../db/schema/index.js';
import type { SealedAt } from '../../secrets.js';

/**
 * Every column holding sealed values (src/secrets.ts), with the columns naming its row (its key, in order):
 * the place each value is bound to when it is sealed and opened, and what `secrets reseal` walks
 * (reseal.ts). A column that starts holding sealed values is added here. `column` is the SQL name: bound
 * into every value sealed there, it must never change.
 */
export const sealedColumns = {
  webhookSecret: { table: webhookEndpoints, column: 'secret', key: [webhookEndpoints.id] },
  webhookPreviousSecret: {
    table: webhookEndpoints,
    column: 'previous_secret',
    key: [webhookEndpoints.id],
  },
  accountCredentials: { table: connectedAccounts, column: 'credentials', key: [connectedAccounts.uid] },
  requestNotificationEmail: {
    table: personalDataRequests,
    column: 'notification_email',
    key: [personalDataRequests.id],
  },
  requestSubject: { table: personalDataRequests, column: 'subject', key: [personalDataRequests.id] },
  requestExport: { table: personalDataRequests, column: 'export', key: [personalDataRequests.id] },
  /** The kept answer of an Idempotency-Key (features/idempotency/keys.ts): it may carry a secret shown once. */
  idempotentAnswer: {
    table: idempotencyKeys,
    column: 'body',
    key: [idempotencyKeys.orgId, idempotencyKeys.livemode, idempotencyKeys.key],
  },
} as const;

export type SealedColumn = keyof typeof sealedColumns;

/**
 * The name of a row bound into its sealed values: its key's values, in the order of `key`, joined by `/`
 * (a one-column key is its value). Unambiguous for every key above: only a key's last column may hold `/`.
 */
export const rowName = (values: readonly unknown[]): string => values.map(String).join('/');

/** Where a value of `column` in the row named `row` (`rowName`) is sealed. */
export function sealedAt(column: SealedColumn, row: string): SealedAt {
  const { table, column: name } = sealedColumns[column];
  return { table: getTableName(table), column: name, row };
}
