import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { bytea } from './columns.js';
import { disputes } from './disputes.js';
import { submissions } from './submissions.js';
import { tenancy } from './tenancy.js';

/**
 * The response package of one submission: the evidence dictionary the processor received and the PDF that
 * went with it. Written before the processor is called, once per submission (rendering is deterministic,
 * so a retried attempt finds the same document), and kept as the record of what was sent.
 */
export const documents = pgTable(
  'documents',
  {
    id: text().primaryKey(),
    ...tenancy(),
    disputeUid: uuid()
      .notNull()
      .references(() => disputes.uid),
    submissionId: text()
      .notNull()
      .unique()
      .references(() => submissions.id),
    /**
     * What the document was rendered from (domain/evidence-document.ts, as JSON): the dispute as submitted
     * and the template as it stood. A personal-data removal redacts it and renders the document again from
     * it, so the document stays the record of what was sent, less the person.
     */
    input: jsonb().$type<Record<string, unknown>>().notNull(),
    evidence: jsonb().$type<Record<string, string | number | boolean>>().notNull(),
    pdf: bytea().notNull(),
    /** Hex SHA-256 of `pdf`, also on the submission row. */
    sha256: text().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (table) => [index('documents_dispute_idx').on(table.disputeUid, table.createdAt)],
);
