import { InvalidArgumentError, Option } from 'commander';

/** `--limit <n>`: how many rows a list prints, 1 to `max`, `fallback` by default. */
export const limitOption = (fallback: number, max = 1000) =>
  new Option('--limit <n>', `how many (1 to ${max})`)
    .argParser((value: string): number => {
      const parsed = Number(value);
      if (!/^\d+$/.test(value) || parsed < 1 || parsed > max)
        throw new InvalidArgumentError(`must be 1 to ${max}`);
      return parsed;
    })
    .default(fallback);

/** `YYYY-MM-DDTHH:MM:SSZ`, or `-` for none: timestamps in human output. */
export function when(date: Date | null | undefined): string {
  return date ? `${date.toISOString().slice(0, 19)}Z` : '-';
}

/** An ISO 8601 timestamp, or null for none: timestamps in --json output. */
export const isoOrNull = (date: Date | null | undefined): string | null => date?.toISOString() ?? null;
