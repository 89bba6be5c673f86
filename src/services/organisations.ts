import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client.js';
import { apiKeys, organisations, templates } from '../db/schema/index.js';
import { apiVersions, isApiVersion, latestVersion } from '../domain/versions.js';
import { reasons } from '../domain/vocabulary.js';
import { newId } from '../ids.js';
import {
  authInvalidationChannel,
  generateApiKey,
  hashApiKey,
  keyInvalidation,
  type Mode,
  orgInvalidation,
} from './api-keys.js';
import { invalidateLocally } from './authenticate.js';
import { ownedBy } from './dispute-records.js';

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

/**
 * Replaces the organisation's key for one mode. The old key stops working at once: this process and
 * every other one listening on the invalidation channel drop it from their caches when this commits.
 */
export async function rotateApiKey(db: Db, input: { org: string; mode: Mode }): Promise<string | null> {
  const key = generateApiKey(input.mode);
  const revoked = await db.transaction(async (tx) => {
    const [organisation] = await tx
      .select({ id: organisations.id })
      .from(organisations)
      .where(eq(organisations.id, input.org))
      .for('update');
    if (!organisation) return null;
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(apiKeys.orgId, input.org),
          eq(apiKeys.livemode, input.mode === 'live'),
          isNull(apiKeys.revokedAt),
        ),
      )
      .returning({ hash: apiKeys.hash });
    await tx.insert(apiKeys).values(keyRow(input.org, input.mode, key));
    // Delivered to every listening process when the transaction commits, not before.
    for (const { hash } of rows) {
      await tx.execute(sql`select pg_notify(${authInvalidationChannel}, ${keyInvalidation(hash)})`);
    }
    return rows;
  });
  if (revoked === null) return null;
  for (const { hash } of revoked) invalidateLocally(keyInvalidation(hash));
  return key;
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
 * - `default_templates`: per mode, reason -> template attached to new disputes that no rule gave one.
 */
export interface OrganisationSettings {
  org: string;
  name: string;
  api_version: string;
  queue_lead_hours: number;
  due_soon_hours: number | null;
  default_templates: { test: Record<string, string>; live: Record<string, string> };
}

const show = (value: unknown) => JSON.stringify(value) ?? String(value);

/** Whole hours, as numbers or as the text a command line gives. */
function wholeHours(what: string, min: number, max: number, orDefault = false) {
  const message = (issue: { input?: unknown }) =>
    `${what} must be a whole number of hours from ${min} to ${max}${orDefault ? ', or "default"' : ''}, not ${show(issue.input)}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\s*\d{1,9}\s*$/.test(value) ? Number(value) : value),
    z
      .number({ error: message })
      .int({ error: message })
      .min(min, { error: message })
      .max(max, { error: message }),
  );
}

/** `<reason>=<templateId>`; an empty id removes the reason's default. */
const defaultTemplate = z.string().transform((value, context) => {
  const at = value.indexOf('=');
  const reason = value.slice(0, at);
  if (at < 0) {
    context.addIssue({
      code: 'custom',
      message: `default template must be <reason>=<templateId>, not ${show(value)}`,
    });
    return z.NEVER;
  }
  if (!(reasons as readonly string[]).includes(reason)) {
    context.addIssue({
      code: 'custom',
      message: `default template ${show(value)}: ${show(reason)} is not a dispute reason (${reasons.join(', ')})`,
    });
    return z.NEVER;
  }
  return { reason, template: value.slice(at + 1) || null };
});

export const settingsChange = z
  .object({
    apiVersion: z
      .string()
      .refine(isApiVersion, {
        error: (issue) => `api version must be one of ${apiVersions.join(', ')}, not ${show(issue.input)}`,
      })
      .optional(),
    /** At most 30 days: past that a queued dispute would go out as soon as it is queued anyway. */
    queueLeadHours: wholeHours('queue lead', 0, 720).optional(),
    /** `default` (or null) returns to the DUE_SOON_HOURS setting. */
    dueSoonHours: z
      .union([
        z.literal('default').transform(() => null),
        z.null(),
        wholeHours('due-soon window', 1, 720, true),
      ])
      .optional(),
    mode: z.enum(['test', 'live'], { error: 'mode must be test or live' }).optional(),
    defaultTemplates: z.array(defaultTemplate).optional(),
  })
  .refine((change) => !change.defaultTemplates?.length || change.mode !== undefined, {
    error: 'default templates belong to a mode: give --mode test or --mode live',
  });
export type SettingsChange = z.input<typeof settingsChange>;

export async function getOrganisationSettings(db: Db, org: string): Promise<OrganisationSettings> {
  const [row] = await db.select().from(organisations).where(eq(organisations.id, org));
  if (!row) throw new Error(`no organisation ${org}`);
  return describeSettings(row);
}

/**
 * Applies a change and returns the settings after it. Checked whole before anything is written: a bad
 * value, or a default template that does not exist in that organisation and mode, changes nothing.
 * API keys carry the version and queue lead (services/authenticate.ts caches them), so a change of either
 * drops the organisation's cached keys in every process, as a key rotation does: the next request sees it.
 */
export async function updateOrganisationSettings(
  db: Db,
  org: string,
  input: SettingsChange,
): Promise<OrganisationSettings> {
  const parsed = settingsChange.safeParse(input);
  if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid settings');
  const change = parsed.data;
  const updated = await db.transaction(async (tx) => {
    const [current] = await tx.select().from(organisations).where(eq(organisations.id, org)).for('update');
    if (!current) throw new Error(`no organisation ${org}`);
    const values: Partial<typeof organisations.$inferInsert> = {};
    if (change.apiVersion !== undefined) values.apiVersion = change.apiVersion;
    if (change.queueLeadHours !== undefined) values.queueLeadMinutes = change.queueLeadHours * 60;
    if (change.dueSoonHours !== undefined) values.dueSoonHours = change.dueSoonHours;
    if (change.mode !== undefined && change.defaultTemplates?.length) {
      const mode = change.mode;
      const named = change.defaultTemplates.flatMap(({ template }) => (template === null ? [] : [template]));
      const existing = new Set(
        named.length === 0
          ? []
          : (
              await tx
                .select({ id: templates.id })
                .from(templates)
                .where(
                  and(
                    ownedBy(templates, { orgId: org, livemode: mode === 'live' }),
                    inArray(templates.id, named),
                  ),
                )
            ).map((row) => row.id),
      );
      const forMode = { ...current.defaultTemplates[mode] };
      for (const { reason, template } of change.defaultTemplates) {
        if (template !== null && !existing.has(template)) {
          throw new Error(
            `default template for ${reason}: template ${show(template)} does not exist in ${mode} mode`,
          );
        }
        if (template === null) delete forMode[reason];
        else forMode[reason] = template;
      }
      values.defaultTemplates = { ...current.defaultTemplates, [mode]: forMode };
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
  };
}
