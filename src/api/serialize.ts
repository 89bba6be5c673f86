import { type DisputeRecord, formatTimestamp, toDisputeObject } from '../domain/disputes.js';
import type { TemplateShape } from '../domain/templates.js';
import type { TemplateRow } from '../features/disputes/records.js';
import type { EndpointRow } from '../features/webhooks/endpoints.js';
import type { LoggedEvent } from '../features/webhooks/event-log.js';

/**
 * Response bodies other than errors: the dispute object, lists, templates, webhook endpoints and events
 * (docs/api.md, "The dispute object", "Templates and response documents" and "Webhooks").
 */

export function disputeBody(found: { dispute: DisputeRecord; template: TemplateShape | null }, url: string) {
  return toDisputeObject(found.dispute, found.template, url);
}

/**
 * The list object as JSON text, around items that are JSON text already (dispute objects come serialized
 * from the DisputeObjectCache): `{object: "list", data, has_more, livemode, url}`.
 */
export function listJson(page: { data: string[]; hasMore: boolean }, livemode: boolean, url: string): string {
  const envelope = JSON.stringify({ object: 'list', data: [], has_more: page.hasMore, livemode, url });
  return envelope.replace('"data":[]', `"data":[${page.data.join(',')}]`);
}

export const templatePath = (id: string) => `/v1/templates/${id}`;

export function templateObject(template: TemplateRow, url = templatePath(template.id)) {
  return {
    object: 'template' as const,
    id: template.id,
    name: template.name,
    description: template.description,
    fields: template.fields,
    reasons: template.reasons,
    body: template.body,
    created: formatTimestamp(template.createdAt),
    updated: formatTimestamp(template.updatedAt),
    livemode: template.livemode,
    url,
  };
}

/** What DELETE answers: the template's id, marked deleted. */
export function deletedTemplateObject(template: TemplateRow, url: string) {
  return { object: 'template' as const, id: template.id, deleted: true, livemode: template.livemode, url };
}

export const webhookEndpointPath = (id: string) => `/v1/webhook_endpoints/${id}`;

/**
 * The webhook_endpoint object. Its destination is `endpoint_url`: `url` is the request path on every
 * object (docs/api.md, "Conventions"). The signing secret is shown by the create call only (`secret`).
 */
export function webhookEndpointObject(
  endpoint: EndpointRow,
  url = webhookEndpointPath(endpoint.id),
  secret?: string,
) {
  return {
    object: 'webhook_endpoint' as const,
    id: endpoint.id,
    ...(secret !== undefined && { secret }),
    endpoint_url: endpoint.url,
    events: endpoint.events,
    api_version: endpoint.apiVersion,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    failing_since: formatTimestamp(endpoint.failingSince),
    created: formatTimestamp(endpoint.createdAt),
    updated: formatTimestamp(endpoint.updatedAt),
    livemode: endpoint.livemode,
    url,
  };
}

export function deletedWebhookEndpointObject(endpoint: EndpointRow, url: string) {
  return {
    object: 'webhook_endpoint' as const,
    id: endpoint.id,
    deleted: true,
    livemode: endpoint.livemode,
    url,
  };
}

export const eventPath = (id: string) => `/v1/events/${id}`;

/** The event object of the event log: what happened to which dispute, and how each delivery went. */
export function eventObject(logged: LoggedEvent, url = eventPath(logged.event.id)) {
  const { event } = logged;
  return {
    object: 'event' as const,
    id: event.id,
    type: event.type,
    dispute: event.disputeId,
    created: formatTimestamp(event.createdAt),
    deliveries: logged.deliveries.map((delivery) => ({
      id: delivery.id,
      endpoint: delivery.endpointId,
      status: delivery.status,
      attempts: delivery.attempts,
      last_status: delivery.lastStatus,
      last_error: delivery.lastError,
      next_attempt_at: delivery.status === 'pending' ? formatTimestamp(delivery.nextAttemptAt) : null,
      completed_at: formatTimestamp(delivery.completedAt),
    })),
    livemode: event.livemode,
    url,
  };
}
