import type { FontFace } from './fonts.js';

/**
 * A TrueType subset of one of the engine's faces, for the PDF writer to embed (FontFile2): the glyphs a
 * document draws, glyph 0 and the components of composite glyphs, at their own glyph ids (the other slots
 * are empty, so the PDF's CIDToGIDMap names the font's own ids), with only the tables a PDF viewer reads
 * for a CID font (glyf, loca, head, hhea, hmtx, maxp, and the hinting programs if the face has them).
 * Layout tables (GSUB, GPOS, GDEF), names and the cmap stay out: the PDF maps characters itself.
 */

interface Parsed {
  bytes: Buffer;
  glyf: number;
  /** Each glyph's start in glyf, and the end of the last: glyphCount + 1 entries. */
  loca: Uint32Array;
  hmtx: number;
  longMetrics: number;
  head: Buffer;
  hhea: Buffer;
  maxp: Buffer;
  /** Hinting tables copied as they are (cvt, fpgm, prep), by tag. */
  programs: [string, Buffer][];
  /** Components of composite glyphs, read on first use. */
  components: Map<number, readonly number[]>;
  /**
   * Each glyph's checksum (its words summed, zero-padded), -1 until first needed: glyphs sit at
   * multiples of four in the subset, so its glyf checksum is their sum, without a pass over the table.
   */
  sums: Float64Array;
}

// What does not depend on the document, once a process (the faces themselves are read once).
const parsedFaces = new WeakMap<FontFace, Parsed>();

function parse(face: FontFace): Parsed {
  let parsed = parsedFaces.get(face);
  if (parsed) return parsed;
  const { bytes, tables, glyphCount } = face;
  const table = (tag: string) => {
    const found = tables.get(tag);
    if (!found) throw new Error(`the ${face.style} face has no ${tag} table`);
    return found;
  };
  const copy = (tag: string) => {
    const { offset, length } = table(tag);
    return Buffer.from(bytes.subarray(offset, offset + length));
  };
  const head = copy('head');
  const loca = new Uint32Array(glyphCount + 1);
  const locaAt = table('loca').offset;
  const long = head.readInt16BE(50) === 1;
  for (let glyph = 0; glyph <= glyphCount; glyph++)
    loca[glyph] = long ? bytes.readUInt32BE(locaAt + 4 * glyph) : 2 * bytes.readUInt16BE(locaAt + 2 * glyph);
  const hhea = copy('hhea');
  parsed = {
    bytes,
    glyf: table('glyf').offset,
    loca,
    hmtx: table('hmtx').offset,
    longMetrics: hhea.readUInt16BE(34),
    head,
    hhea,
    maxp: copy('maxp'),
    programs: ['cvt ', 'fpgm', 'prep'].filter((tag) => tables.has(tag)).map((tag) => [tag, copy(tag)]),
    components: new Map(),
    sums: new Float64Array(glyphCount).fill(-1),
  };
  parsedFaces.set(face, parsed);
  return parsed;
}

/** The glyphs a composite glyph is made of (none for a simple glyph). */
function componentsOf(parsed: Parsed, glyph: number): readonly number[] {
  const cached = parsed.components.get(glyph);
  if (cached) return cached;
  const found: number[] = [];
  const start = parsed.glyf + (parsed.loca[glyph] as number);
  const end = parsed.glyf + (parsed.loca[glyph + 1] as number);
  const bytes = parsed.bytes;
  if (end - start >= 10 && bytes.readInt16BE(start) < 0) {
    let at = start + 10;
    for (;;) {
      const flags = bytes.readUInt16BE(at);
      found.push(bytes.readUInt16BE(at + 2));
      at += 4 + (flags & 0x1 ? 4 : 2);
      if (flags & 0x8) at += 2;
      else if (flags & 0x40) at += 4;
      else if (flags & 0x80) at += 8;
      if (!(flags & 0x20) || at >= end) break;
    }
  }
  parsed.components.set(glyph, found);
  return found;
}

