import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createApp } from './api/app.js';
import { answerClientErrors } from './api/client-errors.js';
import type { Config } from './config.js';
import { connectDatabase } from './db/client.js';
import { runMigrations } from './db/migrate.js';
import { createLogger, describeError, type Logger } from './logger.js';
import { createAdapterRegistry } from './processors/registry.js';
import { connectRedis } from './redis.js';
import { KeyResolver } from './services/authenticate.js';
import { DisputeObjectCache } from './services/dispute-object-cache.js';
import { RateLimiter } from './services/rate-limit.js';
import {
  createInlineSubmitter,
  resumePendingSubmissions,
  type SubmissionDeps,
} from './services/submissions.js';
import { loadTls } from './tls.js';

export interface RunningService {
  httpsPort: number;
  httpPort: number | undefined;
  logger: Logger;
  close(): Promise<void>;
}

/** Migrates, then serves the API over HTTPS (and the optional plain listener that only refuses). */
export async function startService(
  config: Config,
  logger = createLogger(config.LOG_LEVEL),
): Promise<RunningService> {
  const database = connectDatabase(config.DATABASE_URL);
  await runMigrations(database.db);
  const keys = new KeyResolver(database, config.KEY_CACHE_SECONDS * 1000);
  await keys.listen();
  const adapters = createAdapterRegistry();
  const submissions = { db: database.db, adapters, logger };
  const recovery = recoverSubmissions(submissions, logger);
  const redis = connectRedis(config.REDIS_URL, logger);
  const app = createApp({
    db: database.db,
    keys,
    rateLimiter: new RateLimiter(redis, config.QUEUE_PREFIX, config.RATE_LIMIT_PER_SECOND, logger),
    adapters,
    submitter: createInlineSubmitter(submissions),
    disputeObjects: new DisputeObjectCache(),
    logger,
    trustProxy: config.TRUST_PROXY,
  });

  const tls = await loadTls(config);
  const https = createHttpsServer({ cert: tls.cert, key: tls.key }, app);
  answerClientErrors(https);
  const httpsPort = await listen(https, config.PORT);
  logger.info({ port: httpsPort, certificate: tls.origin }, 'serving HTTPS');
  const http = config.HTTP_PORT === undefined ? undefined : createHttpServer(app);
  if (http) answerClientErrors(http);
  const httpPort = http && (await listen(http, config.HTTP_PORT ?? 0));
  if (http) logger.info({ port: httpPort }, 'plain HTTP listener: answers /v1 with 403 insecure_connection');

  return {
    httpsPort,
    httpPort,
    logger,
    async close() {
      await Promise.all([closeServer(https), http && closeServer(http)]);
      recovery.stop();
      await keys.close();
      redis.disconnect();
      await database.close();
    },
  };
}

/**
 * Finishes, at start and then every minute, the submissions a stopped process left between recording an
 * attempt and recording its outcome (their lease expired). The job engine's sweep takes this over.
 */
function recoverSubmissions(deps: SubmissionDeps, logger: Logger): { stop(): void } {
  let running = false;
  const recover = async () => {
    if (running) return;
    running = true;
    try {
      const count = await resumePendingSubmissions(deps);
      if (count > 0) logger.info({ count }, 'resumed pending submissions');
    } catch (error) {
      logger.error({ err: describeError(error) }, 'resuming pending submissions failed');
    } finally {
      running = false;
    }
  };
  void recover();
  const timer = setInterval(recover, 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
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
