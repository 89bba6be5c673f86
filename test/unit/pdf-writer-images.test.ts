import { crc32, deflateSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Drawing,
  type DrawOp,
  type ImageSource,
  Undrawable,
} from '../../src/documents/engine/drawing.js';
import { writePdf } from '../../src/documents/engine/pdf-writer.js';
import { imagesDrawn } from '../helpers/pdf-text.js';
import { pngFile } from '../helpers/png-files.js';
import { ensurePoppler, poppler, renderedPage } from '../helpers/poppler.js';

/**
 * Images, rules and colours in the engine's PDF writer (documents/engine/pdf-writer.ts), rendered by
 * poppler's pdftoppm at 72 dpi (a point a pixel) and read back pixel by pixel.
 */

/** A 200 × 200 point page drawing `image` over the square from (50, 50) to (150, 150). */
function imageDrawing(image: ImageSource, pages = 1): Drawing {
  const op: DrawOp = { kind: 'image', x: 50, y: 50, width: 100, height: 100, image: 0 };
  return {
    width: 200,
    height: 200,
    pages: Array.from({ length: pages }, () => [op]),
    images: [image],
    title: 'Images',
    author: 'Rebuttal',
    created: new Date('2026-10-06T09:30:00Z'),
  };
}

const png = (bytes: Buffer): ImageSource => ({ type: 'png', bytes });

/** The pixels at the image's left and right quarters (the page is white around it). */
async function leftAndRight(image: ImageSource): Promise<number[][]> {
  const page = await renderedPage(writePdf(imageDrawing(image)));
  expect(page.stderr).toBe('');
  expect([page.width, page.height]).toEqual([200, 200]);
  expect(page.pixel(20, 20)).toEqual([255, 255, 255, 255]);
  return [page.pixel(75, 100), page.pixel(125, 100)];
}

/** Left half one value, right half another. */
const halves =
  (left: number[], right: number[]) =>
  (x: number): number[] =>
    x < 20 ? left : right;

beforeAll(ensurePoppler);

