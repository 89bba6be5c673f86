import { randomBytes } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type PageQuery, planPage } from '../../db/paging.js';
import { events, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.js';
import { ApiError, notFound } from '../../domain/errors.js';
import type { ApiVersion } from '../../domain/versions.js';
import { idPrefixes, newId } from '../../ids.js';
import type { SecretBox } from '../../secrets.js';
import { sealedAt } from '../secrets/sealed-columns.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import { type LoggedEvent, retrieveEvent } from './event-log.js';
import { notifyEvents } from './events.js';
import type { CreateEndpointInput, UpdateEndpointInput } from './inputs.js';

/** Webhook endpoints CRUD and test events (docs/api.md, "Webhooks"): each belongs to one organisation and mode. */

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

export interface EndpointDeps {
  db: Db;
  /** Seals the signing secret: it is readable only to sign, and shown to the client once. */
  secrets: SecretBox;
  /** WEBHOOK_ENDPOINTS_MAX: the endpoints one organisation may have in each mode (docs/api.md, "Limits"). */
  webhookEndpointsMax: number;
}

/** `whsec_` and 24 random bytes in base64, the Standard Webhooks form the `standardwebhooks` package reads. */
function newSigningSecret(): string {
  return `${idPrefixes.webhookSecret}_${randomBytes(24).toString('base64')}`;
}

/**
 * The new endpoint and its secret in clear: the only time this secret leaves the service. Refused past
 * WEBHOOK_ENDPOINTS_MAX: every event is delivered to each endpoint, so their number is what one event costs.
 */
export async function createEndpoint(
  deps: EndpointDeps,
  tenant: Tenant & { apiVersion: ApiVersion },
  input: CreateEndpointInput,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const secret = newSigningSecret();
  return deps.db.transaction(async (tx) => {
    // Creates of one tenant take turns, so two at once cannot both pass the count.
    const key = `webhook-endpoints:${tenant.orgId}:${tenant.livemode}`;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
    const [held] = await tx
      .select({ count: count() })
      .from(webhookEndpoints)
      .where(ownedBy(webhookEndpoints, tenant));
    if ((held?.count ?? 0) >= deps.webhookEndpointsMax) {
      throw new ApiError(
        'invalid_request',
        `An organisation may have at most ${deps.webhookEndpointsMax} webhook endpoints in ${tenant.livemode ? 'live' : 'test'} mode (WEBHOOK_ENDPOINTS_MAX); delete one before creating another.`,
      );
    }
    const id = newId('webhookEndpoint');
    const [endpoint] = await tx
      .insert(webhookEndpoints)
      .values({
        id,
        orgId: tenant.orgId,
        livemode: tenant.livemode,
        url: input.url,
        events: input.events,
        apiVersion: input.api_version ?? tenant.apiVersion,
        secret: deps.secrets.seal(secret, sealedAt('webhookSecret', id)),
      })
      .returning();
    if (!endpoint) throw new Error('insert returned no row');
    return { endpoint, secret };
  });
}

export async function retrieveEndpoint(db: Db, tenant: Tenant, id: string): Promise<EndpointRow> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(ownedBy(webhookEndpoints, tenant), eq(webhookEndpoints.id, id)));
  if (!row) throw notFound.webhookEndpoint(id);
  return row;
}

