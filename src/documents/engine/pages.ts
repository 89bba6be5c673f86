import { contentWidth, documentGeometry } from '../../domain/document-geometry.js';
import type { DrawOp, FontStyle, Rgb } from './drawing.js';
import { type FontFace, fontFace } from './fonts.js';

const g = documentGeometry;

export const colors = {
  text: rgb(0x1f2328),
  muted: rgb(0x59636e),
  rule: rgb(0xd1d9e0),
  strongRule: rgb(0x818b98),
  detail: rgb(0x3d444d),
} as const;

function rgb(hex: number): Rgb {
  return [(hex >> 16) / 255, ((hex >> 8) & 0xff) / 255, (hex & 0xff) / 255];
}

/** A run of lines in one face, size and colour, set from `x`. */
export interface TextBox {
  lines: string[];
  x: number;
  font: FontStyle;
  size: number;
  color: Rgb;
}

/**
 * A line's box is its capitals' height, lines `leading` ems apart: the Typst layout's measure (text from
 * cap height to baseline, `par(leading: 0.55em)`), which the page estimate (domain/document-size.ts)
 * counts with.
 */
const leading = 0.55;

export function lineBox(face: FontFace, size: number): number {
  return (face.capHeight / face.unitsPerEm) * size;
}

export function pitch(face: FontFace, size: number): number {
  return lineBox(face, size) + leading * size;
}

/** The height of `lines` lines. */
export function linesHeight(count: number, size: number, font: FontStyle = 'regular'): number {
  const face = fontFace(font);
  return count === 0 ? 0 : lineBox(face, size) + (count - 1) * pitch(face, size);
}

/**
 * The pages being filled, top to bottom: where the next block goes, and a new page when it does not fit.
 * Spacing between blocks is the larger of the one's space below and the next's space above, and none at
 * the top of a page. A table under way has its header drawn again above every new page's text, in the
 * top margin.
 */
export class Pages {
  readonly pages: DrawOp[][] = [];
  readonly top: number = g.margins.top;
  readonly bottom: number = g.pageHeight - g.margins.bottom;
  y: number = this.top;
  #ops: DrawOp[] = [];
  #below = 0;
  /** Draws the header of the table under way ending at the given y; null outside tables. */
  continued: ((bottomY: number) => void) | null = null;

  constructor() {
    this.newPage();
  }

  newPage(): void {
    this.#ops = [];
    this.pages.push(this.#ops);
    this.y = this.top;
    this.#below = 0;
    this.continued?.(this.top);
  }

  get atTop(): boolean {
    return this.y === this.top;
  }

  fits(height: number): boolean {
    return this.y + height <= this.bottom + 0.01;
  }

  /** Space before a block; none at the top of a page. */
  space(above: number): void {
    if (!this.atTop) this.y += Math.max(above, this.#below);
    this.#below = 0;
  }

  /** Space after the block just drawn, merged with the next block's. */
  spaceBelow(below: number): void {
    this.#below = below;
  }

  /** A new page unless `height` fits below (a block kept whole); on a fresh page it goes as it is. */
  keep(height: number): void {
    if (!this.fits(height) && !this.atTop) this.newPage();
  }

  /** Line `index` of a box, the line's top at `top`. */
  drawLine(box: TextBox, index: number, top: number): void {
    const line = box.lines[index];
    if (line === undefined || line === '') return;
    this.text(box.x, top + lineBox(fontFace(box.font), box.size), box.size, box.font, box.color, line);
  }

  text(x: number, y: number, size: number, font: FontStyle, color: Rgb, text: string): void {
    this.#ops.push({ kind: 'text', x, y, size, font, color, text });
  }

  rule(
    y: number,
    width: number,
    color: Rgb,
    from = g.margins.left,
    to = g.margins.left + contentWidth,
  ): void {
    this.#ops.push({ kind: 'rule', x1: from, y1: y, x2: to, y2: y, width, color });
  }

  image(x: number, y: number, width: number, height: number, image: number): void {
    this.#ops.push({ kind: 'image', x, y, width, height, image });
  }
}
