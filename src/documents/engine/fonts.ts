import { readFileSync } from 'node:fs';
import { fontFile } from '../font-files.js';
import type { FontStyle } from './drawing.js';

/**
 * The document engine's two faces, Noto Sans Regular and Bold (TrueType, from the npm package the
 * Typst renderer reads too: documents/font-files.ts): what the layout measures text with, and what the
 * PDF writer subsets and embeds. Read once a thread, on first use.
 *
 * No shaping and no kerning: each character is its glyph at its advance. That is exact for the scripts
 * this face draws one glyph a character (Latin, Greek, Cyrillic, with precomposed letters), which is why
 * `drawable` sends text with combining marks, format characters or anything the face lacks to Typst.
 */
export interface FontFace {
  readonly style: FontStyle;
  /** The font file, whose tables the PDF writer subsets. */
  readonly bytes: Buffer;
  readonly tables: ReadonlyMap<string, { offset: number; length: number }>;
  readonly unitsPerEm: number;
  readonly ascender: number;
  readonly descender: number;
  readonly capHeight: number;
  readonly glyphCount: number;
  /** The glyph of a code point; 0 (the missing glyph) when the face has none. */
  glyph(codePoint: number): number;
  /** A glyph's advance, in font units. */
  advanceOf(glyph: number): number;
  /** The width of `text` at `size` points. */
  width(text: string, size: number): number;
}

const files: Record<FontStyle, string> = {
  regular: 'NotoSans-Regular.ttf',
  bold: 'NotoSans-Bold.ttf',
};

const loaded = new Map<FontStyle, FontFace>();

export function fontFace(style: FontStyle): FontFace {
  let face = loaded.get(style);
  if (!face) {
    face = readFace(style, readFileSync(fontFile('@embedpdf/fonts-latin', `fonts/${files[style]}`)));
    loaded.set(style, face);
  }
  return face;
}

// Characters the engine never draws itself: combining marks (they need positioning), format characters
// (bidirectional controls, joiners), private use, surrogates and unassigned code points.
const shaped = /[\p{M}\p{Cf}\p{Co}\p{Cs}\p{Cn}]/u;

/**
 * Whether the engine draws `text` as written: every character in both faces, none that needs shaping.
 * Line breaks and the control characters the layout leaves out are the layout's to handle, not glyphs.
 */
export function drawable(text: string): boolean {
  // Printable ASCII, most of any document, is in both faces: only the other characters are looked at.
  outsideAscii.lastIndex = 0;
  for (let found = outsideAscii.exec(text); found; found = outsideAscii.exec(text)) {
    const codePoint = found[0].codePointAt(0) as number;
    // The answer for each character of the Basic Multilingual Plane, once found (0: not yet).
    let known = codePoint <= 0xffff ? drawnBmp[codePoint] : 0;
    if (!known) {
      known = drawableCharacter(codePoint) ? 1 : 2;
      if (codePoint <= 0xffff) drawnBmp[codePoint] = known;
    }
    if (known === 2) return false;
  }
  return true;
}

const outsideAscii = /[^\x20-\x7e]/gu;
const drawnBmp = new Uint8Array(0x10000);

function drawableCharacter(codePoint: number): boolean {
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f)) return true;
  if (codePoint === 0x2028 || codePoint === 0x2029) return true;
  return (
    !shaped.test(String.fromCodePoint(codePoint)) &&
    fontFace('regular').glyph(codePoint) !== 0 &&
    fontFace('bold').glyph(codePoint) !== 0
  );
}

