import { deflateSync } from 'node:zlib';
import type { ByteSink } from './byte-sink.js';
import { Undrawable } from './drawing.js';
import { subsetFont } from './font-subset.js';
import type { FontFace } from './fonts.js';
import { num, type PdfObjects } from './pdf-objects.js';

/**
 * One face as a document uses it, and its PDF font (Type0, Identity-H, over a CIDFontType2 whose
 * FontFile2 is a subset of the face). CIDs are given per code point in order of first use (1, 2, …), not
 * per glyph: the ToUnicode map then gives every CID its exact character, so that text extracted from the
 * PDF is what was drawn even where two characters share a glyph.
 */
export class FontUse {
  /** The code point of each CID, CID 1 first. */
  readonly codePoints: number[] = [];
  private readonly basic: Uint16Array;
  private readonly astral = new Map<number, number>();

  constructor(readonly face: FontFace) {
    // The basic plane's CIDs in a table a face, cleared for each document rather than allocated: 128 KB
    // a face a document of memory outside V8's heap grew a render thread by tens of megabytes between
    // collections. Writing is synchronous, so one document at a time uses a face's table.
    this.basic = cidTables[face.style].fill(0);
  }

  /** Writes `text` as the hex digits of its CIDs, two bytes each (Identity-H), for a `Tj`. */
  encode(text: string, sink: ByteSink): void {
    for (let index = 0; index < text.length; index++) {
      let codePoint = text.charCodeAt(index);
      if (codePoint >= 0xd800 && codePoint < 0xdc00) {
        codePoint = text.codePointAt(index) as number;
        if (codePoint > 0xffff) index++;
      }
      let cid = codePoint < 0x10000 ? (this.basic[codePoint] as number) : (this.astral.get(codePoint) ?? 0);
      if (cid === 0) cid = this.assign(codePoint);
      sink.hex4(cid);
    }
  }

  private assign(codePoint: number): number {
    const cid = this.codePoints.length + 1;
    if (cid > 0xffff) throw new Undrawable('more than 65,535 distinct characters in one face');
    this.codePoints.push(codePoint);
    if (codePoint < 0x10000) this.basic[codePoint] = cid;
    else this.astral.set(codePoint, cid);
    return cid;
  }
}

const cidTables: Record<FontFace['style'], Uint16Array> = {
  regular: new Uint16Array(0x10000),
  bold: new Uint16Array(0x10000),
};

const postScriptNames: Record<FontFace['style'], string> = {
  regular: 'NotoSans-Regular',
  bold: 'NotoSans-Bold',
};

// Stem widths as a viewer's fallback rendering would want them, from Noto Sans' vertical stems.
const stems: Record<FontFace['style'], number> = { regular: 88, bold: 148 };

/** Writes the font objects of `use` and returns the number of the Type0 font. */
export function writeFont(objects: PdfObjects, use: FontUse, level: number): number {
  const { face, codePoints } = use;
  const glyphs = codePoints.map((codePoint) => face.glyph(codePoint));
  const name = `${subsetTag(codePoints, glyphs)}+${postScriptNames[face.style]}`;
  const scale = 1000 / face.unitsPerEm;
  const type0 = objects.allocate();
  const cidFont = objects.allocate();
  const descriptor = objects.allocate();
  const fontFile = objects.allocate();
  const cidToGid = objects.allocate();
  const toUnicode = objects.allocate();

  objects.object(
    type0,
    `<</Type /Font /Subtype /Type0 /BaseFont /${name} /Encoding /Identity-H ` +
      `/DescendantFonts [${cidFont} 0 R] /ToUnicode ${toUnicode} 0 R>>`,
  );
  let widths = '';
  for (const glyph of glyphs) widths += ` ${num(face.advanceOf(glyph) * scale)}`;
  objects.object(
    cidFont,
    `<</Type /Font /Subtype /CIDFontType2 /BaseFont /${name} ` +
      '/CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>> ' +
      `/FontDescriptor ${descriptor} 0 R /DW 1000 /W [1 [${widths.slice(1)}]] /CIDToGIDMap ${cidToGid} 0 R>>`,
  );
  const head = face.tables.get('head')?.offset as number;
  const box = [36, 38, 40, 42].map((at) => num(face.bytes.readInt16BE(head + at) * scale)).join(' ');
  objects.object(
    descriptor,
    `<</Type /FontDescriptor /FontName /${name} /Flags 32 /FontBBox [${box}] /ItalicAngle 0 ` +
      `/Ascent ${num(face.ascender * scale)} /Descent ${num(face.descender * scale)} ` +
      `/CapHeight ${num(face.capHeight * scale)} /StemV ${stems[face.style]} /FontFile2 ${fontFile} 0 R>>`,
  );
  const file = fontProgram(face, glyphs, level);
  objects.stream(fontFile, `/Length1 ${file.length} /Filter /FlateDecode`, file.deflated);
  const map = Buffer.alloc(2 * (glyphs.length + 1));
  glyphs.forEach((glyph, index) => {
    map.writeUInt16BE(glyph, 2 * (index + 1));
  });
  objects.stream(cidToGid, '', map);
  objects.stream(
    toUnicode,
    '/Filter /FlateDecode',
    deflateSync(Buffer.from(toUnicodeCMap(codePoints), 'latin1'), { level }),
  );
  return type0;
}

