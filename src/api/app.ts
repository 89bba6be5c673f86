import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { boundingDatabaseWaits, requestDatabaseWaitMs } from '../db/bounded.js';
import { documentPath, fileLinkPath } from '../documents/links.js';
import { ApiError } from '../domain/errors.js';
import type { Caller } from '../features/tenancy.js';
import { type AppDeps, type Endpoint, type RequestContext, requestReader } from './endpoint.js';
import { authenticate, byApiKey, principalOf } from './middleware/auth.js';
import { mergeInput, parseQueryString, readBody } from './middleware/body.js';
import { handleErrors, unknownRoute } from './middleware/errors.js';
import { requireHttps } from './middleware/https.js';
import { idempotent, requestDeps } from './middleware/idempotency.js';
import { refuseOtherSites } from './middleware/origin.js';
import { byClientAddress, chargeBytes, rateLimit } from './middleware/rate-limit.js';
import { requestLog } from './middleware/request-log.js';
import { documentPolicy, securityHeaders } from './middleware/security-headers.js';
import { readUpload } from './middleware/upload.js';
import { resolveVersion, versionOf } from './middleware/version.js';
import { openApiPath, serveOpenApi } from './openapi.js';
import { refundAlertEndpoint } from './routes/alerts/refund.js';
import { listAlertsEndpoint, retrieveAlertEndpoint } from './routes/alerts.js';
import { acceptDisputeEndpoint } from './routes/disputes/accept.js';
import { createDisputeEndpoint } from './routes/disputes/create.js';
import { listDisputesEndpoint } from './routes/disputes/list.js';
import { previewDisputeEndpoint } from './routes/disputes/preview.js';
import { disputeResponseEndpoint } from './routes/disputes/response.js';
import { retrieveDisputeEndpoint } from './routes/disputes/retrieve.js';
import { submitDisputeEndpoint } from './routes/disputes/submit.js';
import { updateDisputeByPostEndpoint, updateDisputeEndpoint } from './routes/disputes/update.js';
import { downloadDocument } from './routes/documents/download.js';
import { listEventsEndpoint } from './routes/events/list.js';
import { redeliverEventEndpoint } from './routes/events/redeliver.js';
import { retrieveEventEndpoint } from './routes/events/retrieve.js';
import { fileContentsEndpoint } from './routes/files/contents.js';
import { deleteFileEndpoint } from './routes/files/delete.js';
import { downloadFile } from './routes/files/download.js';
import { listFilesEndpoint } from './routes/files/list.js';
import { retrieveFileEndpoint } from './routes/files/retrieve.js';
import { uploadFileEndpoint } from './routes/files/upload.js';
import { healthz, readyz } from './routes/health.js';
import { removePersonalDataEndpoint } from './routes/personal-data/remove.js';
import { retrievePersonalDataEndpoint } from './routes/personal-data/retrieve.js';
import { processorHook, rawPushBody } from './routes/processor-hooks.js';
import { disputeStatsEndpoint } from './routes/stats/disputes.js';
import { createTemplateEndpoint } from './routes/templates/create.js';
import { deleteTemplateEndpoint } from './routes/templates/delete.js';
import { listTemplatesEndpoint } from './routes/templates/list.js';
import { retrieveTemplateEndpoint } from './routes/templates/retrieve.js';
import { updateTemplateEndpoint } from './routes/templates/update.js';
import { createTestDisputeEndpoint } from './routes/test/create-dispute.js';
import { createWebhookEndpointEndpoint } from './routes/webhook-endpoints/create.js';
import { deleteWebhookEndpointEndpoint } from './routes/webhook-endpoints/delete.js';
import { listWebhookEndpointsEndpoint } from './routes/webhook-endpoints/list.js';
import { retrieveWebhookEndpointEndpoint } from './routes/webhook-endpoints/retrieve.js';
import { rotateWebhookEndpointSecretEndpoint } from './routes/webhook-endpoints/rotate-secret.js';
import { testWebhookEndpointEndpoint } from './routes/webhook-endpoints/test.js';
import { updateWebhookEndpointEndpoint } from './routes/webhook-endpoints/update.js';

/** TRUST_PROXY=true: a proxy on loopback or a private network (docs/operations.md, "A deployment"). */
const privateNetworks = ['loopback', 'linklocal', 'uniquelocal'];