describe('writePdf: images', () => {
  it('draws an RGB PNG (its compressed rows as they are)', async () => {
    const file = pngFile({
      width: 40,
      height: 30,
      colorType: 2,
      pixel: halves([200, 40, 60], [10, 120, 250]),
    });
    expect(await leftAndRight(png(file))).toEqual([
      [200, 40, 60, 255],
      [10, 120, 250, 255],
    ]);
  });

  it('draws a grey PNG, at 8 bits and at 1', async () => {
    const grey = pngFile({ width: 40, height: 30, colorType: 0, pixel: halves([128], [30]) });
    expect(await leftAndRight(png(grey))).toEqual([
      [128, 128, 128, 255],
      [30, 30, 30, 255],
    ]);
    const bits = pngFile({ width: 40, height: 30, colorType: 0, bitDepth: 1, pixel: halves([0], [1]) });
    expect(await leftAndRight(png(bits))).toEqual([
      [0, 0, 0, 255],
      [255, 255, 255, 255],
    ]);
  });

  it('draws a grey or RGB PNG with a transparent colour (tRNS) through a colour-key mask, undecoded', async () => {
    const rgb = pngFile({
      width: 40,
      height: 30,
      colorType: 2,
      transparency: [10, 120, 250],
      pixel: halves([200, 40, 60], [10, 120, 250]),
    });
    expect(await leftAndRight(png(rgb))).toEqual([
      [200, 40, 60, 255],
      [255, 255, 255, 255],
    ]);
    const grey = pngFile({
      width: 40,
      height: 30,
      colorType: 0,
      transparency: [128],
      pixel: halves([128], [30]),
    });
    expect(await leftAndRight(png(grey))).toEqual([
      [255, 255, 255, 255],
      [30, 30, 30, 255],
    ]);
  });

  it('draws a palette PNG at 4 bits a pixel, and one whose palette has a transparent entry', async () => {
    const palette = [
      [250, 200, 0],
      [0, 90, 40],
      [70, 0, 160],
    ];
    const file = pngFile({
      width: 40,
      height: 30,
      colorType: 3,
      bitDepth: 4,
      palette,
      pixel: halves([2], [1]),
    });
    expect(await leftAndRight(png(file))).toEqual([
      [70, 0, 160, 255],
      [0, 90, 40, 255],
    ]);
    const transparent = pngFile({
      width: 40,
      height: 30,
      colorType: 3,
      bitDepth: 4,
      palette,
      transparency: [0],
      pixel: halves([0], [1]),
    });
    expect(await leftAndRight(png(transparent))).toEqual([
      [255, 255, 255, 255],
      [0, 90, 40, 255],
    ]);
  });

  it('draws an RGBA PNG from a canvas with its alpha as a soft mask', async () => {
    const canvas = createCanvas(40, 30);
    const context = canvas.getContext('2d');
    context.fillStyle = 'rgb(0, 128, 0)';
    context.fillRect(0, 0, 20, 30);
    expect(await leftAndRight(png(canvas.toBuffer('image/png')))).toEqual([
      [0, 128, 0, 255],
      [255, 255, 255, 255],
    ]);
  });

  it('draws a grey and alpha PNG with its alpha as a soft mask', async () => {
    const file = pngFile({ width: 40, height: 30, colorType: 4, pixel: halves([60, 255], [0, 0]) });
    expect(await leftAndRight(png(file))).toEqual([
      [60, 60, 60, 255],
      [255, 255, 255, 255],
    ]);
  });

  it('draws a JPEG as it is', async () => {
    const canvas = createCanvas(40, 30);
    const context = canvas.getContext('2d');
    context.fillStyle = 'rgb(220, 30, 30)';
    context.fillRect(0, 0, 20, 30);
    context.fillStyle = 'rgb(30, 30, 220)';
    context.fillRect(20, 0, 20, 30);
    const jpeg = canvas.toBuffer('image/jpeg', 95);
    const pdf = writePdf(imageDrawing({ type: 'jpg', bytes: jpeg }));
    expect(pdf.includes(jpeg)).toBe(true);
    const [left, right] = (await leftAndRight({ type: 'jpg', bytes: jpeg })) as [number[], number[]];
    // JPEG is lossy: near the colour drawn.
    for (const [got, want] of [
      [left, [220, 30, 30]],
      [right, [30, 30, 220]],
    ] as const)
      for (let channel = 0; channel < 3; channel++)
        expect(Math.abs((got[channel] as number) - (want[channel] as number))).toBeLessThan(8);
  });

  it('reads a JPEG’s colour space from its frame header: grey, RGB, and CMYK inverted as Adobe writes it', () => {
    const dictionary = (components: number) =>
      writePdf(imageDrawing({ type: 'jpg', bytes: jpegHeader(0xc0, 8, components) }))
        .toString('latin1')
        .match(/\/Subtype \/Image [^>]*/)?.[0];
    expect(dictionary(1)).toBe(
      '/Subtype /Image /Width 40 /Height 30 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length 34',
    );
    expect(dictionary(3)).toContain('/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter');
    expect(dictionary(4)).toContain(
      '/ColorSpace /DeviceCMYK /BitsPerComponent 8 /Decode [1 0 1 0 1 0 1 0] /Filter',
    );
    for (const [what, bytes] of [
      ['12 bits a sample', jpegHeader(0xc1, 12, 3)],
      ['lossless', jpegHeader(0xc3, 8, 3)],
      ['arithmetic coding', jpegHeader(0xc9, 8, 3)],
      ['two components', jpegHeader(0xc0, 8, 2)],
      ['no scan after the frame', jpegHeader(0xc0, 8, 3).subarray(0, -13)],
    ] as const)
      expect(() => writePdf(imageDrawing({ type: 'jpg', bytes })), what).toThrow(Undrawable);
  });

  it('writes an image drawn on several pages once', async () => {
    const pdf = writePdf(
      imageDrawing(png(pngFile({ width: 4, height: 4, colorType: 2, pixel: () => [1, 2, 3] })), 3),
    );
    expect(pdf.toString('latin1').split('/Subtype /Image').length - 1).toBe(1);
    expect(await imagesDrawn(pdf)).toEqual([1, 1, 1]);
    expect(poppler('pdfinfo', pdf).stderr).toBe('');
  });

  it('refuses what it does not read, as Undrawable, for the renderer to use Typst', () => {
    const base = { width: 8, height: 8, pixel: () => [100, 100, 100] } as const;
    const refused: [string, Uint8Array, 'png' | 'jpg'][] = [
      ['an interlaced PNG', pngFile({ ...base, colorType: 2, interlaced: true }), 'png'],
      [
        'a 16-bit PNG',
        pngFile({ ...base, colorType: 2, bitDepth: 16, pixel: () => [1000, 2000, 3000] }),
        'png',
      ],
      ['a PNG with a damaged chunk', damaged(pngFile({ ...base, colorType: 2 }), 40), 'png'],
      ['a PNG cut short', pngFile({ ...base, colorType: 2 }).subarray(0, 50), 'png'],
      ['not a PNG', Buffer.from('GIF89a not a png at all, really'), 'png'],
      ['not a JPEG', Buffer.from('not a jpeg'), 'jpg'],
      ['a JPEG cut before its frame', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a]), 'jpg'],
    ];
    for (const [what, bytes, type] of refused)
      expect(() => writePdf(imageDrawing({ type, bytes })), what).toThrow(Undrawable);
    // Pixel data that is not what the header says, whether the writer decodes it or copies it.
    const rgb = pngFile({ ...base, colorType: 2 });
    const rgba = pngFile({ ...base, colorType: 6, pixel: () => [1, 2, 3, 4] });
    for (const [what, file, data] of [
      ['copied rows that do not inflate', rgb, Buffer.from('not zlib data at all')],
      ['copied rows that are short', rgb, deflateSync(Buffer.alloc(10))],
      ['decoded rows that do not inflate', rgba, Buffer.from('not zlib data at all')],
    ] as const)
      expect(() => writePdf(imageDrawing(png(withIdat(file, data)))), what).toThrow(Undrawable);
    // Before its pixels are inflated: a small file may claim a huge image.
    const huge = resized(pngFile({ ...base, colorType: 6, pixel: () => [1, 2, 3, 4] }), 6000, 5000);
    expect(() => writePdf(imageDrawing(png(huge)))).toThrow(new Undrawable('PNG of 6000 × 5000 pixels'));
  });

  it('inflates a PNG no further than its image: a small file of rows that inflate to 200 MB is refused', () => {
    const bomb = deflateSync(Buffer.alloc(200 * 2 ** 20), { level: 9 });
    expect(bomb.length).toBeLessThan(300_000);
    for (const colorType of [2, 6] as const) {
      const file = withIdat(pngFile({ width: 8, height: 8, colorType, pixel: () => [1, 2, 3, 4] }), bomb);
      const before = process.memoryUsage().rss;
      expect(() => writePdf(imageDrawing(png(file)))).toThrow(
        new Undrawable('PNG pixel data does not inflate to its image'),
      );
      expect(process.memoryUsage().rss - before).toBeLessThan(100 * 2 ** 20);
    }
  });
});

