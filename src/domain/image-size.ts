import type { FileType } from './evidence-files.js';

/**
 * An image's size in pixels, read from its header: a PNG's IHDR chunk, a JPEG's first start-of-frame
 * marker. The response document draws an image no larger than this (domain/evidence-attachments.ts).
 * Null when the header says nothing readable (the upload checks took the file whole, not its header).
 */
export interface PixelSize {
  width: number;
  height: number;
}

export function imageSize(bytes: Uint8Array, type: FileType): PixelSize | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === 'png') {
    if (bytes.length < 24) return null;
    return positive(view.getUint32(16), view.getUint32(20));
  }
  if (type === 'jpg') return jpegSize(bytes, view);
  return null;
}

/** Start-of-frame markers (baseline, progressive, lossless…); 0xC4, 0xC8 and 0xCC are not frames. */
const isFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpegSize(bytes: Uint8Array, view: DataView): PixelSize | null {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1] ?? 0;
    // Fill bytes, and markers without a length (restart markers, TEM).
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (isFrame(marker)) return positive(view.getUint16(at + 7), view.getUint16(at + 5));
    at += 2 + view.getUint16(at + 2);
  }
  return null;
}

const positive = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : null);
