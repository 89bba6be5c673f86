/**
 * Dates as processors write them: moments (ISO 8601 date-times) and days (`YYYY-MM-DD`), and the UTC days
 * that adapters listing by day count in.
 */

/** A date-time the processor's schema has checked, as a Date; absent (null, undefined, empty) is null. */
export function momentOf(text: string | null | undefined): Date | null {
  return text ? new Date(text) : null;
}

/**
 * A day (`YYYY-MM-DD`; anything after it, as an xs:date zone offset, is dropped) as the start of that day
 * in UTC; absent is null. Processors rarely say in which zone their days are: for a deadline the start of
 * the day in UTC is the earliest it can mean wherever the merchant is, so work planned before it is early,
 * never late.
 */
export function startOfDay(text: string | null | undefined): Date | null {
  return text ? new Date(`${text.slice(0, 10)}T00:00:00Z`) : null;
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
