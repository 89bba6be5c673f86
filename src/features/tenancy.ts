import { and, eq } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { ApiVersion } from '../domain/versions.js';

/**
 * Who a use case acts for: the tenant every read and write of client data is scoped to, and the caller a
 * request or a CLI command speaks as. Every feature, the API and the CLI share these, so they live below
 * the feature folders.
 */

/** A tenant: every read and write of client data is scoped to one organisation in one mode. */
export interface Tenant {
  orgId: string;
  livemode: boolean;
}

/** Who is calling: one organisation in one mode, with the organisation's settings requests need. */
export interface Principal extends Tenant {
  apiVersion: ApiVersion;
  queueLeadMinutes: number;
}

/** Who asks, and under which API version (the request's header or the organisation's default). */
export interface Caller extends Principal {
  version: ApiVersion;
}

export const ownedBy = <T extends { orgId: AnyPgColumn; livemode: AnyPgColumn }>(table: T, tenant: Tenant) =>
  and(eq(table.orgId, tenant.orgId), eq(table.livemode, tenant.livemode));
