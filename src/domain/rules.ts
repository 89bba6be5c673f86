import { z } from 'zod';
import { Failure } from './failure.js';
import { codeKey, networkReasonCodePattern, networkReasonCodeRule, networks } from './networks.js';
import { idPattern, show } from './values.js';
import { kinds, processors, reasons } from './vocabulary.js';

/**
 * Workflow rules (docs/api.md, "States and actions"; configured with `rules set`, never through the API): what they are,
 * how a rule file is read, and which rule decides a dispute. Pure: the features load the rules and the
 * dispute and apply what `evaluateRules` answers.
 *
 * Terms: a rule file is a list of rules (bare, or as `{"rules": [...]}`). A rule has an `order`, the
 * conditions of its `when` (all must hold; a list means any of its values; an empty `when` matches every
 * dispute) and one action: `review` (the dispute becomes requires_review), `accept` (accepted) or
 * `template` (attach `template` to a dispute that has none). Review and accept are state rules.
 */

export const ruleActions = ['review', 'accept', 'template'] as const;
export type RuleAction = (typeof ruleActions)[number];

/** A set of rules is read on every new dispute and every update: a few hundred is plenty for people to keep. */
export const maxRules = 200;

/**
 * Processors a rule may name: the eight of the contract, and `mock`, the test processor, whose disputes
 * carry no `processor` (their `source` says mock) but are the ones a merchant tries rules on first.
 */
export const ruleProcessors = [...processors, 'mock'] as const;

/** One value or a non-empty list of them, read as a list. */
function oneOrMore<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (value) => (Array.isArray(value) ? value : [value]),
    z.array(item).min(1, 'must not be an empty list'),
  );
}

function choice<const T extends readonly [string, ...string[]]>(values: T, noun: string) {
  return z.enum(values, {
    error: (issue) => `must be ${noun} (${values.join(', ')}), not ${show(issue.input)}`,
  });
}

const integer = (noun = 'an integer') =>
  z.number({ error: `must be ${noun}` }).int({ error: `must be ${noun}` });

const name = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

const currencyCode = z
  .string({ error: 'must be a 3-letter currency code' })
  .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
  .transform((value) => value.toLowerCase());

/** The part after `@` of an address, as it is compared: lower-case, exact (no subdomain matching). */
const emailDomain = z
  .string({ error: 'must be a domain name' })
  .regex(/^[^\s@]{1,253}$/, 'must be a domain name without "@" (example.com)')
  .transform((value) => value.toLowerCase());

const amountRange = z
  .strictObject({
    min: integer().min(0, 'must not be negative').optional(),
    max: integer().min(0, 'must not be negative').optional(),
  })
  .refine((range) => range.min !== undefined || range.max !== undefined, 'must have a min or a max')
  .refine(
    (range) => range.min === undefined || range.max === undefined || range.min <= range.max,
    'min must not be greater than max',
  );

/** A network's code as compared: upper-case (`f29` is Amex's `F29`). */
const reasonCode = z
  .string({ error: networkReasonCodeRule })
  .regex(networkReasonCodePattern, networkReasonCodeRule)
  .transform(codeKey);

/** A processor's status word as compared: lower-case (PayPal's `WAITING_FOR_SELLER_RESPONSE` as written). */
const statusWord = name(100).transform((value) => value.trim().toLowerCase());

/** The conditions of a rule (`when`), as stored in `rules.conditions`: lists, in the case they are compared in. */
export const ruleConditions = z.strictObject(
  {
    reason: oneOrMore(choice(reasons, 'a dispute reason')).optional(),
    kind: oneOrMore(choice(kinds, 'a dispute kind')).optional(),
    processor: oneOrMore(choice(ruleProcessors, 'a processor')).optional(),
    /** The connected account's name, as disputes carry it in `account` (`default` for the first one). */
    account: oneOrMore(name(255)).optional(),
    currency: oneOrMore(currencyCode).optional(),
    /** Minor units, both bounds inclusive. */
    amount: amountRange.optional(),
    /** `due_by` is at most this many hours away (or already passed). */
    due_within_hours: integer('a positive integer').positive('must be a positive integer').optional(),
    customer_email_domain: oneOrMore(emailDomain).optional(),
    network: oneOrMore(choice(networks, 'a card network')).optional(),
    network_reason_code: oneOrMore(reasonCode).optional(),
    processor_status: oneOrMore(statusWord).optional(),
  },
  { error: 'must be an object' },
);
export type RuleConditions = z.infer<typeof ruleConditions>;