export async function listEndpoints(db: Db, tenant: Tenant, query: PageQuery) {
  const scope = ownedBy(webhookEndpoints, tenant);
  const page = await planPage(db, webhookEndpoints, scope, query);
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(scope, page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  return page.finish(rows);
}

/**
 * Changes only what the client sent. Enabling a disabled endpoint starts afresh: its disabled reason and
 * its run of failures are cleared (an endpoint that stayed enabled keeps its run).
 */
export async function updateEndpoint(
  db: Db,
  tenant: Tenant,
  id: string,
  input: UpdateEndpointInput,
): Promise<EndpointRow> {
  const [updated] = await db
    .update(webhookEndpoints)
    .set({
      ...(input.url !== undefined && { url: input.url }),
      ...(input.events !== undefined && { events: input.events }),
      ...(input.api_version !== undefined && { apiVersion: input.api_version }),
      ...(input.enabled === false && { enabled: false }),
      ...(input.enabled === true && {
        enabled: true,
        disabledReason: null,
        failingSince: sql`case when ${webhookEndpoints.enabled} then ${webhookEndpoints.failingSince} end`,
      }),
      updatedAt: new Date(),
    })
    .where(and(ownedBy(webhookEndpoints, tenant), eq(webhookEndpoints.id, id)))
    .returning();
  if (!updated) throw notFound.webhookEndpoint(id);
  return updated;
}

/** How long the secret a rotation replaces keeps signing beside the new one (docs/api.md, "Signing"). */
const rotationOverlapMs = 24 * 3_600_000;

/**
 * A new signing secret, returned in clear this once. The one it replaces keeps signing beside it for 24
 * hours, so a receiver can switch without a delivery it cannot verify; rotating again within them ends
 * the older one at once. The replaced secret is opened and sealed again as the previous one, not copied.
 */
export async function rotateSecret(
  deps: Pick<EndpointDeps, 'db' | 'secrets'>,
  tenant: Tenant,
  id: string,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const secret = newSigningSecret();
  return deps.db.transaction(async (tx) => {
    const [current] = await tx
      .select({ secret: webhookEndpoints.secret })
      .from(webhookEndpoints)
      .where(and(ownedBy(webhookEndpoints, tenant), eq(webhookEndpoints.id, id)))
      .for('update');
    if (!current) throw notFound.webhookEndpoint(id);
    const at = new Date();
    const [endpoint] = await tx
      .update(webhookEndpoints)
      .set({
        secret: deps.secrets.seal(secret, sealedAt('webhookSecret', id)),
        ...previousSecret(deps.secrets, id, current.secret, at),
        updatedAt: at,
      })
      .where(eq(webhookEndpoints.id, id))
      .returning();
    if (!endpoint) throw new Error('update returned no row');
    return { endpoint, secret };
  });
}

/** The replaced secret and the end of its overlap; none for a secret this process cannot read (it signs nothing). */
function previousSecret(box: SecretBox, id: string, sealed: string, at: Date) {
  let plain: string;
  try {
    plain = box.open(sealed, sealedAt('webhookSecret', id));
  } catch {
    return { previousSecret: null, previousSecretExpiresAt: null };
  }
  return {
    previousSecret: box.seal(plain, sealedAt('webhookPreviousSecret', id)),
    previousSecretExpiresAt: new Date(at.getTime() + rotationOverlapMs),
  };
}

/** Its deliveries and their attempt logs go with it; its events stay in the event log. */
export async function deleteEndpoint(db: Db, tenant: Tenant, id: string): Promise<EndpointRow> {
  const [deleted] = await db
    .delete(webhookEndpoints)
    .where(and(ownedBy(webhookEndpoints, tenant), eq(webhookEndpoints.id, id)))
    .returning();
  if (!deleted) throw notFound.webhookEndpoint(id);
  return deleted;
}

/**
 * Records a `test` event with its one delivery, to this endpoint only, and wakes the relay, which hands
 * the delivery to the webhook queue. A disabled endpoint gets it too, so it can be checked before it is
 * enabled again. Returns the event with its delivery as recorded.
 */
export async function recordTestEvent(db: Db, tenant: Tenant, endpointId: string): Promise<LoggedEvent> {
  return db.transaction(async (tx) => {
    const [endpoint] = await tx
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(and(ownedBy(webhookEndpoints, tenant), eq(webhookEndpoints.id, endpointId)));
    if (!endpoint) throw notFound.webhookEndpoint(endpointId);
    const eventId = newId('event');
    const at = new Date();
    const owner = { orgId: tenant.orgId, livemode: tenant.livemode };
    await tx.insert(events).values({ id: eventId, ...owner, type: 'test', data: {}, createdAt: at });
    await tx.insert(webhookDeliveries).values({
      id: newId('webhookDelivery'),
      ...owner,
      endpointId,
      eventId,
      nextAttemptAt: at,
    });
    await notifyEvents(tx);
    // Read back before the commit wakes the relay: the delivery as recorded, not however far it got since.
    return retrieveEvent(tx, tenant, eventId);
  });
}
