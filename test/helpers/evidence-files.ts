import { createHash } from 'node:crypto';
import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { EvidenceFileCategory, FileType } from '../../src/domain/evidence-files.js';
import type { AttachedFile, ProcessorAdapter } from '../../src/processors/types.js';
import type { ContractFake } from './adapter-contract.js';

/**
 * Real evidence files for tests: images drawn with a canvas and PDFs made with pdf-lib, each with the
 * label drawn on it, so that two files differ by their bytes and a rendered page shows which is which.
 */

function picture(label: string, width: number, height: number) {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#f4f1e8';
  context.fillRect(0, 0, width, height);
  context.strokeStyle = '#1f2328';
  context.lineWidth = 4;
  context.strokeRect(8, 8, width - 16, height - 16);
  context.fillStyle = '#1f2328';
  context.font = '28px sans-serif';
  context.fillText(label, 32, height / 2);
  return canvas;
}

/** A PNG of `width` × `height` pixels showing `label`. */
export function samplePng(label = 'Receipt 4711', width = 600, height = 400): Buffer {
  return picture(label, width, height).toBuffer('image/png');
}

/** A JPEG of `width` × `height` pixels showing `label`. */
export function sampleJpeg(label = 'Delivery 4711', width = 800, height = 500): Buffer {
  return picture(label, width, height).toBuffer('image/jpeg', 85);
}

/** A PDF of `pages` US Letter pages, each saying `label` and its number. */
export async function samplePdf(label = 'Customer messages', pages = 3): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let at = 1; at <= pages; at++) {
    const page = pdf.addPage([612, 792]);
    page.drawText(`${label}, page ${at} of ${pages}`, { x: 72, y: 700, size: 18, font });
  }
  // Dated, so that the same call gives the same bytes.
  const moment = new Date('2026-10-01T00:00:00Z');
  pdf.setCreationDate(moment);
  pdf.setModificationDate(moment);
  return Buffer.from(await pdf.save());
}

/** `bytes` as an adapter receives them (processors/types.ts, AttachedFile). */
export function attached(
  id: string,
  bytes: Buffer,
  type: FileType,
  category: EvidenceFileCategory,
  options: { description?: string | null; pages?: number | null; filename?: string } = {},
): AttachedFile {
  return {
    id,
    category,
    description: options.description ?? null,
    filename: options.filename ?? `${id}.${type}`,
    type,
    size: bytes.length,
    pages: options.pages ?? null,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes,
  };
}

/**
 * The files of the adapter contract: a receipt (PNG), a delivery proof (JPEG), the customer's messages
 * (a 3-page PDF) and an access log (PNG), which no processor has a slot for.
 */
export async function contractFiles(): Promise<AttachedFile[]> {
  return [
    attached('file_contractreceipt00001', samplePng('Receipt 4711'), 'png', 'receipt', {
      description: 'Receipt e-mailed on 2026-09-28',
    }),
    attached(
      'file_contractshipping0001',
      sampleJpeg('Signed delivery 4711'),
      'jpg',
      'shipping_documentation',
    ),
    attached(
      'file_contractmessages0001',
      await samplePdf('Customer messages', 3),
      'pdf',
      'customer_communication',
      {
        pages: 3,
      },
    ),
    attached(
      'file_contractaccesslog001',
      samplePng('Logins 2026-09', 500, 300),
      'png',
      'access_activity_log',
    ),
  ];
}

const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const bySlot = (a: { slot: string; sha256: string }, b: { slot: string; sha256: string }) =>
  `${a.slot} ${a.sha256}` < `${b.slot} ${b.sha256}` ? -1 : 1;

/** The files the adapter's limits send on their own: a slot for the category, and a type the slot takes. */
export function expectedSlots(adapter: ProcessorAdapter, files: AttachedFile[]) {
  const { slots, types } = adapter.evidenceLimits;
  return files
    .flatMap((file) => {
      const slot = slots[file.category];
      return slot && types.includes(file.type) ? [{ slot, sha256: file.sha256 }] : [];
    })
    .sort(bySlot);
}

export function slottedOf(fake: ContractFake, id: string) {
  return (fake.slotted?.(id) ?? []).map(({ slot, bytes }) => ({ slot, sha256: digest(bytes) })).sort(bySlot);
}
