import { sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { disputes } from '../../db/schema/index.js';
import { defaultTemplatesFor } from '../../domain/default-templates.js';
import { disputeFacts, evaluateRules } from '../../domain/rules.js';
import { type DisputeState, decide } from '../../domain/states.js';
import { latestVersion } from '../../domain/versions.js';
import type { Logger } from '../../logger.js';
import { type DisputeRow, findTemplates, type TemplateRow } from '../disputes/records.js';
import { loadTenantRules, type TenantRules, tenantKey } from './rules.js';

/**
 * The one place where new disputes meet the organisation's workflow rules (docs/api.md, "States and actions"): mirrored
 * pages, disputes created through the API and generated test disputes all arrive here. It runs inside
 * the transaction that inserted the disputes and before their `dispute.created` events are written, so
 * an event carries the state and template the rules chose.
 *
 * - State rules move a dispute only where accepting it would proceed by the state table (a new dispute:
 *   needs_response or warning_needs_response). One that arrives won, lost or under review keeps its
 *   processor's state: the processor has moved on, and nothing here can change that.
 * - A template comes from the first matching template rule, else from the organisation's default for the
 *   dispute's network reason code, else for its reason, in that mode (domain/default-templates.ts), and
 *   only to a dispute that names none. A rule or default naming a
 *   template deleted since is skipped with a warning: a missing template must not stop disputes arriving.
 *   Fields are not checked here; they are when the dispute is submitted.
 * - `force` (a create with force=true) bypasses review and accept rules, not templates.
 *
 * Cost: one query for the rules and defaults of every tenant involved (a mirrored page is up to a hundred
 * disputes of one tenant), one for the templates they name when they name any, and one UPDATE for the
 * disputes the rules changed. A tenant with neither rules nor defaults costs the first query only.
 */

export interface Arrival {
  dispute: DisputeRow;
  template: TemplateRow | null;
}

export interface ArrivalOptions {
  /** Bypass review and accept rules (create with force=true). */
  force?: boolean;
  now?: Date;
  logger?: Logger;
}

export async function applyArrivalRules(
  tx: Tx,
  arrivals: readonly Arrival[],
  options: ArrivalOptions = {},
): Promise<Arrival[]> {
  if (arrivals.length === 0) return [];
  const now = options.now ?? new Date();
  const byTenant = await loadTenantRules(
    tx,
    arrivals.map(({ dispute }) => dispute),
    options.logger,
  );
  const hasWork = [...byTenant.values()].some(
    (tenant) => tenant.rules.length > 0 || Object.keys(tenant.defaultTemplates).length > 0,
  );
  if (!hasWork) return [...arrivals];

  const available = await namedTemplates(tx, byTenant);
  const warned = new Set<string>();
  const usable = (tenant: string, id: string, org: string, from: string) => {
    const template = available.get(`${tenant}/${id}`);
    if (!template && !warned.has(`${tenant}/${id}`)) {
      warned.add(`${tenant}/${id}`);
      options.logger?.warn({ org, template: id, from }, 'workflow template does not exist; not attached');
    }
    return template ?? null;
  };

  const changes = new Map<string, { state?: DisputeState; template?: string }>();
  const attached = new Map<string, TemplateRow>();
  for (const { dispute } of arrivals) {
    const key = tenantKey(dispute);
    const tenant = byTenant.get(key);
    if (!tenant) continue;
    const usableRules = tenant.rules.filter(
      (rule) => rule.template === null || usable(key, rule.template, dispute.orgId, `rule ${rule.order}`),
    );
    const outcome = evaluateRules(usableRules, disputeFacts(dispute), now, 'arrival');
    const change: { state?: DisputeState; template?: string } = {};
    if (outcome.state && !options.force && acceptWouldProceed(dispute.state)) change.state = outcome.state;
    if (dispute.template === null) {
      // The network code's default, else the reason's: the first whose template still exists.
      const chosen =
        outcome.template ??
        defaultTemplatesFor(tenant.defaultTemplates, dispute).find((fallback) =>
          usable(key, fallback.template, dispute.orgId, `default for ${fallback.key}`),
        )?.template;
      if (chosen) {
        change.template = chosen;
        attached.set(dispute.uid, available.get(`${key}/${chosen}`) as TemplateRow);
      }
    }
    if (change.state || change.template) changes.set(dispute.uid, change);
  }
  if (changes.size === 0) return [...arrivals];

  const changed = new Map((await writeChanges(tx, changes)).map((row) => [row.uid, row]));
  return arrivals.map(({ dispute, template }) => ({
    dispute: changed.get(dispute.uid) ?? dispute,
    template: attached.get(dispute.uid) ?? template,
  }));
}

/** The state table's answer, not a list of states here: rules may do what accepting would. */
function acceptWouldProceed(state: string): boolean {
  return (
    decide(state as DisputeState, 'accept', { force: false, version: latestVersion }).outcome === 'proceed'
  );
}

/** Every template the tenants' template rules and defaults name, by `tenant/id`, in one query. */
async function namedTemplates(tx: Tx, byTenant: Map<string, TenantRules>): Promise<Map<string, TemplateRow>> {
  const keys: { orgId: string; livemode: boolean; id: string }[] = [];
  for (const { tenant, rules, defaultTemplates } of byTenant.values()) {
    const ids = new Set([
      ...rules.flatMap((rule) => (rule.template === null ? [] : [rule.template])),
      ...Object.values(defaultTemplates),
    ]);
    for (const id of ids) keys.push({ ...tenant, id });
  }
  const rows = await findTemplates(tx, keys);
  return new Map(rows.map((row) => [`${tenantKey(row)}/${row.id}`, row]));
}

/**
 * One UPDATE for every dispute the rules changed; the changes travel as one JSON parameter. `updated`
 * stays the moment of arrival: the rules' choice is part of the dispute's arrival, not a later change.
 */
async function writeChanges(
  tx: Tx,
  changes: Map<string, { state?: DisputeState; template?: string }>,
): Promise<DisputeRow[]> {
  const byUid = sql.param(JSON.stringify(Object.fromEntries(changes)));
  return tx
    .update(disputes)
    .set({
      state: sql`coalesce(${byUid}::jsonb -> ${disputes.uid}::text ->> 'state', ${disputes.state})`,
      template: sql`coalesce(${byUid}::jsonb -> ${disputes.uid}::text ->> 'template', ${disputes.template})`,
    })
    .where(anyOf(disputes.uid, [...changes.keys()], 'uuid'))
    .returning();
}
