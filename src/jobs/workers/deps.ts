import type { Config } from '../../config.js';
import type { Database, Db } from '../../db/client.js';
import type { DocumentLinks } from '../../documents/links.js';
import type { Logger } from '../../logger.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import type { SecretBox } from '../../secrets.js';
import type { Queues } from '../catalog.js';

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
