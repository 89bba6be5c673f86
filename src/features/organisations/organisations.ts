import { and, arrayContains, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys, organisations } from '../../db/schema/index.js';
import { defaultsProblem } from '../../domain/default-templates.js';
import {
  applyAlertRefundChanges,
  parseSettingsChange,
  type SettingsChange,
  wholeHours,
} from '../../domain/organisation-settings.js';
import { show } from '../../domain/values.js';
import { latestVersion } from '../../domain/versions.js';
import { newId } from '../../ids.js';
import { findMissingTemplates } from '../templates/templates.js';
import {
  authInvalidationChannel,
  generateApiKey,
  hashApiKey,
  keyInvalidation,
  type Mode,
  orgInvalidation,
} from './api-keys.js';
import { invalidateLocally } from './authenticate.js';

export interface CreatedOrganisation {
  org: string;
  name: string;
  test_key: string;
  live_key: string;
}

/** Creates an organisation with its test and live keys; the keys are returned here and never again. */
export async function createOrganisation(db: Db, input: { name: string }): Promise<CreatedOrganisation> {
  const org = newId('organisation');
  const testKey = generateApiKey('test');
  const liveKey = generateApiKey('live');
  await db.transaction(async (tx) => {
    await tx.insert(organisations).values({ id: org, name: input.name, apiVersion: latestVersion });
    await tx.insert(apiKeys).values([keyRow(org, 'test', testKey), keyRow(org, 'live', liveKey)]);
  });
  return { org, name: input.name, test_key: testKey, live_key: liveKey };
}

/** How long a replaced key keeps working beside the new one (`key rotate --grace-hours`): up to 30 days. */
const graceHours = wholeHours('grace', 0, 720);

export interface RotatedKey {
  key: string;
  /** When the replaced key stops working; null when it stopped at once (no grace). */
  previousUntil: Date | null;
}

/**
 * Replaces the organisation's key for one mode. Without grace the old key stops working at once: this
 * process and every other one listening on the invalidation channel drop it from their caches when this
 * commits. With `graceHours` it keeps working that long (its `revoked_at` is then in the future), so that
 * clients can move to the new key without an outage. A key still in its grace from an earlier rotation
 * stops no later than the one replaced now: a rotation without grace stops every old key at once.
 */
export async function rotateApiKey(
  db: Db,
  input: { org: string; mode: Mode; graceHours?: number | string },
): Promise<RotatedKey | null> {
  const parsedGrace = graceHours.safeParse(input.graceHours ?? 0);
  if (!parsedGrace.success) throw new Error(parsedGrace.error.issues[0]?.message ?? 'invalid grace');
  const grace = parsedGrace.data;
  const key = generateApiKey(input.mode);
  const replaced = await db.transaction(async (tx) => {
    const [organisation] = await tx
      .select({ id: organisations.id })
      .from(organisations)
      .where(eq(organisations.id, input.org))
      .for('update');
    if (!organisation) return null;
    const until = sql`now() + make_interval(hours => ${grace}::int)`;
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`least(coalesce(${apiKeys.revokedAt}, 'infinity'::timestamptz), ${until})` })
      .where(
        and(
          eq(apiKeys.orgId, input.org),
          eq(apiKeys.livemode, input.mode === 'live'),
          or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, sql`now()`)),
        ),
      )
      .returning({ hash: apiKeys.hash, revokedAt: apiKeys.revokedAt });
    await tx.insert(apiKeys).values(keyRow(input.org, input.mode, key));
    // Delivered to every listening process when the transaction commits, not before. Keys in grace are
    // dropped too: caches read them again with the moment they stop (features/organisations/authenticate.ts).
    for (const { hash } of rows) {
      await tx.execute(sql`select pg_notify(${authInvalidationChannel}, ${keyInvalidation(hash)})`);
    }
    return rows;
  });
  if (replaced === null) return null;
  for (const { hash } of replaced) invalidateLocally(keyInvalidation(hash));
  const ends = replaced.flatMap(({ revokedAt }) => (revokedAt ? [revokedAt.getTime()] : []));
  return { key, previousUntil: grace > 0 && ends.length > 0 ? new Date(Math.max(...ends)) : null };
}

export async function listOrganisations(db: Db) {
  return db
    .select({
      org: organisations.id,
      name: organisations.name,
      api_version: organisations.apiVersion,
      created: organisations.createdAt,
    })
    .from(organisations)
    .orderBy(organisations.createdAt);
}

function keyRow(orgId: string, mode: Mode, key: string) {
  return {
    id: newId('apiKey'),
    orgId,
    livemode: mode === 'live',
    hash: hashApiKey(key),
    lastFour: key.slice(-4),
  };
}

/**
 * An organisation's settings (`org settings` in the CLI; never through the API, like rules):
 * - `api_version`: what requests without a version header use;
 * - `queue_lead_hours`: how long before `due_by` a queued dispute is submitted. A dispute's moment is fixed
 *   when it is queued, so a change applies to disputes queued afterwards (and to queued ones whose
 *   `due_by` the processor moves, which are planned again);
 * - `due_soon_hours`: when the deadline sweep sends `dispute.due_soon`; null means the DUE_SOON_HOURS
 *   setting of the deployment;
 * - `default_templates`: per mode, reason or `<network>:<code>` -> template attached to new disputes that
 *   no rule gave one (domain/default-templates.ts);
 * - `allowed_origins`: sites other than the service's own whose pages may call the API from a browser
 *   (api/middleware/origin.ts);
 * - `visa_compliance_fee`: whether a Visa compliance dispute may be answered with the network's fee
 *   acknowledged (docs/api.md, "What is sent for CE 3.0 and Visa compliance");
 * - `alert_refund_up_to`: per mode, the largest charge per currency (minor units) an actionable alert
 *   refunds on its own (docs/api.md, "Alerts").
 */
