import { integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { FileType } from '../../domain/evidence-files.js';
import { bytea, listIndex } from './columns.js';
import { tenancy } from './tenancy.js';

/**
 * Uploaded files (docs/api.md, "Files"): what a file is, for lists and checks. Its bytes are kept apart,
 * behind the file storage (features/files/storage.ts), so that listing files never reads them.
 */
export const files = pgTable(
  'files',
  {
    id: text().primaryKey(),
    ...tenancy(),
    /** `dispute_evidence` (uploaded) or `product_image` (fetched from a product's `image` URL). */
    purpose: text().$type<'dispute_evidence' | 'product_image'>().notNull(),
    filename: text().notNull(),
    type: text().$type<FileType>().notNull(),
    size: integer().notNull(),
    /** A PDF's page count; null for images. */
    pages: integer(),
    /** Hex SHA-256 of the bytes. */
    sha256: text().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (table) => [listIndex('files_list_idx', table)],
);

/** The bytes of each file, in Postgres by default (features/files/storage.ts). */
export const fileContents = pgTable(
  'file_contents',
  {
    fileId: text()
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    content: bytea().notNull(),
  },
  (table) => [primaryKey({ columns: [table.fileId] })],
);
