import { deflateSync } from 'node:zlib';
import { type ImageSource, Undrawable } from './drawing.js';
import type { PdfObjects } from './pdf-objects.js';
import { filteredRows, type Png, pixels, readPng, rowBytes } from './png.js';

/**
 * An uploaded image as a PDF image XObject, decoding no more than PDF needs: a JPEG as it is
 * (DCTDecode), a PNG without alpha as its own compressed rows (FlateDecode with the PNG predictors), and
 * only a PNG with an alpha channel (or a transparent palette) inflated, to split its alpha into a soft
 * mask. Returns the XObject's number.
 */
export function writeImage(objects: PdfObjects, source: ImageSource, level: number): number {
  return source.type === 'jpg' ? writeJpeg(objects, source.bytes) : writePng(objects, source.bytes, level);
}

function writeJpeg(objects: PdfObjects, bytes: Uint8Array): number {
  const { width, height, components } = readJpeg(bytes);
  const space = ({ 1: '/DeviceGray', 3: '/DeviceRGB', 4: '/DeviceCMYK' } as Record<number, string>)[
    components
  ];
  if (!space) throw new Undrawable(`JPEG of ${components} components`);
  // Adobe's CMYK JPEGs (the only kind there is in practice) store their channels inverted.
  const decode = components === 4 ? ' /Decode [1 0 1 0 1 0 1 0]' : '';
  const number = objects.allocate();
  objects.stream(
    number,
    `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace ${space} ` +
      `/BitsPerComponent 8${decode} /Filter /DCTDecode`,
    bytes,
  );
  return number;
}

/** The frame header (SOF) of a baseline, extended or progressive JPEG: what PDF's DCTDecode reads. */
const endOfImage = Buffer.from([0xff, 0xd9]);

