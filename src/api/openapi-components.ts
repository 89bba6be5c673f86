import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { apiVersions } from '../domain/versions.js';
import type { ResponseObject } from './endpoint.js';
import { alertObjectSchema } from './openapi-alerts.js';
import {
  deletedFileSchema,
  deletedTemplateSchema,
  deletedWebhookEndpointSchema,
  disputeListOf,
  disputeObject,
  errorObjectSchema,
  eventObjectSchema,
  fileObjectSchema,
  listOf,
  personalDataRequestSchema,
  responsePackageSchema,
  templateObjectSchema,
  webhookEndpointSchema,
} from './openapi-responses.js';
import { disputeStatsSchema } from './openapi-stats.js';

/**
 * The shared parts of the OpenAPI document (api/openapi.ts): the security scheme, the header parameters
 * and response headers, and the response objects as named schemas, registered once per build.
 */

export const apiKeyScheme = 'apiKey';

/**
 * Names schemas as components, with zod's `.meta({ id })` (which the generator reads), for one build. The
 * names go afterwards: zod's global registry refuses an id twice, and the document may be built again (by
 * another app in the same process). `.openapi(name)` would avoid the global registry, but it exists only on
 * schemas created after `extendZodWithOpenApi(z)`, and the validators are created at import.
 */
export class ComponentNames {
  readonly #named: z.ZodType[] = [];

  name<S extends z.ZodType>(id: string, schema: S): S {
    const named = schema.meta({ id });
    this.#named.push(named);
    return named;
  }

  forget(): void {
    for (const schema of this.#named) z.globalRegistry.remove(schema);
  }
}

export type Components = ReturnType<typeof registerComponents>;

export function registerComponents(registry: OpenAPIRegistry, names: ComponentNames) {
  registry.registerComponent('securitySchemes', apiKeyScheme, {
    type: 'http',
    scheme: 'basic',
    description:
      'HTTP Basic with the API key (`test_…` or `live_…`) as user name; no password is needed, and one sent is ignored. The key decides the mode.',
  });
  const header = (name: string, description: string) =>
    registry.registerComponent('headers', name, { description, schema: { type: 'string' } }).ref;
  const version = registry.registerComponent('parameters', 'ServiceVersion', {
    name: 'Service-Version',
    in: 'header',
    required: false,
    description: "The API version of this request (alias `Chargehound-Version`); default the organisation's.",
    schema: { type: 'string', enum: [...apiVersions] },
  });
  const idempotencyKey = registry.registerComponent('parameters', 'IdempotencyKey', {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes the write safe to send again: a repeat with the same key and the same method, path and parameters within 24 hours gets the first answer again (`Idempotent-Replayed: true`) and changes nothing. 1 to 255 printable ASCII characters.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]+$' },
  });
  const dispute = names.name('Dispute', disputeObject);
  const template = names.name('Template', templateObjectSchema);
  const webhookEndpoint = names.name('WebhookEndpoint', webhookEndpointSchema);
  const event = names.name('Event', eventObjectSchema);
  const file = names.name('File', fileObjectSchema);
  const alert = names.name('Alert', alertObjectSchema);
  return {
    names,
    headers: {
      requestId: header(
        'Request-Id',
        "The request's id (the client's `Request-Id`/`X-Request-Id` when sane).",
      ),
      version: header('Service-Version', 'The API version the request was answered in.'),
      retryAfter: header('Retry-After', 'Seconds to wait before trying again.'),
      replayed: header(
        'Idempotent-Replayed',
        '`true` when the answer is the one kept for an earlier request with the same `Idempotency-Key`.',
      ),
    },
    versionParameter: version.ref,
    idempotencyKeyParameter: idempotencyKey.ref,
    error: names.name('Error', errorObjectSchema),
    objects: {
      dispute,
      disputeList: names.name('DisputeList', disputeListOf(dispute)),
      template,
      templateList: names.name('TemplateList', listOf(template)),
      deletedTemplate: names.name('DeletedTemplate', deletedTemplateSchema),
      webhookEndpoint,
      webhookEndpointList: names.name('WebhookEndpointList', listOf(webhookEndpoint)),
      deletedWebhookEndpoint: names.name('DeletedWebhookEndpoint', deletedWebhookEndpointSchema),
      event,
      eventList: names.name('EventList', listOf(event)),
      response: names.name('Response', responsePackageSchema),
      personalDataRequest: names.name('PersonalDataRequest', personalDataRequestSchema),
      file,
      fileList: names.name('FileList', listOf(file)),
      deletedFile: names.name('DeletedFile', deletedFileSchema),
      disputeStats: names.name('DisputeStats', disputeStatsSchema),
      alert,
      alertList: names.name('AlertList', listOf(alert)),
    } satisfies Record<ResponseObject, z.ZodType>,
    /** Request bodies by validator, so that PUT and POST /disputes/:id share one. */
    bodies: new Map<z.ZodType, z.ZodType>(),
    /** The array parameters of each body component, by its name. */
    jsonTextArrays: new Map<string, string[]>(),
  };
}