function readFace(style: FontStyle, bytes: Buffer): FontFace {
  const tables = new Map<string, { offset: number; length: number }>();
  const count = bytes.readUInt16BE(4);
  for (let index = 0; index < count; index++) {
    const at = 12 + 16 * index;
    tables.set(bytes.toString('latin1', at, at + 4), {
      offset: bytes.readUInt32BE(at + 8),
      length: bytes.readUInt32BE(at + 12),
    });
  }
  const table = (tag: string) => {
    const found = tables.get(tag);
    if (!found) throw new Error(`the font ${files[style]} has no ${tag} table`);
    return found.offset;
  };
  const head = table('head');
  const hhea = table('hhea');
  const os2 = table('OS/2');
  const glyphCount = bytes.readUInt16BE(table('maxp') + 4);
  const advances = readAdvances(bytes, table('hmtx'), bytes.readUInt16BE(hhea + 34), glyphCount);
  const { basic, astral } = readCmap(bytes, table('cmap'));
  const unitsPerEm = bytes.readUInt16BE(head + 18);
  const glyph = (codePoint: number) =>
    codePoint < 0x10000 ? (basic[codePoint] as number) : (astral.get(codePoint) ?? 0);
  return {
    style,
    bytes,
    tables,
    unitsPerEm,
    ascender: bytes.readInt16BE(hhea + 4),
    descender: bytes.readInt16BE(hhea + 6),
    capHeight: bytes.readInt16BE(os2 + 88),
    glyphCount,
    glyph,
    advanceOf: (index) => advances[index] ?? 0,
    width(text, size) {
      let units = 0;
      for (let index = 0; index < text.length; index++) {
        const codePoint = text.codePointAt(index) as number;
        if (codePoint > 0xffff) index++;
        units += advances[glyph(codePoint)] as number;
      }
      return (units * size) / unitsPerEm;
    },
  };
}

function readAdvances(bytes: Buffer, hmtx: number, metrics: number, glyphCount: number): Uint16Array {
  const advances = new Uint16Array(glyphCount);
  for (let index = 0; index < glyphCount; index++)
    advances[index] = bytes.readUInt16BE(hmtx + 4 * Math.min(index, metrics - 1));
  return advances;
}

/** The Unicode cmap: format 12 (every plane) where the font has it, else format 4 (the basic plane). */
function readCmap(bytes: Buffer, cmap: number): { basic: Uint16Array; astral: Map<number, number> } {
  const basic = new Uint16Array(0x10000);
  const astral = new Map<number, number>();
  const subtables = new Map<string, number>();
  for (let index = 0; index < bytes.readUInt16BE(cmap + 2); index++) {
    const at = cmap + 4 + 8 * index;
    subtables.set(
      `${bytes.readUInt16BE(at)}.${bytes.readUInt16BE(at + 2)}`,
      cmap + bytes.readUInt32BE(at + 4),
    );
  }
  const full = subtables.get('3.10') ?? subtables.get('0.4');
  const set = (codePoint: number, glyph: number) => {
    if (codePoint < 0x10000) basic[codePoint] = glyph;
    else astral.set(codePoint, glyph);
  };
  if (full !== undefined && bytes.readUInt16BE(full) === 12) {
    for (let group = 0; group < bytes.readUInt32BE(full + 12); group++) {
      const at = full + 16 + 12 * group;
      const [first, last, glyph] = [
        bytes.readUInt32BE(at),
        bytes.readUInt32BE(at + 4),
        bytes.readUInt32BE(at + 8),
      ];
      for (let codePoint = first; codePoint <= last; codePoint++) set(codePoint, glyph + codePoint - first);
    }
    return { basic, astral };
  }
  const at = subtables.get('3.1') ?? subtables.get('0.3');
  if (at === undefined || bytes.readUInt16BE(at) !== 4) throw new Error('the font has no Unicode cmap');
  const segments = bytes.readUInt16BE(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + 2 * segments + 2;
  const deltas = starts + 2 * segments;
  const rangeOffsets = deltas + 2 * segments;
  for (let segment = 0; segment < segments; segment++) {
    const end = bytes.readUInt16BE(ends + 2 * segment);
    const start = bytes.readUInt16BE(starts + 2 * segment);
    const delta = bytes.readInt16BE(deltas + 2 * segment);
    const rangeAt = rangeOffsets + 2 * segment;
    const rangeOffset = bytes.readUInt16BE(rangeAt);
    for (let codePoint = start; codePoint <= end && codePoint !== 0xffff; codePoint++) {
      let glyph = codePoint;
      if (rangeOffset !== 0) {
        glyph = bytes.readUInt16BE(rangeAt + rangeOffset + 2 * (codePoint - start));
        if (glyph === 0) continue;
      }
      basic[codePoint] = (glyph + delta) & 0xffff;
    }
  }
  return { basic, astral };
}