const ruleEntry = z
  .strictObject(
    {
      name: name(200).optional(),
      order: integer().min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').optional(),
      when: ruleConditions,
      action: choice(ruleActions, 'an action'),
      template: z
        .string({ error: 'must be a template id' })
        .regex(idPattern, 'must be a template id (1-255 characters of A-Z a-z 0-9 _ - . :)')
        .optional(),
    },
    { error: 'must be an object' },
  )
  .superRefine((rule, context) => {
    if (rule.action === 'template' && rule.template === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['template'],
        message: 'is required when action is "template"',
      });
    }
    if (rule.action !== 'template' && rule.template !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['template'],
        message: `must not be set when action is "${rule.action}"`,
      });
    }
  });

export interface Rule {
  order: number;
  name: string | null;
  when: RuleConditions;
  action: RuleAction;
  /** The template a `template` rule attaches; null for state rules. */
  template: string | null;
}

/** A rule as read from a file, with how messages name it: `rule 3 ("High value review")`. */
export interface FileRule extends Rule {
  label: string;
}

/** A rule file that cannot be used; `problems` name the rules, in file order. */
export class RuleFileError extends Failure {
  override readonly name = 'RuleFileError';
  readonly permanent = true;
  constructor(readonly problems: string[]) {
    const shown = problems.slice(0, 5).join('; ');
    super(problems.length > 5 ? `${shown}; and ${problems.length - 5} more` : shown);
  }
}

/** How people refer to the rule at `index` of a file: `rule 3 ("High value review")`. */
export function ruleLabel(index: number, name: string | null | undefined): string {
  return name ? `rule ${index + 1} (${show(name)})` : `rule ${index + 1}`;
}

/** Reads a rule file's text. */
export function readRuleFile(text: string): FileRule[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RuleFileError([
      `rule file: not valid JSON (${error instanceof Error ? error.message : error})`,
    ]);
  }
  return parseRuleFile(value);
}

/**
 * Checks a parsed rule file and returns its rules in order. Each rule is checked on its own, so every
 * problem names the rule it is in; nothing is returned unless the whole file is good.
 */
export function parseRuleFile(value: unknown): FileRule[] {
  const entries = ruleList(value);
  if (entries.length > maxRules) {
    throw new RuleFileError([`rule file: at most ${maxRules} rules are allowed (it has ${entries.length})`]);
  }
  const problems: string[] = [];
  const rules: FileRule[] = [];
  const orders = new Map<number, number>();
  entries.forEach((entry, index) => {
    const rawName = isPlainObject(entry) && typeof entry.name === 'string' ? entry.name : null;
    const label = ruleLabel(index, rawName);
    const parsed = ruleEntry.safeParse(entry);
    if (!parsed.success) {
      problems.push(`${label}: ${describeIssue(parsed.error.issues[0], entry)}`);
      return;
    }
    const order = parsed.data.order ?? index + 1;
    const taken = orders.get(order);
    if (taken !== undefined) {
      problems.push(`${label}: order ${order} is also the order of ${rules[taken]?.label}`);
    } else {
      orders.set(order, index);
    }
    rules[index] = {
      label,
      order,
      name: parsed.data.name ?? null,
      when: parsed.data.when,
      action: parsed.data.action,
      template: parsed.data.template ?? null,
    };
  });
  if (problems.length > 0) throw new RuleFileError(problems);
  return rules.sort((a, b) => a.order - b.order);
}

function ruleList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isPlainObject(value)) {
    const unknown = Object.keys(value).filter((key) => key !== 'rules');
    if (unknown.length > 0) {
      throw new RuleFileError([`rule file: unknown key ${show(unknown[0])} (expected {"rules": [...]})`]);
    }
    if (Array.isArray(value.rules)) return value.rules;
  }
  throw new RuleFileError(['rule file: must be a list of rules, or {"rules": [...]}']);
}

/** `when.amount.min must be an integer`: the path without list positions, then what is wrong. */
function describeIssue(issue: z.core.$ZodIssue | undefined, input: unknown): string {
  if (!issue) return 'is not a valid rule';
  const path = issue.path.filter((segment) => typeof segment !== 'number').join('.');
  if (issue.code === 'unrecognized_keys') {
    const where = path ? `${path} has` : 'has';
    return `${where} an unknown key ${show(issue.keys[0])}`;
  }
  if (issue.code !== 'custom' && isMissing(input, issue.path)) return `${path} is required`;
  return path ? `${path} ${issue.message}` : issue.message;
}

/** The path names a key its object does not have (not a list position, which single values are given). */
function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  const key = path.at(-1);
  if (typeof key !== 'string') return false;
  let parent: unknown = input;
  for (const segment of path.slice(0, -1)) {
    if (!isPlainObject(parent)) return false;
    parent = parent[segment as string];
  }
  return isPlainObject(parent) && parent[key] === undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A rule as a file holds it: what `rules list --json` prints, and `rules set` reads back unchanged. */
export function ruleToFile(rule: Rule): Record<string, unknown> {
  return {
    order: rule.order,
    ...(rule.name !== null && { name: rule.name }),
    when: rule.when,
    action: rule.action,
    ...(rule.template !== null && { template: rule.template }),
  };
}

