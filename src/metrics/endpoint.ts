import type { Request, RequestHandler, Response } from 'express';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Queues } from '../jobs/catalog.js';
import type { Logger } from '../logger.js';
import { basicAuth, signInGuard } from '../operator-sign-in.js';
import type { RedisClient } from '../redis-connection.js';
import { breakerStatesOf, mirrorLag } from './accounts.js';
import { collectAll } from './collectors.js';
import { type RouteTable, requestMetrics } from './http-requests.js';
import { countJobOutcomes, queueDepths } from './job-queues.js';
import { deliveryOutcomes, submissionOutcomes } from './recorded-outcomes.js';

export const metricsPath = '/metrics';

/** What the app mounts (api/app.ts): the request counter first, the scrape endpoint at `path`. */
export interface ServiceMetrics {
  /** Where the scrape endpoint is served: `metricsPath`. */
  path: string;
  /** Counts and times every request under its route pattern (`table`: the app's patterns). */
  recordRequests(table: RouteTable): RequestHandler;
  /** `GET /metrics`: the operators' sign-in (src/operator-sign-in.ts), then the scrape. */
  endpoint: RequestHandler[];
}

export interface MetricsDeps {
  db: Db;
  queues: Queues;
  /** A request-path connection (src/redis.ts): the sign-in guard and the breaker readings. */
  redis: RedisClient;
  logger: Logger;
  /** How often the counts over whole tables (submissions, deliveries) are read again; default 30 s. */
  tableCountMs?: number;
}

/**
 * The metrics when ADMIN_USER and ADMIN_PASSWORD are both set; otherwise none (`/metrics` is then an
 * unknown route), and a line that says why. Like Bull Board they show the service's workings to on-call,
 * so they take the same credentials, and wrong guesses count against the same sign-in guard.
 */
export function metricsFor(
  config: Pick<Config, 'ADMIN_USER' | 'ADMIN_PASSWORD' | 'QUEUE_PREFIX'>,
  deps: MetricsDeps,
): ServiceMetrics | undefined {
  if (!config.ADMIN_USER || !config.ADMIN_PASSWORD) {
    deps.logger.info('metrics are off: set ADMIN_USER and ADMIN_PASSWORD to serve them at /metrics');
    return undefined;
  }
  deps.logger.info({ path: metricsPath }, 'metrics are on');
  const auth = basicAuth(
    { user: config.ADMIN_USER, password: config.ADMIN_PASSWORD },
    signInGuard(deps.redis, config.QUEUE_PREFIX),
  );
  return serviceMetrics(deps, config.QUEUE_PREFIX, auth);
}

/**
 * A registry of this process's own (not prom-client's global one, which libraries may write to): the
 * process's default metrics, its HTTP requests, job outcomes counted from the queues' events, and what the
 * collectors read from Redis and Postgres at each scrape.
 */
function serviceMetrics(deps: MetricsDeps, prefix: string, auth: RequestHandler): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const recordRequests = requestMetrics(registry);
  countJobOutcomes(registry, deps.queues);
  const collect = collectAll(
    registry,
    [
      queueDepths(registry, deps.queues),
      submissionOutcomes(registry, deps.db, deps.tableCountMs),
      deliveryOutcomes(registry, deps.db, deps.tableCountMs),
      mirrorLag(registry, deps.db),
      breakerStatesOf(registry, deps.db, deps.redis, prefix),
    ],
    deps.logger,
  );
  const scrape = async (_req: Request, res: Response): Promise<void> => {
    await collect();
    const text = await registry.metrics();
    // Set as is: express would rewrite the parameters' order when adding a charset to a string body.
    res.status(200).setHeader('Content-Type', registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(text);
  };
  return { path: metricsPath, recordRequests, endpoint: [auth, scrape] };
}
