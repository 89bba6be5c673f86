import { asc, eq, sql } from 'drizzle-orm';
import { type Db, rowsOf, type Tx } from '../../db/client.js';
import { organisations, rules } from '../../db/schema/index.js';
import {
  type DisputeFacts,
  evaluateRules,
  type Rule,
  type RuleAction,
  RuleFileError,
  readRuleFile,
  ruleActions,
  ruleConditions,
} from '../../domain/rules.js';
import type { Logger } from '../../logger.js';
import type { Mode } from '../organisations/api-keys.js';
import { findMissingTemplates } from '../templates/templates.js';
import { ownedBy, type Tenant } from '../tenancy.js';

/**
 * An organisation's workflow rules, per mode: replaced whole from a rule file (`rules set`), listed, and
 * loaded for the disputes they apply to (features/rules/arrival.ts for new disputes, features/disputes/commands.ts
 * for updates and submits).
 */

export interface RuleSetInput {
  org: string;
  mode: Mode;
  /** The rule file's text (JSON). */
  contents: string;
}

/**
 * Replaces the tenant's rules with the file's, in one transaction: on any problem (a bad rule, a template
 * that does not exist in that organisation and mode) nothing changes and the previous rules stay in force.
 * The organisation row is locked first, so two sets of one organisation apply one after the other. The
 * lock is `for no key update`, which leaves the organisation's key to the foreign keys of its other rows:
 * disputes, events and documents of the organisation are still inserted while rules are set.
 */
export async function setRules(db: Db, input: RuleSetInput): Promise<Rule[]> {
  const parsed = readRuleFile(input.contents);
  const tenant = { orgId: input.org, livemode: input.mode === 'live' };
  return db.transaction(async (tx) => {
    const [organisation] = await tx
      .select({ id: organisations.id })
      .from(organisations)
      .where(eq(organisations.id, input.org))
      .for('no key update');
    if (!organisation) throw new Error(`no organisation ${input.org}`);

    const absent = await findMissingTemplates(
      tx,
      tenant,
      parsed.map((rule) => rule.template),
    );
    const missing = parsed.filter((rule) => rule.template !== null && absent.has(rule.template));
    if (missing.length > 0) {
      throw new RuleFileError(
        missing.map(
          (rule) =>
            `${rule.label}: template ${JSON.stringify(rule.template)} does not exist in ${input.mode} mode`,
        ),
      );
    }

    await tx.delete(rules).where(ownedBy(rules, tenant));
    if (parsed.length > 0) {
      await tx.insert(rules).values(
        parsed.map((rule) => ({
          ...tenant,
          position: rule.order,
          name: rule.name,
          conditions: rule.when,
          action: rule.action,
          template: rule.template,
        })),
      );
    }
    return parsed.map(({ label: _label, ...rule }) => rule);
  });
}

export async function listRules(db: Db, input: { org: string; mode: Mode }): Promise<Rule[]> {
  const [organisation] = await db
    .select({ id: organisations.id })
    .from(organisations)
    .where(eq(organisations.id, input.org));
  if (!organisation) throw new Error(`no organisation ${input.org}`);
  const rows = await db
    .select()
    .from(rules)
    .where(ownedBy(rules, { orgId: input.org, livemode: input.mode === 'live' }))
    .orderBy(asc(rules.position));
  return rows.flatMap((row) => toRule(row) ?? []);
}

/** A tenant's rules and its organisation's default templates, as new disputes need them. */
export interface TenantRules {
  tenant: Tenant;
  rules: Rule[];
  /** reason or `<network>:<code>` -> template id, for this tenant's mode (domain/default-templates.ts). */
  defaultTemplates: Record<string, string>;
}

export const tenantKey = (tenant: Tenant) => `${tenant.orgId}/${tenant.livemode}`;

/**
 * The rules and default templates of every tenant given, in one query whatever their number (a mirrored
 * page is one tenant; the statement's text is the same for any number, so it is planned once).
 */
export async function loadTenantRules(
  tx: Db | Tx,
  tenants: readonly Tenant[],
  logger?: Logger,
): Promise<Map<string, TenantRules>> {
  const unique = [...new Map(tenants.map((tenant) => [tenantKey(tenant), tenant])).values()];
  const result = await tx.execute<{
    org_id: string;
    livemode: boolean;
    default_templates: Record<string, Record<string, string>> | null;
    rules: StoredRule[] | null;
  }>(sql`
    select tenant.org_id, tenant.livemode, ${organisations.defaultTemplates} as default_templates,
      (select jsonb_agg(jsonb_build_object('position', r.position, 'name', r.name,
          'conditions', r.conditions, 'action', r.action, 'template', r.template) order by r.position)
        from ${rules} r where r.org_id = tenant.org_id and r.livemode = tenant.livemode) as rules
    from unnest(${sql.param(unique.map((tenant) => tenant.orgId))}::text[],
      ${sql.param(unique.map((tenant) => String(tenant.livemode)))}::text[]::boolean[]) as tenant(org_id, livemode)
    join ${organisations} on ${organisations.id} = tenant.org_id`);
  const rows = rowsOf<{
    org_id: string;
    livemode: boolean;
    default_templates: Record<string, Record<string, string>> | null;
    rules: StoredRule[] | null;
  }>(result);
  const loaded = new Map<string, TenantRules>();
  for (const row of rows) {
    const mode = row.livemode ? 'live' : 'test';
    const tenant = { orgId: row.org_id, livemode: row.livemode };
    loaded.set(tenantKey(tenant), {
      tenant,
      rules: (row.rules ?? []).flatMap((stored) => toRule(stored, logger, row.org_id) ?? []),
      defaultTemplates: row.default_templates?.[mode] ?? {},
    });
  }
  return loaded;
}

/**
 * Whether the tenant's rules accept this dispute now, on an update or submit (the 2020-02-28 gate): the
 * first state rule that matches is an accept rule. The caller checks the gate, `force` and the state.
 */
export async function acceptedByRules(
  tx: Tx,
  tenant: Tenant,
  facts: DisputeFacts,
  now: Date,
): Promise<boolean> {
  const rows = await tx.select().from(rules).where(ownedBy(rules, tenant)).orderBy(asc(rules.position));
  if (rows.length === 0) return false;
  const loaded = rows.flatMap((row) => toRule(row) ?? []);
  return evaluateRules(loaded, facts, now, 'change').state === 'accepted';
}

interface StoredRule {
  position: number;
  name: string | null;
  conditions: unknown;
  action: string;
  template: string | null;
}

/**
 * A stored rule, checked again as it is read (rows outlive deploys). One that no longer reads is left out
 * with a warning rather than failing the disputes it would have applied to; `rules set` refuses it.
 */
function toRule(row: StoredRule, logger?: Logger, org?: string): Rule | null {
  const conditions = ruleConditions.safeParse(row.conditions);
  const action = row.action as RuleAction;
  if (!conditions.success || !ruleActions.includes(action)) {
    logger?.warn({ org, order: row.position, name: row.name }, 'stored workflow rule is not valid; skipped');
    return null;
  }
  return {
    order: row.position,
    name: row.name,
    when: conditions.data,
    action,
    template: row.template,
  };
}
