import { PDFDocument } from 'pdf-lib';
import { type FileType, maxFileBytes } from './evidence-files.js';
import { imageSize } from './image-size.js';

/**
 * What a file is, judged by its bytes alone (docs/api.md, "Files"): never by its name or declared
 * content type, which the sender chooses. A file is taken whole or not at all: a PNG must end with its
 * IEND chunk, a JPEG with its end-of-image marker, a PDF with `%%EOF`, have a page, and not be encrypted.
 */
export type Inspection = { type: FileType; pages: number | null } | { problem: string };

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const pngEnd = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
/** Writers may pad a file after its end marker; a few bytes of padding are not a truncation. */
const trailingSlack = 1024;

function tail(bytes: Buffer): Buffer {
  return bytes.subarray(Math.max(0, bytes.length - trailingSlack));
}

/**
 * The largest image taken, in pixels and along a side. An image is decoded whole to be drawn, at up to
 * four bytes a pixel, so a small file of a huge image would cost gigabytes (docs/api.md, "Uploading").
 */
export const maxImagePixels = 25_000_000;
export const maxImageSide = 12_000;

const count = (value: number) => value.toLocaleString('en-US');

function sized(bytes: Buffer, type: 'png' | 'jpg'): Inspection {
  const size = imageSize(bytes, type);
  if (!size) return { problem: `the ${type === 'png' ? 'PNG' : 'JPEG'} has no readable image size` };
  if (size.width * size.height > maxImagePixels || Math.max(size.width, size.height) > maxImageSide) {
    return {
      problem: `the image is ${count(size.width)} × ${count(size.height)} pixels; at most ${count(maxImagePixels)} pixels and ${count(maxImageSide)} a side are taken`,
    };
  }
  return { type, pages: null };
}

function inspectPng(bytes: Buffer): Inspection {
  if (bytes.length < 33 || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    return { problem: 'the PNG has no image header' };
  }
  if (!tail(bytes).includes(pngEnd)) return { problem: 'the PNG is truncated: it has no IEND chunk' };
  return sized(bytes, 'png');
}

function inspectJpeg(bytes: Buffer): Inspection {
  const end = tail(bytes);
  if (end.lastIndexOf(Buffer.from([0xff, 0xd9])) < 0) {
    return { problem: 'the JPEG is truncated: it has no end-of-image marker' };
  }
  return sized(bytes, 'jpg');
}

async function inspectPdf(bytes: Buffer): Promise<Inspection> {
  if (!tail(bytes).includes('%%EOF')) return { problem: 'the PDF is truncated: it has no %%EOF' };
  let encrypted: boolean;
  let pages: number;
  try {
    // Loaded despite encryption, then asked: pdf-lib's EncryptedPDFError is compiled to ES5, where
    // `instanceof` does not recognise it. Counting pages walks the page tree, which a hostile file can
    // make endless (a node that is its own child): that throws too, inside here.
    const document = await PDFDocument.load(bytes, { updateMetadata: false, ignoreEncryption: true });
    encrypted = document.isEncrypted;
    pages = encrypted ? 0 : document.getPageCount();
  } catch {
    return { problem: 'the PDF cannot be read' };
  }
  if (encrypted) return { problem: 'the PDF is encrypted: upload it without a password' };
  if (pages === 0) return { problem: 'the PDF has no pages' };
  return { type: 'pdf', pages };
}

/** Whether the bytes start as a PDF does: its header, before anything of it is parsed. */
export const looksLikePdf = (bytes: Buffer) => bytes.toString('latin1', 0, 5) === '%PDF-';

/** The file's type and pages, or why it is refused. */
export async function inspectFile(bytes: Buffer): Promise<Inspection> {
  if (bytes.length === 0) return { problem: 'the file is empty' };
  if (bytes.length > maxFileBytes) return { problem: `the file is over ${maxFileBytes} bytes` };
  if (bytes.subarray(0, 8).equals(pngSignature)) return inspectPng(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return inspectJpeg(bytes);
  if (looksLikePdf(bytes)) return inspectPdf(bytes);
  return { problem: 'the file is not a PDF, PNG or JPEG' };
}
