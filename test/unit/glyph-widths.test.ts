import { describe, expect, it } from 'vitest';
import { drawable, fontFace } from '../../src/documents/engine/fonts.js';
import { glyphWidth } from '../../src/domain/glyph-widths.js';

/**
 * The size measure's widths (domain/glyph-widths.ts) are never less than what the faces draw: every
 * character the document engine draws, from the faces' own advances.
 */
describe('glyphWidth', () => {
  it('is at least the wider face’s advance for every character the document engine draws', () => {
    const regular = fontFace('regular');
    const bold = fontFace('bold');
    const narrow: string[] = [];
    let checked = 0;
    for (let code = 0x20; code < 0x110000; code++) {
      if (code >= 0xd800 && code < 0xe000) continue;
      if (regular.glyph(code) === 0 || !drawable(String.fromCodePoint(code))) continue;
      checked += 1;
      const advance = Math.max(regular.advanceOf(regular.glyph(code)), bold.advanceOf(bold.glyph(code)));
      if (glyphWidth(code) * regular.unitsPerEm < advance) narrow.push(`U+${code.toString(16)} ${advance}`);
    }
    expect(narrow).toEqual([]);
    expect(checked).toBeGreaterThan(2500);
  });

  it.each([
    ['a space', ' ', 0.26],
    ['a tab, drawn as a space', '\t', 0.26],
    ['W, the widest capital', 'W', 0.97],
    ['i', 'i', 0.3],
    ['Ԫ, in the widest Cyrillic block', 'Ԫ', 1.52],
    ['a Chinese character (Typst draws it)', '中', 1],
    ['the per mille sign, wider than an em', '‰', 1.7],
    ['the three-em dash', '⸻', 3],
  ])('counts %s', (_, character, ems) => {
    expect(glyphWidth(character.codePointAt(0) as number)).toBe(ems);
  });
});