/** Every public endpoint, under /v1. */
export const endpoints: readonly Endpoint[] = [
  listDisputesEndpoint,
  createDisputeEndpoint,
  retrieveDisputeEndpoint,
  updateDisputeEndpoint,
  updateDisputeByPostEndpoint,
  submitDisputeEndpoint,
  acceptDisputeEndpoint,
  disputeResponseEndpoint,
  previewDisputeEndpoint,
  createTestDisputeEndpoint,
  listTemplatesEndpoint,
  createTemplateEndpoint,
  retrieveTemplateEndpoint,
  updateTemplateEndpoint,
  deleteTemplateEndpoint,
  listWebhookEndpointsEndpoint,
  createWebhookEndpointEndpoint,
  retrieveWebhookEndpointEndpoint,
  updateWebhookEndpointEndpoint,
  deleteWebhookEndpointEndpoint,
  testWebhookEndpointEndpoint,
  rotateWebhookEndpointSecretEndpoint,
  listEventsEndpoint,
  retrieveEventEndpoint,
  redeliverEventEndpoint,
  retrievePersonalDataEndpoint,
  removePersonalDataEndpoint,
  listFilesEndpoint,
  uploadFileEndpoint,
  retrieveFileEndpoint,
  fileContentsEndpoint,
  deleteFileEndpoint,
  disputeStatsEndpoint,
  refundAlertEndpoint,
  listAlertsEndpoint,
  retrieveAlertEndpoint,
];

const healthPath = '/healthz';
const readyPath = '/readyz';
const processorHookPath = '/processor-hooks/:processor/:account';

/** The paths the API routes itself, as patterns: with the operators' pages, its request metrics' labels. */
const apiRoutes = [
  healthPath,
  readyPath,
  documentPath(':id'),
  fileLinkPath(':id'),
  openApiPath,
  processorHookPath,
  ...new Set(endpoints.map((endpoint) => `/v1${endpoint.path}`)),
];

/**
 * The operators' pages beside the API, plugged in by the process that serves them (src/service.ts), so the
 * API knows neither Bull Board (admin/board.ts) nor the metrics (metrics/endpoint.ts).
 */
export interface OperatorPages {
  admin?: { path: string; handler: RequestHandler };
  metrics?: {
    path: string;
    /** Counts every request under its pattern: `routes` match a whole path, `mounts` a path and below. */
    recordRequests(table: { routes: readonly string[]; mounts: readonly string[] }): RequestHandler;
    endpoint: RequestHandler[];
  };
}

/**
 * The HTTP application, without a listener (the server and the tests attach their own). Order matters:
 * request id and log line first, the security headers (and the request metrics, when on), then TLS, key,
 * rate limit, origin, version, body, the endpoint's own limit if it has one, and the endpoint; every
 * failure on the way becomes the JSON error body.
 */