/** What the conditions of a rule look at. */
export interface DisputeFacts {
  reason: string;
  kind: string;
  /** The processor, or `mock` for the test processor's disputes. */
  processor: string | null;
  account: string | null;
  currency: string | null;
  amount: number | null;
  dueBy: Date | null;
  customerEmail: string | null;
  network: string | null;
  networkReasonCode: string | null;
  processorStatus: string | null;
}

/**
 * The facts of a dispute as rules see them. The customer's email is the processor's, else the
 * `customer_email` field the client gave (as `missing_fields` fills what the service already knows).
 */
export function disputeFacts(dispute: {
  reason: string;
  kind: string;
  processor: string | null;
  source: string;
  account: string | null;
  currency: string | null;
  amount: number | null;
  dueBy: Date | null;
  customerEmail: string | null;
  fields: Record<string, unknown>;
  network: string | null;
  networkReasonCode: string | null;
  processorStatus: string | null;
}): DisputeFacts {
  const fromFields = dispute.fields.customer_email;
  return {
    reason: dispute.reason,
    kind: dispute.kind,
    processor: dispute.processor ?? (dispute.source === 'api' ? null : dispute.source),
    account: dispute.account,
    currency: dispute.currency,
    amount: dispute.amount,
    dueBy: dispute.dueBy,
    customerEmail: dispute.customerEmail ?? (typeof fromFields === 'string' ? fromFields : null),
    network: dispute.network,
    networkReasonCode: dispute.networkReasonCode,
    processorStatus: dispute.processorStatus,
  };
}

const hour = 3_600_000;

/** Every condition holds; a condition on a fact the dispute lacks (no amount, no email) does not. */
export function matchesConditions(when: RuleConditions, facts: DisputeFacts, now: Date): boolean {
  const anyOf = (values: readonly string[] | undefined, fact: string | null) =>
    values === undefined || (fact !== null && values.includes(fact));
  if (!anyOf(when.reason, facts.reason)) return false;
  if (!anyOf(when.kind, facts.kind)) return false;
  if (!anyOf(when.processor, facts.processor)) return false;
  if (!anyOf(when.account, facts.account)) return false;
  if (!anyOf(when.currency, facts.currency?.toLowerCase() ?? null)) return false;
  if (!anyOf(when.customer_email_domain, emailDomainOf(facts.customerEmail))) return false;
  if (!anyOf(when.network, facts.network)) return false;
  if (!anyOf(when.network_reason_code, facts.networkReasonCode && codeKey(facts.networkReasonCode)))
    return false;
  if (!anyOf(when.processor_status, facts.processorStatus?.trim().toLowerCase() ?? null)) return false;
  if (when.amount) {
    if (facts.amount === null) return false;
    if (when.amount.min !== undefined && facts.amount < when.amount.min) return false;
    if (when.amount.max !== undefined && facts.amount > when.amount.max) return false;
  }
  if (when.due_within_hours !== undefined) {
    if (facts.dueBy === null) return false;
    if (facts.dueBy.getTime() > now.getTime() + when.due_within_hours * hour) return false;
  }
  return true;
}

function emailDomainOf(email: string | null): string | null {
  if (email === null) return null;
  const at = email.lastIndexOf('@');
  return at < 0 ? null : email.slice(at + 1).toLowerCase();
}

export interface RuleOutcome {
  state?: 'requires_review' | 'accepted';
  template?: string;
}

/**
 * What the rules say of a dispute, taking them in `order`:
 * - the first matching state rule decides the state, and later state rules are not consulted, so an
 *   operator puts the narrow "needs a person" rule above a broad accept rule;
 * - the first matching template rule names the template (the caller attaches it only to a dispute that
 *   has none).
 *
 * `arrival` is a new dispute. `change` is an update or submit (from 2020-02-28): only accept counts
 * there. A review rule that comes first still decides, and decides nothing on a change: a later accept
 * rule must not accept a dispute an earlier rule marks as one for a person. Templates are for arrival.
 */
export function evaluateRules(
  rules: readonly Rule[],
  facts: DisputeFacts,
  now: Date,
  phase: 'arrival' | 'change',
): RuleOutcome {
  const outcome: RuleOutcome = {};
  let stateDecided = false;
  for (const rule of [...rules].sort((a, b) => a.order - b.order)) {
    const isTemplate = rule.action === 'template';
    if (isTemplate ? phase === 'change' || outcome.template !== undefined : stateDecided) continue;
    if (!matchesConditions(rule.when, facts, now)) continue;
    if (isTemplate) {
      outcome.template = rule.template ?? undefined;
      continue;
    }
    stateDecided = true;
    if (rule.action === 'accept') outcome.state = 'accepted';
    else if (phase === 'arrival') outcome.state = 'requires_review';
  }
  return outcome;
}
