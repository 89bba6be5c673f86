import { crc32, inflateSync } from 'node:zlib';
import { maxImagePixels } from '../../domain/file-inspection.js';
import { Undrawable } from './drawing.js';

/**
 * Reading PNG files for the PDF writer's images (documents/engine/pdf-images.ts): the header, the palette
 * and transparency chunks, the compressed pixel data as it is (PDF's FlateDecode with the PNG predictors
 * reads it unchanged), and, where PDF needs pixels (an alpha channel), the pixels unfiltered. Whatever the
 * engine does not read (16 bits a sample, interlacing) or cannot trust (a bad chunk checksum) is
 * Undrawable: the renderer then uses Typst.
 */
export interface Png {
  width: number;
  height: number;
  bitDepth: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey and alpha, 6 RGBA. */
  colorType: number;
  /** PLTE: RGB triples. */
  palette?: Buffer;
  /** tRNS as stored. */
  transparency?: Buffer;
  /** The IDAT chunks' data, joined: a zlib stream of filtered rows. */
  data: Buffer;
}

const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const channels: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function readPng(bytes: Uint8Array): Png {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (file.length < 8 + 25 || !file.subarray(0, 8).equals(signature)) throw new Undrawable('not a PNG file');
  let header: Buffer | undefined;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  const data: Buffer[] = [];
  let at = 8;
  for (;;) {
    if (at + 12 > file.length) throw new Undrawable('PNG file ends before its IEND chunk');
    const length = file.readUInt32BE(at);
    const end = at + 8 + length;
    if (end + 4 > file.length) throw new Undrawable('PNG chunk runs past the end of the file');
    const type = file.toString('latin1', at + 4, at + 8);
    if (crc32(file.subarray(at + 4, end)) !== file.readUInt32BE(end))
      throw new Undrawable(`PNG ${type} chunk fails its checksum`);
    const body = file.subarray(at + 8, end);
    if (type === 'IHDR') header = body;
    else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') transparency = body;
    else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at = end + 4;
  }
  if (header?.length !== 13 || data.length === 0) throw new Undrawable('PNG without IHDR or IDAT');
  const png: Png = {
    width: header.readUInt32BE(0),
    height: header.readUInt32BE(4),
    bitDepth: header[8] as number,
    colorType: header[9] as number,
    data: data.length === 1 ? (data[0] as Buffer) : Buffer.concat(data),
  };
  if (palette) png.palette = palette;
  if (transparency) png.transparency = transparency;
  const { width, height, bitDepth, colorType } = png;
  if (width === 0 || height === 0) throw new Undrawable('PNG of no pixels');
  // Uploads are held to this already (docs/api.md "Uploading"); a PNG with alpha is decoded whole here.
  if (width * height > maxImagePixels) throw new Undrawable(`PNG of ${width} × ${height} pixels`);
  if (header[12] !== 0) throw new Undrawable('interlaced PNG');
  if (header[10] !== 0 || header[11] !== 0) throw new Undrawable('PNG of an unknown compression or filter');
  const depths = colorType === 0 || colorType === 3 ? [1, 2, 4, 8] : [8];
  if (channels[colorType] === undefined || !depths.includes(bitDepth))
    throw new Undrawable(`PNG of colour type ${colorType} at ${bitDepth} bits a sample`);
  if (colorType === 3 && (!palette || palette.length % 3 !== 0 || palette.length === 0))
    throw new Undrawable('palette PNG without a palette');
  return png;
}

/**
 * The filtered rows, inflated: exactly what the header says the image holds, or Undrawable. Inflating
 * stops there, so a small file whose data inflates to gigabytes (a zip bomb) costs no more than its
 * image's own size; and data that does not inflate is never passed to a PDF reader as it is.
 */
export function filteredRows(png: Png): Buffer {
  const length = png.height * (rowBytes(png) + 1);
  let filtered: Buffer;
  try {
    filtered = inflateSync(png.data, { maxOutputLength: length });
  } catch {
    throw new Undrawable('PNG pixel data does not inflate to its image');
  }
  if (filtered.length < length) throw new Undrawable('PNG pixel data is short');
  return filtered;
}

/** Bytes a row takes, without its filter byte. */
export function rowBytes(png: Png): number {
  return Math.ceil((png.width * (channels[png.colorType] as number) * png.bitDepth) / 8);
}

/** The rows of samples, unfiltered, without filter bytes: height × rowBytes bytes. */
export function pixels(png: Png): Buffer {
  const filtered = filteredRows(png);
  const stride = rowBytes(png);
  const step = Math.max(1, ((channels[png.colorType] as number) * png.bitDepth) >> 3);
  const out = Buffer.alloc(png.height * stride);
  // The row above the first is zeros; each row's first `step` bytes have no left neighbour. The loops
  // are written out per filter, without a branch a byte: this is the writer's slowest part for images.
  const zeros = new Uint8Array(stride);
  for (let row = 0; row < png.height; row++) {
    const from = row * (stride + 1) + 1;
    const line = out.subarray(row * stride, (row + 1) * stride);
    const data = filtered.subarray(from, from + stride);
    const up = row === 0 ? zeros : out.subarray((row - 1) * stride, row * stride);
    unfilter(filtered[from - 1] as number, data, line, up, step);
  }
  return out;
}

function unfilter(filter: number, data: Uint8Array, line: Uint8Array, up: Uint8Array, step: number): void {
  const length = data.length;
  const first = Math.min(step, length);
  switch (filter) {
    case 0:
      line.set(data);
      return;
    case 1:
      for (let i = 0; i < first; i++) line[i] = data[i] as number;
      for (let i = step; i < length; i++) line[i] = ((data[i] as number) + (line[i - step] as number)) & 0xff;
      return;
    case 2:
      for (let i = 0; i < length; i++) line[i] = ((data[i] as number) + (up[i] as number)) & 0xff;
      return;
    case 3:
      for (let i = 0; i < first; i++) line[i] = ((data[i] as number) + ((up[i] as number) >> 1)) & 0xff;
      for (let i = step; i < length; i++)
        line[i] = ((data[i] as number) + (((line[i - step] as number) + (up[i] as number)) >> 1)) & 0xff;
      return;
    case 4:
      // With no left neighbour, Paeth predicts the byte above.
      for (let i = 0; i < first; i++) line[i] = ((data[i] as number) + (up[i] as number)) & 0xff;
      for (let i = step; i < length; i++) {
        const left = line[i - step] as number;
        const above = up[i] as number;
        const corner = up[i - step] as number;
        const toLeft = Math.abs(above - corner);
        const toAbove = Math.abs(left - corner);
        const toCorner = Math.abs(left + above - 2 * corner);
        const predicted =
          toLeft <= toAbove && toLeft <= toCorner ? left : toAbove <= toCorner ? above : corner;
        line[i] = ((data[i] as number) + predicted) & 0xff;
      }
      return;
    default:
      throw new Undrawable(`PNG row filter ${filter}`);
  }
}
