import { z } from 'zod';
import { ApiError } from './errors.js';
import { show, timestamp } from './values.js';
import { type DisputeResolution, disputeResolutions } from './vocabulary.js';

/**
 * The parameters of the outcome statistics (docs/api.md, "Statistics") and their rules: what a group can
 * be, the range of `disputed_at` they cover when a bound is not given, and the bounds on both. The API and
 * the CLI (`stats`) read their input with this one schema, so they refuse the same input in the same words.
 */

export const statsDimensions = ['reason', 'processor', 'template', 'network', 'month'] as const;
export type StatsDimension = (typeof statsDimensions)[number];

/** At most this many groups are answered: template ids are the merchant's and can be many. */
export const maxStatsGroups = 1000;
/** The longest range of `disputed_at`, in years, and the range when `from` is not given. */
export const maxStatsYears = 5;
export const defaultStatsYears = 1;

const dimension = z.enum(statsDimensions, {
  error: (issue) => `${show(issue.input)} is not one of ${statsDimensions.join(', ')}`,
});

export const statsQuery = z.object({
  from: timestamp
    .optional()
    .meta({ description: '`disputed_at` at or after this; default a year before `to`.' }),
  to: timestamp.optional().meta({ description: '`disputed_at` before this; default now.' }),
  /** Repeatable: `group_by=reason&group_by=month` (or `group_by[]=…`); one value alone is a list of one. */
  group_by: z
    .preprocess(
      (value) => (typeof value === 'string' ? [value] : value),
      z
        .array(dimension)
        .max(2, 'takes at most two values')
        .refine((values) => new Set(values).size === values.length, 'must not name a value twice'),
    )
    .optional()
    .meta({ description: 'What to group by, once or twice; none: one group of every dispute.' }),
});
export type StatsQuery = z.output<typeof statsQuery>;

/** A moment `years` calendar years earlier (UTC); 29 February goes to 1 March. */
function yearsBefore(date: Date, years: number): Date {
  const earlier = new Date(date);
  earlier.setUTCFullYear(earlier.getUTCFullYear() - years);
  return earlier;
}

/**
 * The range of `disputed_at` counted, `from` included and `to` not: `to` defaults to `now` and `from` to
 * a year before `to`. A `from` after `to`, or more than five years before it, is refused.
 */
export function statsRange(query: Pick<StatsQuery, 'from' | 'to'>, now: Date): { from: Date; to: Date } {
  const to = query.to ?? now;
  const from = query.from ?? yearsBefore(to, defaultStatsYears);
  if (from > to) {
    throw new ApiError(
      'invalid_request',
      `Invalid from: must not be after to${query.to ? '' : ' (now, when to is not given)'}.`,
    );
  }
  if (from < yearsBefore(to, maxStatsYears)) {
    throw new ApiError('invalid_request', `Invalid from: must be at most ${maxStatsYears} years before to.`);
  }
  return { from, to };
}

/**
 * The resolutions that count as `prevented` (docs/api.md, "Statistics"), whatever the dispute's state, and
 * in no other outcome nor the win rate: every resolution is a pre-dispute program's, so all of them.
 */
export const preventedResolutions = disputeResolutions;
export type PreventedResolution = DisputeResolution;

/**
 * How a Visa fraud dispute counts for CE 3.0: this service's verdict at its latest submission that got
 * through (what the issuer saw), or `not_submitted` when none did.
 */
export const compellingEvidenceStatsStatuses = [
  'qualified',
  'requires_action',
  'not_qualified',
  'not_submitted',
] as const;
export type CompellingEvidenceStatsStatus = (typeof compellingEvidenceStatsStatuses)[number];

/** The `group_by` dimensions alerts have; the others (reason, template, network) do not split them. */
export const alertStatsDimensions = ['processor', 'month'] as const satisfies readonly StatsDimension[];
export type AlertStatsDimension = (typeof alertStatsDimensions)[number];

export const alertDimensionsOf = (groupBy: readonly StatsDimension[]): AlertStatsDimension[] =>
  groupBy.filter((dimension): dimension is AlertStatsDimension =>
    (alertStatsDimensions as readonly string[]).includes(dimension),
  );