export function createApp(deps: AppDeps, options: OperatorPages = {}): express.Express {
  const limits = deps.rateLimits;
  const byAddress = rateLimit(limits.requests, byClientAddress);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Only the proxies TRUST_PROXY names: their X-Forwarded-Proto counts, and the client address is the one
  // they saw, not whatever a client reaching the port directly wrote (the sign-in guard counts by it).
  app.set('trust proxy', deps.trustProxy === true ? privateNetworks : deps.trustProxy);
  app.set('query parser', parseQueryString);
  app.use(requestLog(deps.logger));
  app.use(securityHeaders);
  if (options.metrics) {
    // The board's pages count under its mount only where it is served; elsewhere they are unknown paths.
    const mounts = options.admin ? [options.admin.path] : [];
    app.use(options.metrics.recordRequests({ routes: [...apiRoutes, options.metrics.path], mounts }));
  }

  // For load balancers and orchestrators: no key, no TLS needed (they reveal nothing). /readyz asks
  // Postgres and Redis, so it has a limit per address, generous enough for every probe.
  app
    .route(healthPath)
    .get(healthz)
    .all(methodNotAllowed(['GET']));
  app
    .route(readyPath)
    .get(rateLimit(limits.readiness, byClientAddress), readyz(deps))
    .all(methodNotAllowed(['GET']));

  // From here on (not the probes: /readyz has its own bound), a request waits at most this long on each
  // answer from Postgres, and answers 503 unavailable rather than hang while Postgres is away.
  app.use((_req: Request, _res: Response, next: NextFunction) =>
    boundingDatabaseWaits(requestDatabaseWaitMs, next),
  );

  // Before the API's key check: a signed document link is its own credential.
  app
    .route(documentPath(':id'))
    .get(requireHttps, documentPolicy, byAddress, downloadDocument(deps))
    .all(methodNotAllowed(['GET']));
  // So is a signed file link (a response package's evidence file); served as an attachment, under the
  // policy that allows nothing.
  app
    .route(fileLinkPath(':id'))
    .get(requireHttps, byAddress, downloadFile(deps))
    .all(methodNotAllowed(['GET']));

  // Before the key check as well: the OpenAPI document (api/openapi.ts) is documentation of the public API,
  // as docs/api.md is, so it needs no key; it is still HTTPS only, like everything under /v1, and counted
  // against the client's address like the other calls without a key.
  app
    .route(openApiPath)
    .get(requireHttps, byAddress, serveOpenApi(endpoints, deps))
    .all(methodNotAllowed(['GET']));

  // Before the API's key check too: a processor's signature is the credential of its push.
  app
    .route(processorHookPath)
    .post(requireHttps, byAddress, rawPushBody, processorHook(deps))
    .all(methodNotAllowed(['POST']));

  const v1 = express.Router();
  v1.use(
    requireHttps,
    authenticate(deps.keys, limits.failedAuthentications),
    rateLimit(limits.requests, byApiKey, limits.responseBytesPerRequest),
    refuseOtherSites(deps),
    resolveVersion,
  );
  // An upload route reads its own multipart body, under its own limit; everywhere else multipart is refused.
  for (const endpoint of endpoints) {
    if (endpoint.upload) v1[endpoint.method](endpoint.path, readUpload(endpoint.upload));
  }
  v1.use(readBody, mergeInput);
  // Writes take an Idempotency-Key (docs/api.md, "Idempotent requests"), once their body is read.
  const keyed = idempotent(deps);
  for (const path of new Set(endpoints.map((endpoint) => endpoint.path))) {
    const group = endpoints.filter((endpoint) => endpoint.path === path);
    const route = v1.route(path);
    for (const endpoint of group) {
      const own = endpoint.budget ? [rateLimit(limits[endpoint.budget], byApiKey)] : [];
      if (endpoint.method !== 'get') own.push(keyed);
      route[endpoint.method](...own, handler(endpoint, deps));
    }
    route.all(methodNotAllowed(group.map((endpoint) => endpoint.method.toUpperCase())));
  }
  app.use('/v1', v1);
  // Bull Board (admin/board.ts), for operators: HTTPS like the API, with its own credentials.
  if (options.admin) app.use(options.admin.path, requireHttps, options.admin.handler);
  // Prometheus metrics (metrics/endpoint.ts), behind the board's credentials.
  if (options.metrics) {
    app
      .route(options.metrics.path)
      .get(requireHttps, ...options.metrics.endpoint)
      .all(methodNotAllowed(['GET']));
  }
  app.use(unknownRoute);
  app.use(handleErrors(deps.logger));
  return app;
}

function handler(endpoint: Endpoint, deps: AppDeps) {
  const read = requestReader(endpoint, deps);
  return async (req: Request, res: Response): Promise<void> => {
    const caller: Caller = { ...principalOf(res), version: versionOf(res) };
    const request: RequestContext = {
      caller,
      params: req.params as Record<string, string>,
      input: res.locals.input as Record<string, unknown>,
      url: req.originalUrl.split('?')[0] ?? '',
      accepts: (types) => req.accepts(types),
      // Under an Idempotency-Key, a database handle whose first write transaction stamps the key.
      deps: requestDeps(res, deps),
    };
    // The endpoint's own schemas, those its documentation shows, check the request before its handler.
    const handle = () => endpoint.handle({ ...request, ...read(request) });
    const { databaseWaitMs } = endpoint;
    const reply = await (databaseWaitMs ? boundingDatabaseWaits(databaseWaitMs, handle) : handle());
    if ('bytes' in reply) {
      chargeBytes(res, reply.bytes.length);
      res.status(reply.status).set(reply.headers).send(reply.bytes);
      return;
    }
    const json = 'json' in reply ? reply.json : JSON.stringify(reply.body);
    // A large answer costs more of the key's rate limit (docs/api.md, "Limits"), as does a costly one.
    chargeBytes(res, Math.max(Buffer.byteLength(json), ('costBytes' in reply && reply.costBytes) || 0));
    if ('headers' in reply && reply.headers) res.set(reply.headers);
    res.status(reply.status).type('json').send(json);
  };
}

function methodNotAllowed(allowed: string[]) {
  return (req: Request, res: Response, _next: NextFunction): void => {
    res.setHeader('Allow', allowed.join(', '));
    throw new ApiError(
      'method_not_allowed',
      `${req.method} is not allowed here; use ${allowed.join(' or ')}.`,
    );
  };
}