/**
 * The subset's font file, deflated. A document that draws few of the printable ASCII glyphs (a one-page
 * document: about 40 of 95) embeds exactly the glyphs it draws, 4 KB a face rather than 6 (9 KB a document
 * instead of 17, which the submission path writes to Postgres and sends to the processor); one that draws
 * half of them or more embeds them all besides its own, so that longer documents in plain English, whose
 * glyphs vary with their evidence, share one file. The last few files made are kept, by the glyphs they
 * hold (documents of one template draw nearly the same); the same glyphs give the same bytes, kept or
 * made afresh.
 */
function fontProgram(face: FontFace, glyphs: readonly number[], level: number) {
  const ascii = asciiGlyphs(face);
  const kept = new Set(glyphs);
  if (2 * ascii.filter((glyph) => kept.has(glyph)).length >= ascii.length) {
    for (const glyph of ascii) kept.add(glyph);
  }
  const list = [...kept].sort((a, b) => a - b);
  const key = `${face.style} ${level} ${list.join(',')}`;
  let file = programs.get(key);
  if (file) programs.delete(key);
  else {
    const bytes = subsetFont(face, list);
    file = { length: bytes.length, deflated: deflateSync(bytes, { level }) };
    if (programs.size >= programsKept) programs.delete(programs.keys().next().value as string);
  }
  programs.set(key, file);
  return file;
}

/** The font files made last, the most recently used last (a Map keeps insertion order). */
const programs = new Map<string, { length: number; deflated: Buffer }>();
const programsKept = 16;

/** The glyphs of printable ASCII (distinct: a face may draw two characters with one glyph), once a face. */
const asciiGlyphsOf = new Map<FontFace['style'], number[]>();

function asciiGlyphs(face: FontFace): number[] {
  let glyphs = asciiGlyphsOf.get(face.style);
  if (!glyphs) {
    const distinct = new Set<number>();
    for (let code = 0x20; code < 0x7f; code++) distinct.add(face.glyph(code));
    glyphs = [...distinct];
    asciiGlyphsOf.set(face.style, glyphs);
  }
  return glyphs;
}

/** The ToUnicode CMap: each CID to its code point, in UTF-16BE (a surrogate pair beyond the BMP). */
function toUnicodeCMap(codePoints: readonly number[]): string {
  let map =
    '/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n' +
    '/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def\n' +
    '/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n' +
    '1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n';
  // A bfchar block holds at most 100 entries.
  for (let first = 0; first < codePoints.length; first += 100) {
    const block = codePoints.slice(first, first + 100);
    map += `${block.length} beginbfchar\n`;
    block.forEach((codePoint, index) => {
      map += `<${utf16Hex(first + index + 1)}> <${utf16Hex(codePoint)}>\n`;
    });
    map += 'endbfchar\n';
  }
  return `${map}endcmap\nCMapName currentdict /CMapResource defineresource pop\nend\nend\n`;
}

function utf16Hex(codePoint: number): string {
  const hex = (unit: number) => unit.toString(16).toUpperCase().padStart(4, '0');
  if (codePoint < 0x10000) return hex(codePoint);
  const offset = codePoint - 0x10000;
  return hex(0xd800 + (offset >> 10)) + hex(0xdc00 + (offset & 0x3ff));
}

/**
 * The six capital letters before a subset's name, from a hash (FNV-1a) of the characters and glyphs it
 * holds: the same subset gets the same tag, never the clock or a random one.
 */
function subsetTag(codePoints: readonly number[], glyphs: readonly number[]): string {
  let hash = 0x811c9dc5;
  const mix = (value: number) => {
    hash = Math.imul(hash ^ (value & 0xffff), 0x01000193);
    hash = Math.imul(hash ^ (value >>> 16), 0x01000193);
  };
  codePoints.forEach((codePoint, index) => {
    mix(codePoint);
    mix(glyphs[index] as number);
  });
  hash >>>= 0;
  let tag = '';
  for (let letter = 0; letter < 6; letter++) {
    tag += String.fromCharCode(65 + (hash % 26));
    hash = Math.floor(hash / 26);
  }
  return tag;
}
