import { z } from 'zod';
import { boolean, show, text } from '../../domain/values.js';
import { type ApiVersion, apiVersions, isApiVersion } from '../../domain/versions.js';
import { allEvents, eventTypes } from '../../domain/webhooks.js';
import type { CreateEndpointInput, UpdateEndpointInput } from '../../features/webhooks/inputs.js';

/**
 * Request parameters of the webhook endpoint endpoints (docs/api.md, "Webhooks"), parsed into what the
 * webhooks feature takes (features/webhooks/inputs.ts).
 */

/**
 * The URL a webhook goes to: absolute, https (plain http too when WEBHOOK_ALLOW_PRIVATE is set, for local
 * development). Whether it resolves to a private address is checked at delivery time, when it matters.
 */
function webhookUrl(allowHttp: boolean) {
  const protocols = allowHttp ? ['https:', 'http:'] : ['https:'];
  const message = allowHttp ? 'must be an absolute http or https URL' : 'must be an absolute https URL';
  return text(2048).refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, message);
}

const eventName = z.enum([allEvents, ...eventTypes], {
  error: (issue) => `${show(issue.input)} is not an event type`,
});

/**
 * `events`: a JSON array (in a form, `events[]=…` or one JSON-text value) or a single name. `*` anywhere
 * means all events; duplicates collapse.
 */
const subscription = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return [value];
    }
  },
  z
    .array(eventName, 'must be an array of event types')
    .min(1, 'must name at least one event type')
    .max(50, 'must have at most 50 items')
    .transform((names) => (names.includes(allEvents) ? [allEvents] : [...new Set(names)])),
);

const apiVersion = z
  .string()
  .refine(isApiVersion, `must be one of ${apiVersions.join(', ')}`)
  .transform((value) => value as ApiVersion);

export function createEndpointInput(allowHttp: boolean) {
  return z.object({
    url: webhookUrl(allowHttp),
    events: subscription.default([allEvents]),
    api_version: apiVersion.optional(),
  }) satisfies z.ZodType<CreateEndpointInput>;
}

export function updateEndpointInput(allowHttp: boolean) {
  return z.object({
    url: webhookUrl(allowHttp).optional(),
    events: subscription.optional(),
    api_version: apiVersion.optional(),
    enabled: boolean.optional(),
  }) satisfies z.ZodType<UpdateEndpointInput>;
}
