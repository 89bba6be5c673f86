import type { AppDeps } from './api/endpoint.js';
import { type Config, documentLimits, listenerOrigin } from './config.js';
import { type Database, type Db, openDatabase } from './db/client.js';
import { type DocumentLinks, linksFor } from './documents/links.js';
import { configureRenderThreads } from './documents/render-pool.js';
import type { AccountScheduler } from './features/accounts/connected-accounts.js';
import type { AlertRefunder } from './features/alerts/refund-dispatch.js';
import { DisputeObjectCache } from './features/disputes/object-cache.js';
import { createProductImageFetcher } from './features/disputes/product-images.js';
import { postgresFileStorage } from './features/files/storage.js';
import type { RefreshDispatcher } from './features/mirroring/push.js';
import { KeyResolver } from './features/organisations/authenticate.js';
import type { RemovalDispatcher } from './features/personal-data/removal.js';
import type { Submitter } from './features/submissions/port.js';
import type { DeliveryDispatcher } from './features/webhooks/relay.js';
import { createQueueAccountScheduler } from './jobs/account-scheduler.js';
import { createQueueAlertRefunder } from './jobs/alert-refunder.js';
import { openQueues, type Queues } from './jobs/catalog.js';
import { createQueueDeliveryDispatcher } from './jobs/delivery-dispatcher.js';
import { createQueueRefreshDispatcher } from './jobs/refresh-dispatcher.js';
import { createQueueRemovalDispatcher } from './jobs/removal-dispatcher.js';
import { createQueueSubmitter } from './jobs/submitter.js';
import type { EngineDeps } from './jobs/workers/deps.js';
import type { Logger } from './logger.js';
import { AccountGuards } from './processors/guard.js';
import { MockAdapter } from './processors/mock/adapter.js';
import { RemoteMockAdapter } from './processors/mock/remote-adapter.js';
import { MockDisputeWorld } from './processors/mock/world.js';
import { createAdapterRegistry } from './processors/registry.js';
import { rateLimitsOf } from './rate-limits.js';
import { readinessOf } from './readiness.js';
import { connectRedis } from './redis.js';
import {
  openRedis,
  type RedisClient,
  redisTargetOf,
  refuseCertificate,
  refuseClusterNode,
} from './redis-connection.js';
import { watchRedis } from './redis-watch.js';
import { loadAppSecret, SecretBox } from './secrets.js';

/**
 * The composition root: the one place that chooses the implementations the processes run with, from the
 * configuration. The web process, the worker process, the CLI and the tests take their dependencies from
 * here, so a port gains an implementation in one place (docs/architecture.md, "The intended direction").
 */

/** The queue-backed implementations of the features' ports (docs/architecture.md, "The intended direction"). */
export interface QueuePorts {
  submitter: Submitter;
  removals: RemovalDispatcher;
  refresher: RefreshDispatcher;
  deliveries: DeliveryDispatcher;
  scheduler: AccountScheduler;
  alertRefunds: AlertRefunder;
}

export function queuePorts(deps: {
  db: Db;
  queues: Queues;
  logger: Logger;
  config: Pick<Config, 'SUBMIT_WAIT_MS'>;
}): QueuePorts {
  const { db, queues, logger } = deps;
  return {
    submitter: createQueueSubmitter({ db, queues, logger, waitMs: deps.config.SUBMIT_WAIT_MS }),
    removals: createQueueRemovalDispatcher({ queues, logger }),
    refresher: createQueueRefreshDispatcher({ queues }),
    deliveries: createQueueDeliveryDispatcher(queues),
    scheduler: createQueueAccountScheduler(queues),
    alertRefunds: createQueueAlertRefunder({ queues, logger }),
  };
}

/** The secrets box and link signer of the configured APP_SECRET (or the generated one, without DATABASE_URL). */
export async function loadSecrets(
  config: Pick<
    Config,
    | 'APP_SECRET'
    | 'APP_SECRET_PREVIOUS'
    | 'DATA_DIR'
    | 'DATABASE_URL'
    | 'PUBLIC_URL'
    | 'HOST'
    | 'PORT'
    | 'DOCUMENT_LINK_SECONDS'
  >,
): Promise<{ secrets: SecretBox; links: DocumentLinks }> {
  return secretsFor(await loadAppSecret(config), config);
}

/**
 * What APP_SECRET keys: the box sealing stored secrets (which also opens what APP_SECRET_PREVIOUS sealed),
 * and the signer of document links.
 */
export function secretsFor(
  appSecret: string,
  config: Pick<Config, 'APP_SECRET_PREVIOUS' | 'PUBLIC_URL' | 'HOST' | 'PORT' | 'DOCUMENT_LINK_SECONDS'>,
): { secrets: SecretBox; links: DocumentLinks } {
  return {
    secrets: new SecretBox(appSecret, config.APP_SECRET_PREVIOUS),
    links: linksFor(appSecret, config),
  };
}

/** What the API serves from beyond the process's infrastructure, and the request-path Redis under it. */
export interface ApiParts {
  deps: AppDeps;
  /** A request-path connection (src/redis.ts): rate limits, readiness, the operators' sign-in guard. */
  redis: RedisClient;
}

/** Everything a long-running process (web, worker) opens at start, closed together by `close()`. */
export interface Composition extends Omit<EngineDeps, 'db' | 'listen'> {
  database: Database;
  /** The job engine's dependencies (src/jobs/workers/engine.ts). */
  engine: EngineDeps;
  ports: QueuePorts;
  /** Starts the API key cache's LISTEN and a request-path Redis: the web process's, not the workers'. */
  openApi(): Promise<ApiParts>;
  /** Lets go of everything opened here, what the API opened first. */
  close(): Promise<void>;
}

