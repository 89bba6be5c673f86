/**
 * How wide a character is drawn, in ems, never less: what the size measure (domain/document-size.ts)
 * counts lines with. The figures are Noto Sans's own advances, the wider of Regular and Bold (the faces
 * both renderers draw Latin, Greek and Cyrillic in: documents/engine/fonts.ts), rounded up to a hundredth
 * of an em: exact for printable ASCII, the widest of each block of 16 up to U+052F. Past that a character
 * counts as an em (Typst's CJK faces), and the few Noto Sans draws wider as 1.7 em. Rounded up by block,
 * not by class: a class average misses letters such as Ԫ (1.51 em) or Щ (1.07 em), and a line of them
 * wraps to more lines than counted. test/unit/glyph-widths.test.ts checks every character the faces draw.
 */
export function glyphWidth(code: number): number {
  if (code >= 0x20 && code < 0x7f) return (ascii[code - 0x20] as number) / 100;
  if (code === 9) return (ascii[0] as number) / 100; // a tab is drawn as a space
  if (code < 0x80) return 0; // other control characters are left out
  if (code < 0x530) return (latinBlocks[(code - 0x80) >> 4] as number) / 100;
  if (code === 0x2e3a) return 2; // two-em dash
  if (code === 0x2e3b) return 3; // three-em dash
  if (code >= 0xfdf0 && code <= 0xfdff) return 5; // Arabic ligatures of words and phrases (Typst's faces)
  return wide.has(code) ? 1.7 : 1;
}

// biome-ignore format: a table
const ascii = [
  26, 29, 48, 65, 58, 91, 75, 27, 34, 34, 56, 58, 29, 33, 29, 42, 58, 58, 58, 58, 58, 58, 58, 58, 58, 58, 29,
  29, 58, 58, 58, 48, 90, 70, 67, 65, 74, 56, 55, 73, 77, 39, 34, 67, 56, 95, 82, 80, 63, 80, 66, 56, 58, 76,
  65, 97, 67, 63, 58, 34, 42, 34, 58, 45, 37, 60, 64, 52, 64, 60, 39, 64, 65, 30, 30, 62, 30, 98, 65, 63, 64,
  64, 45, 51, 44, 65, 58, 86, 58, 58, 50, 40, 56, 40, 58,
];

/** U+0080 to U+052F, a block of 16 an entry (the C1 controls and unassigned blocks count as wide as any). */
// biome-ignore format: a table
const latinBlocks = [
  100, 100, 84, 88, 96, 81, 92, 65, 74, 74, 77, 73, 82, 98, 76, 97, 87, 104, 113, 79, 131, 80, 96, 131, 80, 77,
  87, 98, 78, 84, 98, 99, 87, 80, 110, 56, 51, 52, 51, 54, 100, 100, 100, 100, 100, 100, 100, 83, 99, 95, 91,
  68, 88, 102, 60, 95, 107, 100, 108, 87, 96, 93, 108, 132, 92, 103, 113, 95, 104, 100, 80, 92, 105, 102, 152,
];

/** The characters past U+052F that Noto Sans draws wider than an em (at most 1.67 em). */
const wideRanges =
  '906,911-914,950,974-975,1d7a,1f0a-1f0b,1f0e-1f0f,1f2a-1f2f,1f4a-1f4d,1f5b,1f5d,1f5f,1f6a-1f6f,1f8a-1f8b,' +
  '1f8e-1f8f,1f9a-1f9f,1faa-1faf,1fca,2030-2031,2042,20af,2103,210b,2116,2133,213b,214f,2152,2c72,2e0e,2e27,' +
  'a64c,a654,a656,a65c,a666,a66c-a66d,a684-a686,a696,a698-a699,a732,a734,a736,a74e-a74f,a773,a7b6,a7c2,a7ff,' +
  'ab43,ab63,ab66,fb03-fb04,1df12,1df19';
const wide = new Set(
  wideRanges.split(',').flatMap((range) => {
    const [first = 0, last = first] = range.split('-').map((hex) => Number.parseInt(hex, 16));
    return Array.from({ length: last - first + 1 }, (_, offset) => first + offset);
  }),
);
