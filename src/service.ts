import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { boardFor } from './admin/board.js';
import { createApp } from './api/app.js';
import { answerClientErrors } from './api/client-errors.js';
import { composeProcess } from './composition.js';
import { type Config, listenerOrigin } from './config.js';
import { runMigrations } from './db/migrate.js';
import { type Demo, demoEnabled, prepareDemo } from './demo.js';
import { startWorkers } from './jobs/workers/engine.js';
import { type StoppableListener, stoppable } from './listener-shutdown.js';
import { createLogger, type Logger } from './logger.js';
import { metricsFor } from './metrics/endpoint.js';
import { type OperatorCredentials, operatorCredentials } from './operators.js';
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
  /** Drains, then stops (docs/operations.md "Stopping"); `signal`, when a signal asked for it, is logged. */
  close(signal?: NodeJS.Signals): Promise<void>;
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
  const system = await composeProcess(config, logger);
  const { database, queues } = system;
  await runMigrations(database.sessionDb);
  const api = await system.openApi();
  // Listening before the first submit request, so no job's completion can slip past its waiter; without
  // Redis the process serves what needs none (/healthz, reads) and the listener starts once Redis answers.
  await queues.watch.unlessAway(queues.events('submission').waitUntilReady());
  const workers = await startWorkers(system.engine, config.WORKERS);
  // The operators' pages are this process's to plug in: the API itself knows neither.
  const app = createApp(api.deps, {
    admin: boardFor(config, queues, api.redis, logger),
    metrics: metricsFor(config, { db: database.db, queues, redis: api.redis, logger }),
  });

  const tls = await loadTls(config);
  const https = createHttpsServer({ cert: tls.cert, key: tls.key }, app);
  answerClientErrors(https);
  keepIdleConnections(https, config.HTTP_KEEP_ALIVE_SECONDS);
  const listeners: StoppableListener[] = [stoppable(https)];
  const httpsPort = await listen(https, config.PORT, config.HOST);
  system.links.listeningAt(listenerOrigin(config, httpsPort));
  logger.info(
    { host: config.HOST ?? 'every interface', port: httpsPort, certificate: tls.origin },
    'serving HTTPS',
  );
  const http = config.HTTP_PORT === undefined ? undefined : createHttpServer(app);
  if (http) {
    answerClientErrors(http);
    keepIdleConnections(http, config.HTTP_KEEP_ALIVE_SECONDS);
    listeners.push(stoppable(http));
  }
  const httpPort = http && (await listen(http, config.HTTP_PORT ?? 0, config.HOST));
  if (http) logger.info({ port: httpPort }, 'plain HTTP listener: answers /v1 with 403 insecure_connection');
  // Once serving: a start that fails before (a port taken) makes no organisation whose keys nobody saw.
  const demo = demoEnabled(config)
    ? await prepareDemo({ ...system, db: database.db, scheduler: system.ports.scheduler }, config)
    : undefined;

  return {
    httpsPort,
    httpPort,
    logger,
    database: database.describe,
    operators,
    demo,
    async close(signal) {
      // The drain is the first part of the grace (docs/operations.md "Stopping"): /readyz answers 503
      // while everything else is still served, so that a load balancer stops sending requests before
      // the listeners stop accepting them. Workers stop meanwhile, for the whole grace.
      const graceMs = config.SHUTDOWN_GRACE_SECONDS * 1000;
      const drainMs = config.SHUTDOWN_DRAIN_SECONDS * 1000;
      api.deps.readiness.drain();
      logger.info(
        { signal, drainSeconds: config.SHUTDOWN_DRAIN_SECONDS, graceSeconds: config.SHUTDOWN_GRACE_SECONDS },
        'shutting down: draining (/readyz answers 503)',
      );
      const stopped = workers.close(graceMs);
      await new Promise((resolve) => setTimeout(resolve, drainMs));
      const stopping = listeners.map((listener) => listener.stop(graceMs - drainMs));
      logger.info(
        { inFlight: sum(stopping.map(({ inFlight }) => inFlight)) },
        'stopped accepting connections; requests in flight are answered with Connection: close',
      );
      const cut = sum((await Promise.all(stopping.map(({ closed }) => closed))).map(({ cut }) => cut));
      if (cut > 0) {
        logger.warn(
          { requests: cut, graceMs },
          'requests still running at the end of the grace were cut off',
        );
      }
      await stopped;
      await system.close();
    },
  };
}

const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);

/** Listens on `host` (HOST; undefined: every interface), as docs/operations.md "Configuration" says. */
function listen(server: Server, port: number, host: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Keeps an idle keep-alive connection open for `seconds` (HTTP_KEEP_ALIVE_SECONDS, docs/operations.md
 * "Rolling restart"). The wait for a request's headers stays at least a second longer, so a request
 * arriving at the last moment of the idle time is read, not cut.
 */
function keepIdleConnections(server: Server, seconds: number): void {
  server.keepAliveTimeout = seconds * 1000;
  server.headersTimeout = Math.max(server.headersTimeout, (seconds + 1) * 1000);
}