describe('writePdf: rules and colours', () => {
  it('strokes rules at their width in their colour and fills text in its colour', async () => {
    const drawing: Drawing = {
      ...imageDrawing(png(pngFile({ width: 1, height: 1, colorType: 0, pixel: () => [0] }))),
      pages: [
        [
          { kind: 'rule', x1: 20, y1: 40, x2: 180, y2: 40, width: 10, color: [1, 0, 0] },
          { kind: 'rule', x1: 100, y1: 60, x2: 100, y2: 190, width: 6, color: [0, 0.5, 1] },
          { kind: 'text', x: 20, y: 180, size: 100, font: 'bold', color: [0, 0.6, 0], text: 'I' },
        ],
      ],
    };
    const page = await renderedPage(writePdf(drawing));
    expect(page.stderr).toBe('');
    expect(page.pixel(60, 40)).toEqual([255, 0, 0, 255]);
    expect(page.pixel(60, 50)).toEqual([255, 255, 255, 255]);
    expect(page.pixel(100, 150)).toEqual([0, 128, 255, 255]);
    expect(page.pixel(33, 150)).toEqual([0, 153, 0, 255]);
  });
});

function damaged(file: Buffer, at: number): Buffer {
  const copy = Buffer.from(file);
  copy[at] = (copy[at] as number) ^ 0xff;
  return copy;
}

/** The start of a JPEG (an APP0 segment, then a frame header of `marker`), 40 × 30 pixels, and its end. */
function jpegHeader(marker: number, precision: number, components: number): Buffer {
  const frame = [
    precision,
    0,
    30,
    0,
    40,
    components,
    ...Array.from({ length: components }, (_, c) => [c + 1, 0x11, 0]).flat(),
  ];
  return Buffer.from([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0,
    4,
    0,
    0,
    0xff,
    marker,
    0,
    frame.length + 2,
    ...frame,
    // A scan header (one component) and a byte of scan data: the writer wants a scan after the frame.
    0xff,
    0xda,
    0,
    8,
    1,
    1,
    0,
    0,
    0x3f,
    0,
    0x00,
    0xff,
    0xd9,
  ]);
}

/** `file` with its pixel data (its IDAT chunks) replaced by `data`, in one chunk of a right checksum. */
function withIdat(file: Buffer, data: Buffer): Buffer {
  const chunks: Buffer[] = [file.subarray(0, 8)];
  let idat = false;
  for (let at = 8; at < file.length; ) {
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (type !== 'IDAT') chunks.push(file.subarray(at, end));
    else if (!idat) {
      idat = true;
      const chunk = Buffer.alloc(12 + data.length);
      chunk.writeUInt32BE(data.length, 0);
      chunk.write('IDAT', 4, 'latin1');
      data.copy(chunk, 8);
      chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
      chunks.push(chunk);
    }
    at = end;
  }
  return Buffer.concat(chunks);
}

/** `file` with its header claiming another size (the checksum made right, so only the size is wrong). */
function resized(file: Buffer, width: number, height: number): Buffer {
  const copy = Buffer.from(file);
  copy.writeUInt32BE(width, 16);
  copy.writeUInt32BE(height, 20);
  copy.writeUInt32BE(crc32(copy.subarray(12, 29)), 29);
  return copy;
}
