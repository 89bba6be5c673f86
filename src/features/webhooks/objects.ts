import { formatTimestamp } from '../../domain/disputes.js';
import type { EndpointRow } from './endpoints.js';
import type { LoggedEvent } from './event-log.js';

/**
 * The webhook_endpoint and event objects as the API answers them and the CLI prints them (docs/api.md,
 * "Webhooks").
 */

const webhookEndpointPath = (id: string) => `/v1/webhook_endpoints/${id}`;

/**
 * The webhook_endpoint object. Its destination is `endpoint_url`: `url` is the request path on every
 * object (docs/api.md, "Conventions"). The signing secret (`secret`) is shown by the create and
 * rotate_secret calls only.
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

const eventPath = (id: string) => `/v1/events/${id}`;

/** The event object of the event log: what happened to which dispute, and how each delivery went. */
export function eventObject(logged: LoggedEvent, url = eventPath(logged.event.id)) {
  const { event } = logged;
  return {
    object: 'event' as const,
    id: event.id,
    type: event.type,
    dispute: event.disputeId,
    alert: event.alertId,
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
