import { contentHeight } from '../../domain/document-geometry.js';
import type { Rgb } from './drawing.js';
import { fontFace } from './fonts.js';
import { lineBox, type Pages, pitch, type TextBox } from './pages.js';

/** A row's space above and below its text (the Typst layout's `inset: (y: 3pt)`). */
const rowInset = 3;

export interface RowRule {
  width: number;
  color: Rgb;
}

/**
 * Boxes side by side (a row of a table, a label and its value), with a rule under them.
 *
 * A row surely shorter than a third of a page is kept whole: it moves to the next page rather than split.
 * A longer one flows line by line onto the next pages, or it could not be drawn at all.
 */
export class Row {
  readonly lines: number;
  readonly height: number;

  constructor(
    readonly boxes: TextBox[],
    readonly size: number,
    readonly rule: RowRule | null,
    readonly inset: { top: number; bottom: number } = { top: rowInset, bottom: rowInset },
    /** Text that flows line by line whatever its length (a paragraph), never kept whole. */
    readonly flows = false,
  ) {
    this.lines = Math.max(1, ...boxes.map((box) => box.lines.length));
    const face = fontFace('regular');
    this.height = inset.top + lineBox(face, size) + (this.lines - 1) * pitch(face, size) + inset.bottom;
  }

  get keptWhole(): boolean {
    return !this.flows && this.height < contentHeight / 3;
  }

  /** The least of the row that must fit where it starts: all of it when kept whole, else its first line. */
  get firstPiece(): number {
    return this.keptWhole ? this.height : this.inset.top + lineBox(fontFace('regular'), this.size);
  }

  draw(pages: Pages): void {
    if (this.keptWhole) pages.keep(this.height);
    else pages.keep(this.firstPiece);
    const face = fontFace('regular');
    const box = lineBox(face, this.size);
    const step = pitch(face, this.size);
    // The lines on one page, drawn box by box (a cell's lines together, so that text extracted from the
    // PDF reads a cell whole, then the next), then the next page's.
    let first = 0;
    let top = pages.y + this.inset.top;
    for (let index = 0; index < this.lines; index++) {
      const lineTop = top + (index - first) * step;
      if (lineTop + box > pages.bottom + 0.01 && !this.keptWhole && index > first) {
        this.#drawLines(pages, first, index, top, step);
        pages.newPage();
        first = index;
        top = pages.y + this.inset.top;
      }
    }
    this.#drawLines(pages, first, this.lines, top, step);
    pages.y = top + (this.lines - 1 - first) * step + box + this.inset.bottom;
    if (this.rule) pages.rule(pages.y, this.rule.width, this.rule.color);
  }

  #drawLines(pages: Pages, from: number, to: number, top: number, step: number): void {
    for (const box of this.boxes)
      for (let index = from; index < to; index++) pages.drawLine(box, index, top + (index - from) * step);
  }
}