export interface OrganisationSettings {
  org: string;
  name: string;
  api_version: string;
  queue_lead_hours: number;
  due_soon_hours: number | null;
  default_templates: { test: Record<string, string>; live: Record<string, string> };
  allowed_origins: string[];
  visa_compliance_fee: 'accept' | 'refuse';
  alert_refund_up_to: { test: Record<string, number>; live: Record<string, number> };
}

export async function getOrganisationSettings(db: Db, org: string): Promise<OrganisationSettings> {
  const [row] = await db.select().from(organisations).where(eq(organisations.id, org));
  if (!row) throw new Error(`no organisation ${org}`);
  return describeSettings(row);
}

/**
 * Applies a change and returns the settings after it. Checked whole before anything is written: a bad
 * value, or a default template that does not exist in that organisation and mode, changes nothing.
 * API keys carry the version and queue lead (features/organisations/authenticate.ts caches them), so a change of either
 * drops the organisation's cached keys in every process, as a key rotation does: the next request sees it.
 */
export async function updateOrganisationSettings(
  db: Db,
  org: string,
  input: SettingsChange,
): Promise<OrganisationSettings> {
  const change = parseSettingsChange(input);
  const updated = await db.transaction(async (tx) => {
    // Serialises writers of the settings; `no key update` still lets the organisation's rows (disputes,
    // events, documents) be inserted meanwhile, as their foreign keys only need the key to stay.
    const [current] = await tx
      .select()
      .from(organisations)
      .where(eq(organisations.id, org))
      .for('no key update');
    if (!current) throw new Error(`no organisation ${org}`);
    const values: Partial<typeof organisations.$inferInsert> = {};
    if (change.apiVersion !== undefined) values.apiVersion = change.apiVersion;
    if (change.queueLeadHours !== undefined) values.queueLeadMinutes = change.queueLeadHours * 60;
    if (change.dueSoonHours !== undefined) values.dueSoonHours = change.dueSoonHours;
    if (change.mode !== undefined && change.defaultTemplates?.length) {
      const mode = change.mode;
      const absent = await findMissingTemplates(
        tx,
        { orgId: org, livemode: mode === 'live' },
        change.defaultTemplates.map(({ template }) => template),
      );
      const forMode = { ...current.defaultTemplates[mode] };
      for (const { key, template } of change.defaultTemplates) {
        if (template !== null && absent.has(template)) {
          throw new Error(
            `default template for ${key}: template ${show(template)} does not exist in ${mode} mode`,
          );
        }
        if (template === null) delete forMode[key];
        else forMode[key] = template;
      }
      const problem = defaultsProblem(forMode, mode);
      if (problem) throw new Error(problem);
      values.defaultTemplates = { ...current.defaultTemplates, [mode]: forMode };
    }
    if (change.allowedOrigins?.length || change.removeAllowedOrigins?.length) {
      const removed = new Set(change.removeAllowedOrigins);
      const kept = current.allowedOrigins.filter((origin) => !removed.has(origin));
      values.allowedOrigins = [...new Set([...kept, ...(change.allowedOrigins ?? [])])];
    }
    if (change.visaComplianceFee !== undefined) values.visaComplianceFee = change.visaComplianceFee;
    if (change.mode !== undefined && change.alertRefundUpTo?.length) {
      const mode = change.mode;
      const forMode = applyAlertRefundChanges(current.alertRefundUpTo[mode] ?? {}, change.alertRefundUpTo);
      values.alertRefundUpTo = { ...current.alertRefundUpTo, [mode]: forMode };
    }
    if (Object.keys(values).length === 0) return current;
    const [row] = await tx
      .update(organisations)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(organisations.id, org))
      .returning();
    if (!row) throw new Error(`organisation ${org} vanished inside its transaction`);
    if (values.apiVersion !== undefined || values.queueLeadMinutes !== undefined) {
      // Delivered to every listening process when the transaction commits, not before.
      await tx.execute(sql`select pg_notify(${authInvalidationChannel}, ${orgInvalidation(org)})`);
    }
    return row;
  });
  invalidateLocally(orgInvalidation(org));
  return describeSettings(updated);
}

function describeSettings(row: typeof organisations.$inferSelect): OrganisationSettings {
  return {
    org: row.id,
    name: row.name,
    api_version: row.apiVersion,
    queue_lead_hours: row.queueLeadMinutes / 60,
    due_soon_hours: row.dueSoonHours,
    default_templates: { test: row.defaultTemplates.test ?? {}, live: row.defaultTemplates.live ?? {} },
    allowed_origins: row.allowedOrigins,
    visa_compliance_fee: row.visaComplianceFee === 'accept' ? 'accept' : 'refuse',
    alert_refund_up_to: { test: row.alertRefundUpTo.test ?? {}, live: row.alertRefundUpTo.live ?? {} },
  };
}

/** Whether the organisation lets pages of `origin` call the API from a browser (`allowed_origins`). */
export async function allowsOrigin(db: Db, org: string, origin: string): Promise<boolean> {
  const [row] = await db
    .select({ id: organisations.id })
    .from(organisations)
    .where(and(eq(organisations.id, org), arrayContains(organisations.allowedOrigins, [origin])));
  return row !== undefined;
}
