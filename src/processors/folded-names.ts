/**
 * Names as processors' portals and APIs vary them from one file or answer to the next (`Review in
 * Progress`, `review  in progress`): compared with case and spacing aside.
 */

/** The name lower-cased, trimmed, and with every run of white space one space. */
export const folded = (name: string): string => name.trim().toLowerCase().replace(/\s+/g, ' ');

/** A table by folded names, to look a name up whatever its case and spacing. */
export const foldKeys = <Value>(table: Record<string, Value>): Map<string, Value> =>
  new Map(Object.entries(table).map(([name, value]) => [folded(name), value]));
