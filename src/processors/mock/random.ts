/**
 * A seedable generator (mulberry32: small, fast, good enough for sample data), so that the mock
 * processor's world and the bench data come out the same on every run with the same seed.
 */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  /** An integer in [min, max). */
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min));
  const pick = <T>(values: readonly T[]): T => values[int(0, values.length)] as T;
  const token = (length = 14) => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[int(0, alphabet.length)];
    return out;
  };
  return { next, int, pick, token };
}

export type SeededRandom = ReturnType<typeof seededRandom>;

/** A 32-bit seed from text (FNV-1a), to give each of many things its own stream from one seed. */
export function seedOf(...parts: (string | number | boolean)[]): number {
  let hash = 0x811c9dc5;
  for (const char of parts.join('\u0000')) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