/** The subset font file keeping `glyphs` (and glyph 0 and every component). */
export function subsetFont(face: FontFace, glyphs: Iterable<number>): Buffer {
  const parsed = parse(face);
  const { bytes, loca } = parsed;
  const kept = new Uint8Array(face.glyphCount);
  kept[0] = 1;
  const list = [0];
  const keep = (glyph: number) => {
    if (glyph >= face.glyphCount || kept[glyph]) return;
    kept[glyph] = 1;
    list.push(glyph);
    for (const component of componentsOf(parsed, glyph)) keep(component);
  };
  for (const glyph of glyphs) keep(glyph);
  list.sort((a, b) => a - b);

  // Glyph ids beyond the last one drawn are left out altogether: the font simply has fewer glyphs.
  const count = (list[list.length - 1] as number) + 1;
  let glyfLength = 0;
  for (const glyph of list) glyfLength += pad4((loca[glyph + 1] as number) - (loca[glyph] as number));
  const short = glyfLength <= 0x1fffe;
  const sizes: [string, number][] = [
    ...parsed.programs.map(([tag, data]): [string, number] => [tag, data.length]),
    ['glyf', glyfLength],
    ['head', parsed.head.length],
    ['hhea', parsed.hhea.length],
    ['hmtx', 4 * count],
    ['loca', (count + 1) * (short ? 2 : 4)],
    ['maxp', parsed.maxp.length],
  ];
  sizes.sort(([a], [b]) => (a < b ? -1 : 1));
  let total = 12 + 16 * sizes.length;
  const places = new Map<string, number>();
  for (const [tag, size] of sizes) {
    places.set(tag, total);
    total += pad4(size);
  }
  const out = Buffer.alloc(total);
  const at = (tag: string) => places.get(tag) as number;

  // glyf and loca together.
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const glyfAt = at('glyf');
  const locaAt = at('loca');
  // loca in the machine's order first (filled a run of empty slots at a time), then swapped.
  const offsets = short ? new Uint16Array(count + 1) : new Uint32Array(count + 1);
  const unit = short ? 2 : 1;
  let filled = 0;
  let position = 0;
  let glyfSum = 0;
  for (const glyph of list) {
    offsets.fill(position / unit, filled, glyph + 1);
    filled = glyph + 1;
    const start = parsed.glyf + (loca[glyph] as number);
    const end = parsed.glyf + (loca[glyph + 1] as number);
    bytes.copy(out, glyfAt + position, start, end);
    let sum = parsed.sums[glyph] as number;
    if (sum < 0) {
      sum = checksum(view, glyfAt + position, pad4(end - start));
      parsed.sums[glyph] = sum;
    }
    glyfSum = (glyfSum + sum) >>> 0;
    position += pad4(end - start);
  }
  offsets.fill(position / unit, filled, count + 1);
  const locaBytes = Buffer.from(offsets.buffer, 0, offsets.byteLength);
  if (littleEndian) {
    if (short) locaBytes.swap16();
    else locaBytes.swap32();
  }
  locaBytes.copy(out, locaAt);

  // hmtx: a full metric for every glyph, zero for the empty slots.
  const hmtxAt = at('hmtx');
  const { hmtx, longMetrics } = parsed;
  for (const glyph of list) {
    const long = glyph < longMetrics;
    view.setUint16(hmtxAt + 4 * glyph, bytes.readUInt16BE(hmtx + 4 * (long ? glyph : longMetrics - 1)));
    const bearing = long ? hmtx + 4 * glyph + 2 : hmtx + 4 * longMetrics + 2 * (glyph - longMetrics);
    view.setUint16(hmtxAt + 4 * glyph + 2, bytes.readUInt16BE(bearing));
  }

  const headAt = at('head');
  parsed.head.copy(out, headAt);
  view.setUint32(headAt + 8, 0);
  view.setInt16(headAt + 50, short ? 0 : 1);
  parsed.hhea.copy(out, at('hhea'));
  view.setUint16(at('hhea') + 34, count);
  parsed.maxp.copy(out, at('maxp'));
  view.setUint16(at('maxp') + 4, count);
  for (const [tag, data] of parsed.programs) data.copy(out, at(tag));

  // The table directory, with each table's checksum, then the whole file's in head: the sum of the
  // directory's words and the tables' checksums.
  view.setUint32(0, 0x00010000);
  view.setUint16(4, sizes.length);
  let power = 1;
  let log = 0;
  while (power * 2 <= sizes.length) {
    power *= 2;
    log++;
  }
  view.setUint16(6, 16 * power);
  view.setUint16(8, log);
  view.setUint16(10, 16 * sizes.length - 16 * power);
  let fileSum = 0;
  sizes.forEach(([tag, size], index) => {
    const entry = 12 + 16 * index;
    const sum = tag === 'glyf' ? glyfSum : checksum(view, at(tag), pad4(size));
    fileSum = (fileSum + sum) >>> 0;
    out.write(tag, entry, 'latin1');
    view.setUint32(entry + 4, sum);
    view.setUint32(entry + 8, at(tag));
    view.setUint32(entry + 12, size);
  });
  fileSum = (fileSum + checksum(view, 0, 12 + 16 * sizes.length)) >>> 0;
  view.setUint32(headAt + 8, (0xb1b0afba - fileSum) >>> 0);
  return out;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function pad4(length: number): number {
  return (length + 3) & ~3;
}

function checksum(view: DataView, start: number, length: number): number {
  let sum = 0;
  for (let at = start; at < start + length; at += 4) sum = (sum + view.getUint32(at)) >>> 0;
  return sum;
}
