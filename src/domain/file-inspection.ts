import { PDFDocument } from 'pdf-lib';
import { type FileType, maxFileBytes } from './evidence-files.js';

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

function inspectPng(bytes: Buffer): Inspection {
  if (bytes.length < 33 || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    return { problem: 'the PNG has no image header' };
  }
  if (!tail(bytes).includes(pngEnd)) return { problem: 'the PNG is truncated: it has no IEND chunk' };
  return { type: 'png', pages: null };
}

function inspectJpeg(bytes: Buffer): Inspection {
  const end = tail(bytes);
  if (end.lastIndexOf(Buffer.from([0xff, 0xd9])) < 0) {
    return { problem: 'the JPEG is truncated: it has no end-of-image marker' };
  }
  return { type: 'jpg', pages: null };
}

async function inspectPdf(bytes: Buffer): Promise<Inspection> {
  if (!tail(bytes).includes('%%EOF')) return { problem: 'the PDF is truncated: it has no %%EOF' };
  let document: PDFDocument;
  try {
    // Loaded despite encryption, then asked: pdf-lib's EncryptedPDFError is compiled to ES5, where
    // `instanceof` does not recognise it.
    document = await PDFDocument.load(bytes, { updateMetadata: false, ignoreEncryption: true });
  } catch {
    return { problem: 'the PDF cannot be read' };
  }
  if (document.isEncrypted) return { problem: 'the PDF is encrypted: upload it without a password' };
  const pages = document.getPageCount();
  if (pages === 0) return { problem: 'the PDF has no pages' };
  return { type: 'pdf', pages };
}

/** The file's type and pages, or why it is refused. */
export async function inspectFile(bytes: Buffer): Promise<Inspection> {
  if (bytes.length === 0) return { problem: 'the file is empty' };
  if (bytes.length > maxFileBytes) return { problem: `the file is over ${maxFileBytes} bytes` };
  if (bytes.subarray(0, 8).equals(pngSignature)) return inspectPng(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return inspectJpeg(bytes);
  if (bytes.toString('latin1', 0, 5) === '%PDF-') return inspectPdf(bytes);
  return { problem: 'the file is not a PDF, PNG or JPEG' };
}
