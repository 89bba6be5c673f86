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
import { KeyResolver } from './services/authenticate.js';
import { DisputeObjectCache } from './services/dispute-object-cache.js';
import { createInlineSubmitter, resumePendingSubmissions } from './services/submissions.js';
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
  // Submissions a stopped process left between recording an attempt and recording its outcome.
  resumePendingSubmissions(submissions).then(
    (count) => count > 0 && logger.info({ count }, 'resumed pending submissions'),
    (error: unknown) => logger.error({ err: describeError(error) }, 'resuming pending submissions failed'),
  );
  const app = createApp({
    db: database.db,
    keys,
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
      await keys.close();
      await database.close();
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
