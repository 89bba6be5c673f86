import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { boardFor } from './admin/board.js';
import { createApp } from './api/app.js';
import { answerClientErrors } from './api/client-errors.js';
import type { Config } from './config.js';
import { runMigrations } from './db/migrate.js';
import { type Demo, demoEnabled, prepareDemo } from './demo.js';
import { DisputeObjectCache } from './features/disputes/object-cache.js';
import { KeyResolver } from './features/organisations/authenticate.js';
import { createQueueAccountScheduler } from './jobs/account-scheduler.js';
import { createQueueRefreshDispatcher } from './jobs/refresh-dispatcher.js';
import { createQueueRemovalDispatcher } from './jobs/removal-dispatcher.js';
import { createQueueSubmitter } from './jobs/submitter.js';
import { startWorkers } from './jobs/workers/engine.js';
import { createLogger, type Logger } from './logger.js';
import { metricsFor } from './metrics/endpoint.js';
import { type OperatorCredentials, operatorCredentials } from './operators.js';
import { RateLimiter } from './rate-limiter.js';
import { readinessOf } from './readiness.js';
import { connectRedis } from './redis.js';
import { openRuntime } from './runtime.js';
import { loadTls } from './tls.js';

export interface RunningService {
  httpsPort: number;
  httpPort: number | undefined;
  logger: Logger;
  /** Where the data is (Database.describe). */
  database: string;
  /** Who may open Bull Board and /metrics (src/operators.ts); undefined: neither is served. */
  operators: OperatorCredentials | undefined;
  /** The demo organisation (src/demo.ts), when DEMO is on. */
  demo: Demo | undefined;
  close(): Promise<void>;
}

/**
 * Migrates, then serves the API and Bull Board over HTTPS (and the optional plain listener that only
 * refuses), with the workers named in WORKERS running in the same process.
 */
export async function startService(
  settings: Config,
  logger = createLogger(settings.LOG_LEVEL),
): Promise<RunningService> {
  const operators = await operatorCredentials(settings);
  const config = { ...settings, ADMIN_USER: operators?.user, ADMIN_PASSWORD: operators?.password };
  const runtime = await openRuntime(config, logger);
  const { database, queues } = runtime;
  await runMigrations(database.db);
  const keys = new KeyResolver(database, config.KEY_CACHE_SECONDS * 1000);
  await keys.listen();
  // Listening before the first submit request, so no job's completion can slip past its waiter; without
  // Redis the process serves what needs none (/healthz, reads) and the listener starts once Redis answers.
  await queues.watch.unlessAway(queues.events('submission').waitUntilReady());
  const workers = await startWorkers(
    { ...runtime, db: database.db, listen: database.listen },
    config.WORKERS,
  );
  const redis = connectRedis(config.REDIS_URL, logger, queues.watch);
  const app = createApp(
    {
      db: database.db,
      keys,
      rateLimiter: new RateLimiter(redis, config.QUEUE_PREFIX, config.RATE_LIMIT_PER_SECOND, logger),
      adapters: runtime.adapters,
      submitter: createQueueSubmitter({ db: database.db, queues, logger, waitMs: config.SUBMIT_WAIT_MS }),
      removals: createQueueRemovalDispatcher({ queues, logger }),
      refresher: createQueueRefreshDispatcher({ queues }),
      readiness: readinessOf({ db: database.db, redis }),
      disputeObjects: new DisputeObjectCache(),
      logger,
      trustProxy: config.TRUST_PROXY,
      secrets: runtime.secrets,
      links: runtime.links,
      allowPrivateWebhooks: config.WEBHOOK_ALLOW_PRIVATE,
    },
    {
      admin: boardFor(config, queues, redis, logger),
      metrics: metricsFor(config, { db: database.db, queues, redis, logger }),
    },
  );

  const tls = await loadTls(config);
  const https = createHttpsServer({ cert: tls.cert, key: tls.key }, app);
  answerClientErrors(https);
  const httpsPort = await listen(https, config.PORT);
  logger.info({ port: httpsPort, certificate: tls.origin }, 'serving HTTPS');
  const http = config.HTTP_PORT === undefined ? undefined : createHttpServer(app);
  if (http) answerClientErrors(http);
  const httpPort = http && (await listen(http, config.HTTP_PORT ?? 0));
  if (http) logger.info({ port: httpPort }, 'plain HTTP listener: answers /v1 with 403 insecure_connection');
  // Once serving: a start that fails before (a port taken) makes no organisation whose keys nobody saw.
  const demo = demoEnabled(config)
    ? await prepareDemo(
        { ...runtime, db: database.db, scheduler: createQueueAccountScheduler(queues) },
        config,
      )
    : undefined;

  return {
    httpsPort,
    httpPort,
    logger,
    database: database.describe,
    operators,
    demo,
    async close() {
      // Stop taking requests and jobs first; finish what is in flight; then let go of the connections.
      await Promise.all([
        closeServer(https),
        http && closeServer(http),
        workers.close(config.SHUTDOWN_GRACE_SECONDS * 1000),
      ]);
      await keys.close();
      redis.disconnect();
      await runtime.close();
    },
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
