import { z } from 'zod';
import { networks } from '../../domain/networks.js';
import { disputeStates } from '../../domain/states.js';
import { boolean, currency, integer, text, timestamp } from '../../domain/values.js';
import { kinds, processors, reasons } from '../../domain/vocabulary.js';
import type { DisputeFilters } from '../../features/disputes/filters.js';
import { anyOf, listOf, oneOrMany } from './one-or-many.js';
import { pageParams } from './params.js';

/**
 * The query of `GET /v1/disputes` (docs/api.md, "Disputes"): paging, the filters, and `include`. A bad value
 * of a filter answers 400 naming the filter; parameters the list does not know are ignored, as everywhere.
 */

const bounds = ['gte', 'gt', 'lte', 'lt'] as const;

/** `name[gte]=…&name[lte]=…`: a range, each bound optional, sent as a dictionary (OpenAPI's deepObject). */
function range<T extends z.ZodType>(value: T, name: string, description: string) {
  return z
    .strictObject(
      Object.fromEntries(bounds.map((bound) => [bound, value.optional()])) as Record<
        (typeof bounds)[number],
        z.ZodOptional<T>
      >,
      {
        error: (issue) =>
          issue.code === 'invalid_type' || issue.code === 'unrecognized_keys'
            ? `must be a range: ${bounds.map((bound) => `${name}[${bound}]`).join(', ')}`
            : undefined,
      },
    )
    .optional()
    .meta({ description, param: { style: 'deepObject', explode: true } });
}

const time = (name: string, what: string) =>
  range(
    timestamp,
    name,
    `${what} within a range: \`${name}[gte]\`, \`${name}[gt]\`, \`${name}[lte]\`, \`${name}[lt]\`, each ISO 8601 or Unix seconds, compared to the second.`,
  );

export const listDisputesQuery = pageParams.and(
  z.object({
    state: anyOf(z.enum(disputeStates), 'Disputes in this state.'),
    account: anyOf(text(255), 'Disputes of this connected account (its name).'),
    reason: anyOf(z.enum(reasons), 'Disputes with this reason.'),
    processor: anyOf(z.enum(processors), 'Disputes of this processor.'),
    kind: anyOf(z.enum(kinds), 'Disputes of this kind.'),
    network: anyOf(z.enum(networks), 'Disputes from this card network.'),
    charge: anyOf(text(255), 'Disputes of this charge.'),
    customer: anyOf(text(255), "Disputes of this customer (the processor's customer id)."),
    customer_email: anyOf(text(255), 'Disputes with this customer email, in any case.'),
    currency: anyOf(currency, 'Disputes in this currency (3 letters, any case).'),
    amount: range(
      integer,
      'amount',
      'Disputed amount within a range, in minor units: `amount[gte]`, `amount[gt]`, `amount[lte]`, `amount[lt]`.',
    ),
    created: time('created', 'Created'),
    due_by: time('due_by', 'Response deadline'),
    disputed_at: time('disputed_at', 'Disputed'),
    has_evidence: boolean.optional().meta({
      description: 'true: disputes with a template or any evidence attached; false: the others.',
    }),
    include: oneOrMany(
      z.enum(['total_count']),
      '`total_count`: add `total_count` and `count_by_state` for the whole filtered set.',
    ),
  }),
);

type ListInput = z.output<typeof listDisputesQuery>;

/** The filters a request names, as the list takes them (features/disputes/filters.ts). */
export function toDisputeFilters(query: ListInput): DisputeFilters {
  const filters: DisputeFilters = {
    states: listOf(query.state),
    accounts: listOf(query.account),
    reasons: listOf(query.reason),
    processors: listOf(query.processor),
    kinds: listOf(query.kind),
    networks: listOf(query.network),
    charges: listOf(query.charge),
    customers: listOf(query.customer),
    customerEmails: listOf(query.customer_email),
    currencies: listOf(query.currency),
    amount: query.amount,
    created: query.created,
    dueBy: query.due_by,
    disputedAt: query.disputed_at,
    hasEvidence: query.has_evidence,
  };
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
}
