import { describe, expect, it } from 'vitest';
import { subsetFont } from '../../src/documents/engine/font-subset.js';
import { fontFace } from '../../src/documents/engine/fonts.js';

/**
 * The TrueType subsets the engine's PDF writer embeds (documents/engine/font-subset.ts): the glyphs asked
 * for at their own ids, glyph 0 and composite glyphs' components, the tables a PDF reader needs, and the
 * checksums a strict reader checks.
 */

interface Table {
  offset: number;
  length: number;
  checksum: number;
}

function tablesOf(file: Buffer): Map<string, Table> {
  const tables = new Map<string, Table>();
  for (let index = 0; index < file.readUInt16BE(4); index++) {
    const at = 12 + 16 * index;
    tables.set(file.toString('latin1', at, at + 4), {
      checksum: file.readUInt32BE(at + 4),
      offset: file.readUInt32BE(at + 8),
      length: file.readUInt32BE(at + 12),
    });
  }
  return tables;
}

function sum(file: Buffer, start: number, length: number): number {
  let total = 0;
  for (let at = start; at < start + length; at += 4) total = (total + file.readUInt32BE(at)) >>> 0;
  return total;
}

/** The glyph ids whose outline the subset keeps (a non-empty loca entry). */
function glyphsIn(file: Buffer): number[] {
  const tables = tablesOf(file);
  const head = tables.get('head') as Table;
  const loca = tables.get('loca') as Table;
  const short = file.readInt16BE(head.offset + 50) === 0;
  const count = file.readUInt16BE((tables.get('maxp') as Table).offset + 4);
  const offset = (glyph: number) =>
    short ? 2 * file.readUInt16BE(loca.offset + 2 * glyph) : file.readUInt32BE(loca.offset + 4 * glyph);
  const kept: number[] = [];
  for (let glyph = 0; glyph < count; glyph++) if (offset(glyph + 1) > offset(glyph)) kept.push(glyph);
  return kept;
}

const regular = fontFace('regular');
const glyphOf = (character: string) => regular.glyph(character.codePointAt(0) as number);

describe('subsetFont', () => {
  it('keeps the glyphs drawn, glyph 0 and the components of composite ones, at their own ids', () => {
    // "ń" (glyph 261) is a composite of "n" (81) and the acute accent (118); "Ł" (258) a simple glyph.
    expect([glyphOf('ń'), glyphOf('n'), glyphOf('´'), glyphOf('Ł')]).toEqual([261, 81, 118, 258]);
    expect(glyphsIn(subsetFont(regular, [258, 261]))).toEqual([0, 81, 118, 258, 261]);
  });

  it('has only the tables a PDF reader needs, with a short loca when it fits', () => {
    const file = subsetFont(regular, [...'Hello'].map(glyphOf));
    expect([...tablesOf(file).keys()]).toEqual(['glyf', 'head', 'hhea', 'hmtx', 'loca', 'maxp', 'prep']);
    expect(file.readInt16BE((tablesOf(file).get('head') as Table).offset + 50)).toBe(0);
    const count = glyphOf('o') + 1;
    expect(file.readUInt16BE((tablesOf(file).get('maxp') as Table).offset + 4)).toBe(count);
    expect(file.readUInt16BE((tablesOf(file).get('hhea') as Table).offset + 34)).toBe(count);
  });

  it('writes a long loca when the glyphs outgrow the short one, every outline in its place', () => {
    const all = Array.from({ length: regular.glyphCount }, (_, glyph) => glyph);
    const file = subsetFont(regular, all);
    expect(file.readInt16BE((tablesOf(file).get('head') as Table).offset + 50)).toBe(1);
    // The face's own glyphs with an outline (a non-empty loca entry; its loca is long).
    const loca = (regular.tables.get('loca') as { offset: number }).offset;
    const outlined = all.filter(
      (glyph) =>
        regular.bytes.readUInt32BE(loca + 4 * glyph + 4) > regular.bytes.readUInt32BE(loca + 4 * glyph),
    );
    expect(glyphsIn(file)).toEqual(outlined);
    expect(sum(file, 0, file.length)).toBe(0xb1b0afba);
  });

  it('keeps each glyph’s advance in hmtx', () => {
    const file = subsetFont(regular, [glyphOf('W'), glyphOf('i')]);
    const hmtx = (tablesOf(file).get('hmtx') as Table).offset;
    for (const glyph of [glyphOf('W'), glyphOf('i')])
      expect(file.readUInt16BE(hmtx + 4 * glyph)).toBe(regular.advanceOf(glyph));
  });

  it('gives every table its checksum and the file its checksum adjustment', () => {
    const bold = fontFace('bold');
    const glyphs = [...'Łukasz Zieliński Ёлка ά'].map((c) => bold.glyph(c.codePointAt(0) as number));
    const file = subsetFont(bold, glyphs);
    for (const [tag, table] of tablesOf(file)) {
      const head = tag === 'head' ? file.readUInt32BE(table.offset + 8) : 0;
      expect((sum(file, table.offset, (table.length + 3) & ~3) - head) >>> 0, tag).toBe(table.checksum);
    }
    expect(sum(file, 0, file.length)).toBe(0xb1b0afba);
  });

  it('writes the same subset the same way every time', () => {
    const glyphs = [...'Dispute'].map(glyphOf);
    expect(subsetFont(regular, glyphs).equals(subsetFont(regular, [...glyphs].reverse()))).toBe(true);
  });
});
