import { type Command, Option } from 'commander';
import type { Db } from '../db/client.js';
import { deliveryStatuses } from '../db/schema/webhooks.js';
import { parseTimestamp } from '../domain/values.js';
import type { Tenant } from '../features/tenancy.js';
import {
  type DeliveryStatus,
  type DeliveryView,
  listDeliveries,
  redeliverDeliveries,
} from '../features/webhooks/deliveries.js';
import { type EndpointRow, listEndpoints } from '../features/webhooks/endpoints.js';
import { webhookEndpointObject } from '../features/webhooks/objects.js';
import type { CliIo } from './accounts.js';
import { modeOption } from './options.js';
import { table } from './table.js';
import { callerFor, type Mode } from './tenant.js';
import { isoOrNull, limitOption, when } from './values.js';

/**
 * `webhook endpoints|deliveries|redeliver`: where an organisation's events go and how their deliveries
 * went, and sending them again once an endpoint is back. A redelivery restarts the delivery rows and
 * hands their events to the relay, as POST /v1/events/:id/redeliver does: the webhook worker sends them,
 * signed and retried like any delivery. Signing secrets are never shown.
 */

async function allEndpoints(db: Db, tenant: Tenant): Promise<EndpointRow[]> {
  const rows: EndpointRow[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await listEndpoints(db, tenant, { limit: 100, ...(startingAfter && { startingAfter }) });
    rows.push(...page.data);
    startingAfter = page.data.at(-1)?.id;
    if (!page.hasMore || startingAfter === undefined) return rows;
  }
}

function endpointStatus(endpoint: EndpointRow): string {
  if (!endpoint.enabled) return `disabled${endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ''}`;
  return endpoint.failingSince ? `enabled, failing since ${when(endpoint.failingSince)}` : 'enabled';
}

/** A delivery as scripts read it: the event log's delivery attributes, with the event it carries. */
function deliveryJson(delivery: DeliveryView) {
  return {
    id: delivery.id,
    endpoint: delivery.endpoint,
    event: delivery.event,
    type: delivery.type,
    dispute: delivery.dispute,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    next_attempt_at: delivery.status === 'pending' ? isoOrNull(delivery.nextAttemptAt) : null,
    created: isoOrNull(delivery.createdAt),
    completed_at: isoOrNull(delivery.completedAt),
  };
}

function deliveriesTable(deliveries: DeliveryView[]): string {
  return table(
    ['id', 'status', 'attempts', 'last answer', 'next attempt', 'created', 'endpoint', 'event'],
    deliveries.map((delivery) => [
      delivery.id,
      delivery.status,
      String(delivery.attempts),
      delivery.lastError ?? (delivery.lastStatus === null ? '-' : `HTTP ${delivery.lastStatus}`),
      delivery.status === 'pending' ? when(delivery.nextAttemptAt) : '-',
      when(delivery.createdAt),
      delivery.endpoint,
      `${delivery.type}${delivery.dispute ? ` ${delivery.dispute}` : ''}`,
    ]),
  );
}

export function registerWebhookCommands(program: Command, io: CliIo): void {
  const webhook = program.command('webhook').description('webhook endpoints and deliveries, for on-call');

  webhook
    .command('endpoints')
    .description("list an organisation's webhook endpoints (never their signing secrets)")
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--json', 'print JSON (webhook_endpoint objects, as the API shows them)')
    .action(async (options: { org: string; mode: Mode; json?: boolean }) => {
      const rows = await io.withDatabase(async (db) =>
        allEndpoints(db, await callerFor(db, options.org, options.mode)),
      );
      io.print(
        Boolean(options.json),
        rows.map((row) => webhookEndpointObject(row)),
        rows.length === 0
          ? `no webhook endpoints for ${options.org} (${options.mode})`
          : table(
              ['id', 'status', 'version', 'events', 'url'],
              rows.map((row) => [row.id, endpointStatus(row), row.apiVersion, row.events.join(','), row.url]),
            ),
      );
    });

  webhook
    .command('deliveries')
    .description('list recent deliveries, newest first, with their attempts and last answer')
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--endpoint <we_id>', 'only deliveries to this endpoint')
    .addOption(
      new Option('--status <status>', 'only deliveries in this status').choices([...deliveryStatuses]),
    )
    .addOption(limitOption(20))
    .option('--json', 'print JSON')
    .action(
      async (options: {
        org: string;
        mode: Mode;
        endpoint?: string;
        status?: DeliveryStatus;
        limit: number;
        json?: boolean;
      }) => {
        const deliveries = await io.withDatabase(async (db) =>
          listDeliveries(db, await callerFor(db, options.org, options.mode), {
            limit: options.limit,
            ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
            ...(options.status !== undefined && { status: options.status }),
          }),
        );
        io.print(
          Boolean(options.json),
          deliveries.map(deliveryJson),
          deliveries.length === 0
            ? `no webhook deliveries for ${options.org} (${options.mode})`
            : deliveriesTable(deliveries),
        );
      },
    );

  webhook
    .command('redeliver')
    .description(
      'send one delivery again (--delivery), or every delivery that ended failed since a moment (--failed-since)',
    )
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--delivery <wh_id>', 'the delivery to send again, whatever its status')
    .option('--failed-since <time>', 'ISO 8601 (no zone means UTC) or Unix seconds')
    .option('--endpoint <we_id>', 'with --failed-since: only deliveries to this endpoint')
    .option('--json', 'print JSON')
    .action(
      async (options: {
        org: string;
        mode: Mode;
        delivery?: string;
        failedSince?: string;
        endpoint?: string;
        json?: boolean;
      }) => {
        if ((options.delivery === undefined) === (options.failedSince === undefined)) {
          throw new Error('give either --delivery or --failed-since');
        }
        if (options.delivery !== undefined && options.endpoint !== undefined) {
          throw new Error('--endpoint goes with --failed-since');
        }
        const since = options.failedSince === undefined ? undefined : parseTimestamp(options.failedSince);
        if (since === null) throw new Error('--failed-since must be an ISO 8601 time or Unix seconds');
        const selection =
          options.delivery !== undefined
            ? { delivery: options.delivery }
            : {
                failedSince: since as Date,
                ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
              };
        const result = await io.withDatabase(async (db) =>
          redeliverDeliveries(db, await callerFor(db, options.org, options.mode), selection),
        );
        const count = result.redelivered.length;
        io.print(
          Boolean(options.json),
          {
            redelivered: result.redelivered.map(deliveryJson),
            skipped: result.skipped.map(({ delivery, reason }) => ({ id: delivery.id, reason })),
          },
          [
            count === 0
              ? 'no delivery restarted'
              : `${count} deliver${count === 1 ? 'y' : 'ies'} restarted; the webhook worker sends ${count === 1 ? 'it' : 'them'} now`,
            ...(count > 0 ? [deliveriesTable(result.redelivered)] : []),
            ...result.skipped.map(({ delivery, reason }) => `skipped ${delivery.id}: ${reason}`),
          ].join('\n'),
        );
      },
    );
}
