import { boolean, text } from 'drizzle-orm/pg-core';
import { organisations } from './organisations.js';

/** Columns of every tenant-owned row: the organisation and the mode (test or live) it belongs to. */
export const tenancy = () => ({
  orgId: text()
    .notNull()
    .references(() => organisations.id),
  livemode: boolean().notNull(),
});
