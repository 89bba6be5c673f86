import type { Config } from '../src/config.js';
import type { Database, Db } from '../src/db/client.js';
import type { DocumentLinks } from '../src/documents/links.js';
import type { Queues } from '../src/jobs/catalog.js';
import type { Logger } from '../src/logger.js';
import type { AdapterRegistry } from '../src/processors/registry.js';
import type { SecretBox } from '../src/secrets.js';

/** What every worker's handlers are built from: one set per process, shared by all its workers. */
export interface EngineDeps {
  db: Db;
  /** LISTEN on the database behind `db` (the outbox notifications). */
  listen: Database['listen'];
  queues: Queues;
  adapters: AdapterRegistry;
  secrets: SecretBox;
  /** Signs links to response documents (src/documents/links.ts). */
  links: DocumentLinks;
  logger: Logger;
  config: Config;
}
