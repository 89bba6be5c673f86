import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';

/** The `route` label of a request no route pattern matches: one label, whatever the path. */
export const unmatchedRoute = 'unmatched';

/**
 * The paths the app serves, as its route patterns (`/v1/disputes/:id`): `routes` match a whole path,
 * `mounts` a path and everything under it (Bull Board's pages and assets). Patterns are literal segments
 * and `:name` parameters only, matched as express does by default: any case, an optional trailing slash.
 */
export interface RouteTable {
  routes: readonly string[];
  mounts: readonly string[];
}

/** Methods labelled as they are; any other (Node knows some thirty) is `other`, keeping the series few. */
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Up to the longest a submit request waits for the processor (SUBMIT_WAIT_MS, 15 s) and beyond. */
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30];

/**
 * Counts and times every request under its route pattern, never its path: ids in paths would make a
 * series per dispute. The pattern is found from the path itself rather than from the route express
 * matched, so a request refused before routing (no key, rate limited, plain HTTP) still counts under the
 * route it asked for; a path that matches none is `unmatched`.
 */
export function requestMetrics(registry: Registry): (table: RouteTable) => RequestHandler {
  const requests = new Counter({
    name: 'rebuttal_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'rebuttal_http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to sending the last of its answer, by method and route pattern.',
    labelNames: ['method', 'route'],
    buckets: durationBuckets,
    registers: [registry],
  });
  return (table) => {
    const routeOf = routeLabeller(table);
    return (req: Request, res: Response, next: NextFunction): void => {
      const started = process.hrtime.bigint();
      // 'close' comes for every request, 'finish' only for one answered in full: a client that gave up
      // on a slow submit still counts, as `aborted`.
      res.once('close', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const route = routeOf(req.originalUrl.split('?')[0] ?? '');
        const method = knownMethods.has(req.method) ? req.method : 'other';
        const status = res.writableFinished ? String(res.statusCode) : 'aborted';
        requests.inc({ method, route, status });
        duration.observe({ method, route }, seconds);
      });
      next();
    };
  };
}

/** The function from a request path to its route pattern, or `unmatched`; the first pattern matching wins. */
export function routeLabeller(table: RouteTable): (path: string) => string {
  const matchers = [
    ...table.routes.map((pattern) => ({ pattern, regexp: compile(pattern, '/?$') })),
    ...table.mounts.map((pattern) => ({ pattern, regexp: compile(pattern, '(?:/|$)') })),
  ];
  return (path) => matchers.find(({ regexp }) => regexp.test(path))?.pattern ?? unmatchedRoute;
}

function compile(pattern: string, end: string): RegExp {
  if (!/^(\/(:[A-Za-z_$][\w$]*|[\w.~-]+))+$/.test(pattern)) {
    throw new Error(`route pattern ${pattern} is not literal segments and :parameters`);
  }
  const segments = pattern
    .split('/')
    .slice(1)
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.]/g, '\\.')));
  return new RegExp(`^/${segments.join('/')}${end}`, 'i');
}