export function readJpeg(bytes: Uint8Array): { width: number; height: number; components: number } {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (file.length < 4 || file[0] !== 0xff || file[1] !== 0xd8) throw new Undrawable('not a JPEG file');
  let at = 2;
  let frame: { width: number; height: number; components: number } | undefined;
  while (at + 4 <= file.length) {
    if (file[at] !== 0xff) throw new Undrawable('JPEG marker expected');
    const marker = file[at + 1] as number;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = file.readUInt16BE(at + 2);
    if (length < 2 || at + 2 + length > file.length) throw new Undrawable('JPEG segment past the end');
    if (marker === 0xc0 || marker === 0xc1 || marker === 0xc2) {
      if (length < 8) throw new Undrawable('JPEG frame header too short');
      const precision = file[at + 4];
      const height = file.readUInt16BE(at + 5);
      const width = file.readUInt16BE(at + 7);
      const components = file[at + 9] as number;
      if (precision !== 8 || width === 0 || height === 0)
        throw new Undrawable(`JPEG of ${precision} bits, ${width} × ${height}`);
      frame = { width, height, components };
    }
    // Lossless, hierarchical and arithmetic-coded frames: not every PDF reader decodes them.
    if (marker >= 0xc3 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      throw new Undrawable(`JPEG frame type ${marker.toString(16)}`);
    // The scan follows its frame header: a file without one, or cut short, draws nothing in a PDF reader.
    // Only its shape is checked (the engine does not decode JPEG): a scan header of its components, scan
    // data, and the end marker after it.
    if (marker === 0xda && frame) {
      const components = file[at + 4] as number;
      if (components < 1 || components > 4 || length !== 6 + 2 * components)
        throw new Undrawable('JPEG scan header malformed');
      const data = at + 2 + length;
      if (file.lastIndexOf(endOfImage) <= data) throw new Undrawable('JPEG without scan data');
      return frame;
    }
    if (marker === 0xda || marker === 0xd9) break;
    at += 2 + length;
  }
  throw new Undrawable(frame ? 'JPEG without scan data' : 'JPEG without a frame header');
}

function writePng(objects: PdfObjects, bytes: Uint8Array, level: number): number {
  const png = readPng(bytes);
  const { width, height, bitDepth, colorType, palette, transparency } = png;
  // Even where the compressed rows are copied as they are, they are inflated once, with a cap: what
  // reaches the processor's reader is an image that decodes (png.ts, filteredRows).
  if (colorType === 0 || colorType === 2 || colorType === 3) filteredRows(png);
  const image = `/Type /XObject /Subtype /Image /Width ${width} /Height ${height}`;
  const flate = (colors: number) =>
    `/Filter /FlateDecode /DecodeParms <</Predictor 15 /Colors ${colors} /BitsPerComponent ${bitDepth} ` +
    `/Columns ${width}>>`;
  const number = objects.allocate();

  if (colorType === 0 || colorType === 2) {
    const colors = colorType === 0 ? 1 : 3;
    // A transparent grey or colour (tRNS) is a colour-key mask: still no decoding.
    let mask = '';
    if (transparency) {
      if (transparency.length !== 2 * colors) throw new Undrawable('PNG transparency of the wrong size');
      const keys: number[] = [];
      for (let channel = 0; channel < colors; channel++) {
        const key = transparency.readUInt16BE(2 * channel);
        keys.push(key, key);
      }
      mask = ` /Mask [${keys.join(' ')}]`;
    }
    const space = colors === 1 ? '/DeviceGray' : '/DeviceRGB';
    objects.stream(
      number,
      `${image} /ColorSpace ${space} /BitsPerComponent ${bitDepth}${mask} ${flate(colors)}`,
      png.data,
    );
    return number;
  }

  if (colorType === 3) {
    const entries = (palette as Buffer).length / 3;
    if (entries > 2 ** bitDepth)
      throw new Undrawable(`PNG palette of ${entries} colours at ${bitDepth} bits`);
    const space = `[/Indexed /DeviceRGB ${entries - 1} <${(palette as Buffer).toString('hex')}>]`;
    const alpha = transparency ? paletteAlpha(png, transparency) : undefined;
    if (!alpha) {
      objects.stream(
        number,
        `${image} /ColorSpace ${space} /BitsPerComponent ${bitDepth} ${flate(1)}`,
        png.data,
      );
      return number;
    }
    const indices = alpha.indices;
    const smask = writeSoftMask(objects, png, alpha.alpha, level);
    objects.stream(
      number,
      `${image} /ColorSpace ${space} /BitsPerComponent ${bitDepth} /SMask ${smask} 0 R /Filter /FlateDecode`,
      deflateSync(indices, { level }),
    );
    return number;
  }

  // Grey or colour with alpha: the colour and the alpha apart, the alpha as a soft mask.
  const colors = colorType === 4 ? 1 : 3;
  const samples = pixels(png);
  const count = width * height;
  const colour = Buffer.alloc(count * colors);
  const alpha = Buffer.alloc(count);
  // Every alpha byte ANDed: 255 when the image is opaque after all (a canvas writes RGBA regardless).
  let opaque = 255;
  if (colors === 3)
    for (let pixel = 0, from = 0, to = 0; pixel < count; pixel++, from += 4, to += 3) {
      colour[to] = samples[from] as number;
      colour[to + 1] = samples[from + 1] as number;
      colour[to + 2] = samples[from + 2] as number;
      const value = samples[from + 3] as number;
      alpha[pixel] = value;
      opaque &= value;
    }
  else
    for (let pixel = 0, from = 0; pixel < count; pixel++, from += 2) {
      colour[pixel] = samples[from] as number;
      const value = samples[from + 1] as number;
      alpha[pixel] = value;
      opaque &= value;
    }
  const space = colors === 1 ? '/DeviceGray' : '/DeviceRGB';
  const smask = opaque === 255 ? '' : ` /SMask ${writeSoftMask(objects, png, alpha, level)} 0 R`;
  objects.stream(
    number,
    `${image} /ColorSpace ${space} /BitsPerComponent 8${smask} /Filter /FlateDecode`,
    deflateSync(colour, { level }),
  );
  return number;
}

/** A palette image's indices and each pixel's alpha from tRNS, or nothing when every entry is opaque. */
function paletteAlpha(png: Png, transparency: Buffer): { indices: Buffer; alpha: Buffer } | undefined {
  if (transparency.every((value) => value === 255)) return undefined;
  const indices = pixels(png);
  const { width, height, bitDepth } = png;
  const stride = rowBytes(png);
  const perByte = 8 / bitDepth;
  const maskBits = (1 << bitDepth) - 1;
  const alpha = Buffer.alloc(width * height);
  for (let row = 0; row < height; row++)
    for (let column = 0; column < width; column++) {
      const byte = indices[row * stride + Math.floor(column / perByte)] as number;
      const shift = 8 - bitDepth * ((column % perByte) + 1);
      const index = (byte >> shift) & maskBits;
      alpha[row * width + column] = index < transparency.length ? (transparency[index] as number) : 255;
    }
  return { indices, alpha };
}

function writeSoftMask(objects: PdfObjects, png: Png, alpha: Buffer, level: number): number {
  const number = objects.allocate();
  objects.stream(
    number,
    `/Type /XObject /Subtype /Image /Width ${png.width} /Height ${png.height} /ColorSpace /DeviceGray ` +
      '/BitsPerComponent 8 /Filter /FlateDecode',
    deflateSync(alpha, { level }),
  );
  return number;
}
