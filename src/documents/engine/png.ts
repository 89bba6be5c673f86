import { crc32, inflateSync } from 'node:zlib';
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
  if (width === 0 || height === 0 || width > 0x7fff_ffff || height > 0x7fff_ffff)
    throw new Undrawable('PNG of no pixels');
  if (header[12] !== 0) throw new Undrawable('interlaced PNG');
  if (header[10] !== 0 || header[11] !== 0) throw new Undrawable('PNG of an unknown compression or filter');
  const depths = colorType === 0 || colorType === 3 ? [1, 2, 4, 8] : [8];
  if (channels[colorType] === undefined || !depths.includes(bitDepth))
    throw new Undrawable(`PNG of colour type ${colorType} at ${bitDepth} bits a sample`);
  if (colorType === 3 && (!palette || palette.length % 3 !== 0 || palette.length === 0))
    throw new Undrawable('palette PNG without a palette');
  return png;
}

/** Bytes a row takes, without its filter byte. */
export function rowBytes(png: Png): number {
  return Math.ceil((png.width * (channels[png.colorType] as number) * png.bitDepth) / 8);
}

/** The rows of samples, unfiltered, without filter bytes: height × rowBytes bytes. */
export function pixels(png: Png): Buffer {
  let filtered: Buffer;
  try {
    filtered = inflateSync(png.data);
  } catch {
    throw new Undrawable('PNG pixel data does not inflate');
  }
  const stride = rowBytes(png);
  if (filtered.length < png.height * (stride + 1)) throw new Undrawable('PNG pixel data is short');
  const step = Math.max(1, ((channels[png.colorType] as number) * png.bitDepth) >> 3);
  const out = Buffer.alloc(png.height * stride);
  for (let row = 0; row < png.height; row++) {
    const filter = filtered[row * (stride + 1)];
    const from = row * (stride + 1) + 1;
    const to = row * stride;
    const above = to - stride;
    switch (filter) {
      case 0:
        filtered.copy(out, to, from, from + stride);
        break;
      case 1:
        for (let i = 0; i < stride; i++)
          out[to + i] =
            ((filtered[from + i] as number) + (i >= step ? (out[to + i - step] as number) : 0)) & 0xff;
        break;
      case 2:
        for (let i = 0; i < stride; i++)
          out[to + i] = ((filtered[from + i] as number) + (row > 0 ? (out[above + i] as number) : 0)) & 0xff;
        break;
      case 3:
        for (let i = 0; i < stride; i++) {
          const left = i >= step ? (out[to + i - step] as number) : 0;
          const up = row > 0 ? (out[above + i] as number) : 0;
          out[to + i] = ((filtered[from + i] as number) + ((left + up) >> 1)) & 0xff;
        }
        break;
      case 4:
        for (let i = 0; i < stride; i++) {
          const left = i >= step ? (out[to + i - step] as number) : 0;
          const up = row > 0 ? (out[above + i] as number) : 0;
          const corner = i >= step && row > 0 ? (out[above + i - step] as number) : 0;
          out[to + i] = ((filtered[from + i] as number) + paeth(left, up, corner)) & 0xff;
        }
        break;
      default:
        throw new Undrawable(`PNG row filter ${filter}`);
    }
  }
  return out;
}

function paeth(left: number, up: number, corner: number): number {
  const estimate = left + up - corner;
  const toLeft = Math.abs(estimate - left);
  const toUp = Math.abs(estimate - up);
  const toCorner = Math.abs(estimate - corner);
  if (toLeft <= toUp && toLeft <= toCorner) return left;
  return toUp <= toCorner ? up : corner;
}
