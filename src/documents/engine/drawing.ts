/**
 * What the document engine's layout (documents/engine/layout.ts) hands its PDF writer
 * (documents/engine/pdf-writer.ts): pages of drawing operations, in points, measured from the page's
 * top-left corner (the writer turns them into PDF's bottom-up coordinates). Text is always a string of
 * characters the fonts have (documents/engine/fonts.ts decides that before layout begins): the writer
 * never sees markup, only glyphs to place.
 */

export type FontStyle = 'regular' | 'bold';

/** A colour as three channels from 0 to 1. */
export type Rgb = readonly [number, number, number];

/** One line of text, drawn from its left end on its baseline. */
export interface TextOp {
  kind: 'text';
  x: number;
  /** The baseline, from the top of the page. */
  y: number;
  size: number;
  font: FontStyle;
  color: Rgb;
  text: string;
}

/** A straight line (a table's rules). */
export interface RuleOp {
  kind: 'rule';
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  width: number;
  color: Rgb;
}

/** An image, its top-left corner at (x, y), scaled to width × height. */
export interface ImageOp {
  kind: 'image';
  x: number;
  y: number;
  width: number;
  height: number;
  /** Index into the drawing's `images`. */
  image: number;
}

export type DrawOp = TextOp | RuleOp | ImageOp;

/** An image's encoded bytes, as the merchant uploaded them (the writer decodes what it must). */
export interface ImageSource {
  type: 'png' | 'jpg';
  bytes: Uint8Array;
}

export interface Drawing {
  width: number;
  height: number;
  pages: DrawOp[][];
  images: ImageSource[];
  /** The document's information dictionary. */
  title: string;
  author: string;
  /** The file's creation date (never the clock: the same drawing gives the same bytes). */
  created: Date;
}

/**
 * Thrown when the engine cannot draw what it was given (an image encoding it does not read, say): the
 * renderer then lays the document out with Typst instead (documents/pdf.ts).
 */
export class Undrawable extends Error {}
