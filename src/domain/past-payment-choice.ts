import { daysBefore, priorPaymentWindowDays } from './compelling-evidence.js';

/**
 * Which of the payments a processor finds become a dispute's past payments (docs/api.md, "Evidence"): a
 * dispute keeps at most ten, and for a Visa fraud dispute the ten newest may all be younger than Visa CE
 * 3.0's 120 days, leaving none it can use. The adapters look back 365 days and choose here.
 */

/** How far back the processor is asked: the oldest payment Visa CE 3.0 counts, 365 calendar days (UTC). */
export function lookbackStart(chargedAt: Date): Date {
  const day = Date.UTC(chargedAt.getUTCFullYear(), chargedAt.getUTCMonth(), chargedAt.getUTCDate());
  return new Date(day - priorPaymentWindowDays.max * 86_400_000);
}

/** The first moment too recent for Visa CE 3.0: the start of the UTC day 119 days before the disputed payment. */
export function windowEnd(chargedAt: Date): Date {
  const day = Date.UTC(chargedAt.getUTCFullYear(), chargedAt.getUTCMonth(), chargedAt.getUTCDate());
  return new Date(day - (priorPaymentWindowDays.min - 1) * 86_400_000);
}

export interface FoundPayment<T> {
  payment: T;
  at: Date;
}

/**
 * At most `limit` of the payments found within the lookback, newest first. Where Visa CE 3.0 applies
 * (`compellingEvidence`), those in its window (120 to 365 days before) are taken first, newest first,
 * and the more recent ones fill what is left; otherwise simply the newest. Older or later ones are never
 * taken.
 */
export function choosePastPayments<T>(
  found: readonly FoundPayment<T>[],
  chargedAt: Date,
  limit: number,
  compellingEvidence: boolean,
): T[] {
  const newestFirst = found
    .filter(({ at }) => at < chargedAt && daysBefore(chargedAt, at) <= priorPaymentWindowDays.max)
    .sort((a, b) => b.at.getTime() - a.at.getTime());
  const inWindow = (at: Date) => daysBefore(chargedAt, at) >= priorPaymentWindowDays.min;
  const first = compellingEvidence ? newestFirst.filter(({ at }) => inWindow(at)) : [];
  const chosen = new Set([...new Set([...first, ...newestFirst])].slice(0, Math.max(0, limit)));
  return newestFirst.filter((item) => chosen.has(item)).map(({ payment }) => payment);
}
