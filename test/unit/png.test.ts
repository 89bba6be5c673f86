import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Undrawable } from '../../src/documents/engine/drawing.js';
import { pixels, readPng } from '../../src/documents/engine/png.js';
import { type PngSpec, pngFile, pngRows } from '../helpers/png-files.js';

/**
 * The PDF writer's PNG reader (documents/engine/png.ts): rows unfiltered exactly, whichever of the five
 * filters each row uses, for every colour type and depth it reads.
 */

/** Samples that look random (a fixed hash of the position), so that every filter's prediction and
 * Paeth's tie-breaks matter. */
const noise = (channels: number, depth: number) => (x: number, y: number) =>
  Array.from({ length: channels }, (_, channel) => {
    const hash = Math.imul((x * 73856093) ^ (y * 19349663) ^ (channel * 83492791), 0x9e3779b1) >>> 0;
    return (hash >>> 13) % 2 ** depth;
  });

describe('pixels', () => {
  const cases: [string, PngSpec][] = [
    ['RGBA', { width: 64, height: 40, colorType: 6, pixel: noise(4, 8) }],
    ['grey and alpha', { width: 17, height: 10, colorType: 4, pixel: noise(2, 8) }],
    ['RGB', { width: 9, height: 10, colorType: 2, pixel: noise(3, 8) }],
    [
      'palette at 2 bits',
      {
        width: 13,
        height: 10,
        colorType: 3,
        bitDepth: 2,
        palette: [
          [0, 0, 0],
          [9, 9, 9],
          [1, 2, 3],
          [4, 5, 6],
        ],
        pixel: noise(1, 2),
      },
    ],
    ['grey at 1 bit', { width: 19, height: 10, colorType: 0, bitDepth: 1, pixel: noise(1, 1) }],
  ];

  it.each(cases)('gives back the rows of %s exactly, through all five filters', (_, spec) => {
    expect(pixels(readPng(pngFile(spec))).equals(pngRows(spec))).toBe(true);
  });

  it('refuses a row filter that does not exist', () => {
    const spec: PngSpec = { width: 4, height: 2, colorType: 0, pixel: () => [7] };
    const png = readPng(pngFile(spec));
    const broken = { ...png, data: deflateSync(Buffer.from([5, 1, 2, 3, 4, 0, 1, 2, 3, 4])) };
    expect(() => pixels(broken)).toThrow(Undrawable);
    expect(() => pixels({ ...png, data: Buffer.from('not zlib') })).toThrow(Undrawable);
  });
});
