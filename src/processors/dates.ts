/**
 * Dates as processors write them: moments (ISO 8601 date-times) and days (`YYYY-MM-DD`), and the UTC days
 * that adapters listing by day count in.
 */

/**
 * A date-time the processor's schema has checked, as a Date; absent (null, undefined, empty) is null, and
 * so is one no calendar has (an Invalid Date would fail the whole page it is written with).
 */
export function momentOf(text: string | null | undefined): Date | null {
  const at = text ? new Date(text) : null;
  return at && !Number.isNaN(at.getTime()) ? at : null;
}

/**
 * A day (`YYYY-MM-DD`; anything after it, as an xs:date zone offset, is dropped) as the start of that day
 * in UTC; absent is null. Processors rarely say in which zone their days are: for a deadline the start of
 * the day in UTC is the earliest it can mean wherever the merchant is, so work planned before it is early,
 * never late.
 */
export function startOfDay(text: string | null | undefined): Date | null {
  if (!text) return null;
  const day = text.slice(0, 10);
  const at = new Date(`${day}T00:00:00Z`);
  // Only a day the calendar has: `2026-02-30` is not 2 March, and `2026-13-01` is no day at all.
  return !Number.isNaN(at.getTime()) && utcDay(at) === day ? at : null;
}

/** `YYYY-MM-DD` of a moment, in UTC. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The day `days` after `day` (`YYYY-MM-DD`), or before it when negative. */
export function shiftDay(day: string, days: number): string {
  const at = new Date(`${day}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return utcDay(at);
}
