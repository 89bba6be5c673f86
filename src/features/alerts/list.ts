import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { type PageQuery, planPage } from '../../db/paging.js';
import { alerts } from '../../db/schema/index.js';
import type { AlertOutcome } from '../../domain/alerts.js';
import { notFound } from '../../domain/errors.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import type { AlertRow } from './upsert.js';

/** Reading alerts (docs/api.md, "Alerts"): a tenant's list, newest first, and one alert by id. */

/** Every list is "any of" its values; every filter given must hold. Absent or empty: no condition. */
export interface AlertFilters {
  charges?: readonly string[];
  processors?: readonly string[];
  outcomes?: readonly AlertOutcome[];
}

function anyOf(column: AnyPgColumn, values: readonly string[] | undefined): SQL | undefined {
  if (!values?.length) return undefined;
  return values.length === 1 ? eq(column, values[0]) : inArray(column, [...values]);
}

/**
 * A page of the tenant's alerts, newest `created` first (the row's, as for every list: docs/api.md,
 * "Paging"), read from the list index (org, mode, created, id); `charge` has an index of its own.
 */
export async function listAlerts(
  db: Db,
  tenant: Tenant,
  query: PageQuery & { filters?: AlertFilters },
): Promise<{ data: AlertRow[]; hasMore: boolean }> {
  const scope = ownedBy(alerts, tenant);
  const page = await planPage(db, alerts, scope, query);
  const { charges, processors, outcomes } = query.filters ?? {};
  const rows = await db
    .select()
    .from(alerts)
    .where(
      and(
        scope,
        page.after,
        anyOf(alerts.charge, charges),
        anyOf(alerts.processor, processors),
        anyOf(alerts.outcome, outcomes),
      ),
    )
    .orderBy(...page.orderBy)
    .limit(page.limit);
  return page.finish(rows);
}

/** One alert of the tenant; another tenant's id is not found, as an unknown one. */
export async function retrieveAlert(db: Db, tenant: Tenant, id: string): Promise<AlertRow> {
  const [row] = await db
    .select()
    .from(alerts)
    .where(and(ownedBy(alerts, tenant), eq(alerts.id, id)));
  if (!row) throw notFound.alert(id);
  return row;
}
