import { crc32, deflateSync } from 'node:zlib';

/**
 * PNG files of every colour type, written by hand for the PDF writer's tests (a canvas writes RGBA only):
 * each pixel's samples from `pixel`, rows filtered in turn with each of the five filters (None, Sub,
 * Up, Average, Paeth) so that the reader's unfiltering is exercised too.
 */
export interface PngSpec {
  width: number;
  height: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey and alpha, 6 RGBA. */
  colorType: 0 | 2 | 3 | 4 | 6;
  bitDepth?: 1 | 2 | 4 | 8 | 16;
  /** A pixel's samples (a palette index for colour type 3). */
  pixel(x: number, y: number): number[];
  palette?: number[][];
  transparency?: number[];
  interlaced?: boolean;
}

/** The image's rows as samples, unfiltered, without filter bytes (what a reader gets back). */
export function pngRows(spec: PngSpec): Buffer {
  const { width, height, colorType, pixel } = spec;
  const depth = spec.bitDepth ?? 8;
  const stride = Math.ceil((width * channels[colorType] * depth) / 8);
  const raw = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    let bit = 0;
    for (let x = 0; x < width; x++)
      for (const sample of pixel(x, y)) {
        const at = y * stride + (bit >> 3);
        if (depth === 16) raw.writeUInt16BE(sample, at);
        else raw[at] = (raw[at] as number) | (sample << (8 - depth - (bit & 7)));
        bit += depth;
      }
  }
  return raw;
}

const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function pngFile(spec: PngSpec): Buffer {
  const { width, height, colorType } = spec;
  const depth = spec.bitDepth ?? 8;
  const stride = Math.ceil((width * channels[colorType] * depth) / 8);
  const step = Math.max(1, (channels[colorType] * depth) >> 3);
  const raw = pngRows(spec);
  const filtered = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const filter = y % 5;
    filtered[y * (stride + 1)] = filter;
    for (let i = 0; i < stride; i++) {
      const value = raw[y * stride + i] as number;
      const left = i >= step ? (raw[y * stride + i - step] as number) : 0;
      const up = y > 0 ? (raw[(y - 1) * stride + i] as number) : 0;
      const corner = i >= step && y > 0 ? (raw[(y - 1) * stride + i - step] as number) : 0;
      const predicted = [0, left, up, (left + up) >> 1, paeth(left, up, corner)][filter] as number;
      filtered[y * (stride + 1) + 1 + i] = (value - predicted) & 0xff;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = depth;
  header[9] = colorType;
  header[12] = spec.interlaced ? 1 : 0;
  const chunks = [chunk('IHDR', header)];
  if (spec.palette) chunks.push(chunk('PLTE', Buffer.from(spec.palette.flat())));
  if (spec.transparency) {
    const values = spec.transparency;
    chunks.push(
      chunk(
        'tRNS',
        colorType === 3
          ? Buffer.from(values)
          : Buffer.concat(values.map((value) => Buffer.from([value >> 8, value & 0xff]))),
      ),
    );
  }
  chunks.push(chunk('IDAT', deflateSync(filtered)), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** The PNG specification's Paeth predictor, as written there. */
function paeth(left: number, up: number, corner: number): number {
  const estimate = left + up - corner;
  const [toLeft, toUp, toCorner] = [estimate - left, estimate - up, estimate - corner].map(Math.abs) as [
    number,
    number,
    number,
  ];
  if (toLeft <= toUp && toLeft <= toCorner) return left;
  return toUp <= toCorner ? up : corner;
}
