import type { Config } from './config.js';
import { connectDatabase, type Database } from './db/client.js';
import { openQueues, type Queues } from './jobs/catalog.js';
import type { Logger } from './logger.js';
import { RemoteMockAdapter } from './processors/mock/remote.js';
import { type AdapterRegistry, createAdapterRegistry } from './processors/registry.js';
import { loadAppSecret, SecretBox } from './secrets.js';

/** What both process kinds (web, worker) open at start and close at exit. */
export interface Runtime {
  database: Database;
  queues: Queues;
  adapters: AdapterRegistry;
  secrets: SecretBox;
  logger: Logger;
  config: Config;
  close(): Promise<void>;
}

export async function openRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const database = connectDatabase(config.DATABASE_URL);
  const queues = openQueues({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX });
  return {
    database,
    queues,
    adapters: createAdapterRegistry(
      config.MOCK_PROCESSOR_URL ? { mock: new RemoteMockAdapter(config.MOCK_PROCESSOR_URL) } : {},
    ),
    secrets: new SecretBox(await loadAppSecret(config)),
    logger,
    config,
    async close() {
      await queues.close();
      await database.close();
    },
  };
}
