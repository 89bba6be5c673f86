import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { type DocumentLinks, linksFor } from './documents/links.js';
import { configureRenderThreads } from './documents/render-pool.js';
import { openQueues, type Queues } from './jobs/catalog.js';
import type { Logger } from './logger.js';
import { AccountGuards } from './processors/guard.js';
import { MockAdapter } from './processors/mock/adapter.js';
import { RemoteMockAdapter } from './processors/mock/remote-adapter.js';
import { MockDisputeWorld } from './processors/mock/world.js';
import { type AdapterRegistry, createAdapterRegistry } from './processors/registry.js';
import { connectRedis } from './redis.js';
import { watchRedis } from './redis-watch.js';
import { loadAppSecret, SecretBox } from './secrets.js';

/** What both process kinds (web, worker) open at start and close at exit. */
export interface Runtime {
  database: Database;
  queues: Queues;
  adapters: AdapterRegistry;
  secrets: SecretBox;
  links: DocumentLinks;
  logger: Logger;
  config: Config;
  close(): Promise<void>;
}

/** What APP_SECRET keys: the box sealing stored secrets, and the signer of document links. */
export function secretsFor(
  appSecret: string,
  config: Pick<Config, 'PUBLIC_URL' | 'PORT' | 'DOCUMENT_LINK_SECONDS'>,
): { secrets: SecretBox; links: DocumentLinks } {
  return { secrets: new SecretBox(appSecret), links: linksFor(appSecret, config) };
}

export async function openRuntime(config: Config, logger: Logger): Promise<Runtime> {
  configureRenderThreads(config.RENDER_THREADS);
  // Only webhook deliveries build links without a request to take the origin from (API answers use the
  // request's host): said once, by each process that delivers them, not by every worker.
  if (!config.PUBLIC_URL && config.WORKERS.includes('webhook')) {
    logger.warn(
      { localOrigin: `https://localhost:${config.PORT}` },
      'PUBLIC_URL is unset: response_url links in webhooks point at this machine; set it when clients reach the service elsewhere',
    );
  }
  const database = await openDatabase(config);
  // One watch over every Redis connection of the process: an outage is two lines, not one per retry.
  const watch = watchRedis(config.REDIS_URL, logger);
  const queues = openQueues({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX }, watch);
  const appSecret = await loadAppSecret(config);
  // Rate limits and circuit breakers of processor accounts, shared by every process through Redis.
  const guardRedis = connectRedis(config.REDIS_URL, logger, watch);
  const context = { logger, guards: new AccountGuards(guardRedis, config.QUEUE_PREFIX, logger) };
  return {
    database,
    queues,
    adapters: createAdapterRegistry({
      context,
      ...(config.MOCK_PROCESSOR_URL
        ? { mock: new RemoteMockAdapter(config.MOCK_PROCESSOR_URL) }
        : // MOCK_DISPUTE_SECONDS=0: the mock processor's accounts keep the disputes they start with.
          config.MOCK_DISPUTE_SECONDS === 0 && {
            mock: new MockAdapter({ world: new MockDisputeWorld({ live: false }) }),
          }),
    }),
    ...secretsFor(appSecret, config),
    logger,
    config,
    async close() {
      watch.close();
      guardRedis.disconnect();
      await queues.close();
      await database.close();
    },
  };
}