/** What a test puts in place of the configured parts. */
export interface TestParts {
  /** A database of the test's own: used, and left open for the test to close. */
  database?: Database;
  /** The mock processor's adapter the test drives. */
  mock?: MockAdapter;
}

export async function composeProcess(
  config: Config,
  logger: Logger,
  test: TestParts = {},
): Promise<Composition> {
  configureRenderThreads(config.RENDER_THREADS, config.RENDER_TIMEOUT_MS);
  // Without PUBLIC_URL links point at the configured listener (config.ts `listenerOrigin`): said once, by
  // each process that delivers webhooks, whose receivers are the likeliest to be elsewhere.
  if (!config.PUBLIC_URL && config.WORKERS.includes('webhook')) {
    logger.warn(
      { localOrigin: listenerOrigin(config, config.PORT) },
      'PUBLIC_URL is unset: response_url links in webhooks point at this machine; set it when clients reach the service elsewhere',
    );
  }
  const database = test.database ?? (await openDatabase(config));
  if (database.pollMs !== undefined) {
    // A pooler without DATABASE_DIRECT_URL (src/db/pooler.ts): said once, with what it costs.
    logger.warn(
      { pollSeconds: database.pollMs / 1000 },
      'Postgres notifications do not arrive through DATABASE_URL (a transaction-mode pooler?) and DATABASE_DIRECT_URL is unset: the outbox relay and the API key cache poll instead, so webhooks may leave and a revoked key may work up to pollSeconds later; set DATABASE_DIRECT_URL to the database itself',
    );
  }
  // One watch over every Redis connection of the process: an outage is two lines, not one per retry.
  const target = redisTargetOf(config);
  const watch = watchRedis(target, logger);
  if (config.queuePrefixTagged) {
    logger.info(
      { queuePrefix: config.QUEUE_PREFIX },
      'QUEUE_PREFIX was given a hash tag: on a Redis Cluster every key of the service must share one slot',
    );
  }
  const queues = openQueues({ redis: target, prefix: config.QUEUE_PREFIX }, watch);
  // A REDIS_URL at a cluster node would take work and never do it, and a refused certificate is never
  // mended by waiting: one line instead (unless Redis is away).
  const probe = watch.client(openRedis(target, 'producer'));
  try {
    await refuseCertificate(probe, target);
    await watch.unlessAway(refuseClusterNode(probe, target));
  } finally {
    probe.disconnect();
  }
  const { secrets, links } = await loadSecrets(config);
  // Rate limits and circuit breakers of processor accounts, shared by every process through Redis.
  const guardRedis = connectRedis(target, logger, watch);
  const context = { logger, guards: new AccountGuards(guardRedis, config.QUEUE_PREFIX, logger) };
  const adapters = createAdapterRegistry({ context, ...mockAdapter(config, test) });
  const infrastructure = { database, queues, adapters, secrets, links, logger, config };
  const engine: EngineDeps = { ...infrastructure, db: database.db, listen: database.listen };
  const ports = queuePorts({ db: database.db, queues, logger, config });
  const closeApi: Array<() => Promise<void>> = [];

  return {
    ...infrastructure,
    engine,
    ports,
    async openApi() {
      const keys = new KeyResolver(database, config.KEY_CACHE_SECONDS * 1000);
      await keys.listen();
      const redis = connectRedis(target, logger, watch);
      closeApi.push(async () => {
        await keys.close();
        redis.disconnect();
      });
      const deps: AppDeps = {
        db: database.db,
        keys,
        rateLimits: rateLimitsOf(redis, config, logger),
        adapters,
        submitter: ports.submitter,
        removals: ports.removals,
        refresher: ports.refresher,
        alertRefunds: ports.alertRefunds,
        readiness: readinessOf({ db: database.db, redis }),
        disputeObjects: new DisputeObjectCache(),
        logger,
        trustProxy: config.TRUST_PROXY,
        publicUrl: config.PUBLIC_URL,
        secrets,
        links,
        allowPrivateWebhooks: config.WEBHOOK_ALLOW_PRIVATE,
        webhookEndpointsMax: config.WEBHOOK_ENDPOINTS_MAX,
        documentLimits: documentLimits(config),
        fileStorage: postgresFileStorage(database.db),
        filesMaxBytes: config.FILES_MAX_BYTES,
        productImages: createProductImageFetcher({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }),
        // The longest a request waits (a submit, on its processor) and a minute more.
        idempotencyLeaseMs: config.SUBMIT_WAIT_MS + 60_000,
      };
      return { deps, redis };
    },
    async close() {
      for (const close of closeApi) await close();
      watch.close();
      guardRedis.disconnect();
      await queues.close();
      if (!test.database) await database.close();
    },
  };
}

/** The mock processor as configured: remote, world-less (MOCK_DISPUTE_SECONDS=0), or a test's own. */
function mockAdapter(config: Config, test: TestParts) {
  if (test.mock) return { mock: test.mock };
  if (config.MOCK_PROCESSOR_URL) return { mock: new RemoteMockAdapter(config.MOCK_PROCESSOR_URL) };
  // MOCK_DISPUTE_SECONDS=0: the mock processor's accounts keep the disputes they start with.
  if (config.MOCK_DISPUTE_SECONDS === 0) {
    return { mock: new MockAdapter({ world: new MockDisputeWorld({ live: false }) }) };
  }
  return {};
}
