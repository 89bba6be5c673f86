import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../src/documents/pdf.js';
import type { DocumentFile } from '../../src/domain/evidence-attachments.js';
import {
  buildEvidenceDocument,
  documentText,
  type EvidenceDocumentInput,
} from '../../src/domain/evidence-document.js';
import { slotOf } from '../../src/domain/evidence-files.js';
import { imageSize } from '../../src/domain/image-size.js';
import type { AttachedFile } from '../../src/processors/types.js';
import { bareDispute, fullSubmission, generatedAt } from '../helpers/evidence-documents.js';
import { contractFiles, sampleJpeg, samplePng } from '../helpers/evidence-files.js';
import { imagesDrawn, pageTexts } from '../helpers/pdf-text.js';

/** The files as the document takes them, the receipt sent on its own in a `receipt` slot. */
const documentFiles = (files: AttachedFile[], slots = { receipt: 'receipt' }): DocumentFile[] =>
  files.map((file) => ({
    id: file.id,
    category: file.category,
    description: file.description,
    filename: file.filename,
    type: file.type,
    pages: file.pages,
    pixels: imageSize(file.bytes, file.type),
    slot: slotOf({ slots, types: ['pdf', 'png', 'jpg'] }, file),
  }));

const bytesOf = (files: AttachedFile[]) => new Map(files.map((file) => [file.id, file.bytes]));

async function render(input: EvidenceDocumentInput, files: AttachedFile[]) {
  return (await renderDocument(buildEvidenceDocument(input), bytesOf(files))).pdf;
}

describe('imageSize', () => {
  it.each([
    ['png', samplePng('x', 600, 400), { width: 600, height: 400 }],
    ['jpg', sampleJpeg('x', 800, 500), { width: 800, height: 500 }],
    ['png', Buffer.from('not a png'), null],
    ['jpg', Buffer.from([0xff, 0xd8, 0xff, 0xd9]), null],
  ] as const)('reads a %s header', (type, bytes, expected) => {
    expect(imageSize(bytes, type)).toEqual(expected);
  });
});

describe('the document with evidence files', () => {
  it('lists every file and where it is, draws the images and appends the PDF', async () => {
    const files = await contractFiles();
    const input = { ...fullSubmission(1), files: documentFiles(files) };
    const model = buildEvidenceDocument(input);
    expect(model.files).toEqual({
      images: [
        { path: '/files/0.jpg', file: 'file_contractshipping0001' },
        { path: '/files/1.png', file: 'file_contractaccesslog001' },
      ],
      appended: ['file_contractmessages0001'],
    });
    const text = documentText(model);
    expect(text).toContain(
      [
        '1. File: file_contractreceipt00001.png',
        '   Category: Receipt',
        '   Description: Receipt e-mailed on 2026-09-28',
        '   Where: Sent separately as receipt',
      ].join('\n'),
    );
    expect(text).toContain('Where: Appended after this document (attachment pages 1 to 3)');

    const alone = await render({ ...input, files: [] }, []);
    const pdf = await render(input, files);
    const pages = await pageTexts(pdf);
    const ownPages = pages.findIndex((page) => page.startsWith('Customer messages'));
    // The document's pages (one more than without files: the list and the images), then the PDF's three.
    expect(pages.length).toBe(ownPages + 3);
    expect(ownPages).toBe((await pageTexts(alone)).length + 1);
    const document = pages.slice(0, ownPages).join(' ');
    expect(document).toContain('Attachments (4)');
    expect(document).toContain('Receipt e-mailed on 2026-09-28');
    expect(document).toContain('Sent separately as receipt');
    expect(document).toContain(`Pages ${ownPages + 1} to ${ownPages + 3} of this file, after this document`);
    expect(document).toContain('Shipping documentation file_contractshipping0001.jpg');
    // The images' page, which the list of attachments ended before: no table header repeated over it.
    expect(pages.filter((page) => page.includes('Attachments (4)'))).toHaveLength(1);
    expect(pages.slice(ownPages)).toEqual([
      'Customer messages, page 1 of 3',
      'Customer messages, page 2 of 3',
      'Customer messages, page 3 of 3',
    ]);
    // The two images in the document, none on its other pages nor the appended ones.
    const drawn = await imagesDrawn(pdf);
    expect(drawn.reduce((sum, count) => sum + count, 0)).toBe(2);
    expect(drawn.slice(ownPages)).toEqual([0, 0, 0]);
    // The same input, the same bytes; and no image without its bytes.
    expect((await render(input, files)).equals(pdf)).toBe(true);
    await expect(render(input, [])).rejects.toThrow('the bytes of file_contractshipping0001 are missing');
  });

  it('draws an image no larger than its pixels, and scales a wide one to the page', () => {
    const small = samplePng('small', 200, 100);
    const wide = samplePng('wide', 3000, 1000);
    const files = [
      { id: 'file_small', bytes: small },
      { id: 'file_wide', bytes: wide },
    ].map(({ id, bytes }) => ({
      id,
      category: 'uncategorized' as const,
      description: null,
      filename: `${id}.png`,
      type: 'png' as const,
      pages: null,
      pixels: imageSize(bytes, 'png'),
      slot: null,
    }));
    const model = buildEvidenceDocument({ dispute: bareDispute(), template: null, generatedAt, files });
    const images = model.blocks.flatMap((block) => (block.kind === 'image' ? [block.image] : []));
    expect(images).toEqual([
      { path: '/files/0.png', file: 'file_small', width: 150, height: 75 },
      { path: '/files/1.png', file: 'file_wide', width: 504, height: 168 },
    ]);
  });

  it('shows a filename and description with Typst markup as written', async () => {
    const png = samplePng('x', 100, 100);
    const hostile = '#import "/document.json": * $x$ [link] <label> @ref';
    const file: DocumentFile = {
      id: 'file_hostile',
      category: 'uncategorized',
      description: hostile,
      filename: `${hostile}.png`,
      type: 'png',
      pages: null,
      pixels: imageSize(png, 'png'),
      slot: null,
    };
    const input = { dispute: bareDispute(), template: null, generatedAt, files: [file] };
    const { pdf } = await renderDocument(buildEvidenceDocument(input), new Map([[file.id, png]]));
    const text = (await pageTexts(pdf)).join(' ').replace(/\s+/g, '');
    expect(text).toContain(hostile.replace(/\s+/g, ''));
  });

  it("draws a product's kept image under its row, and notes one that could not be fetched", async () => {
    const thumbnail = samplePng('Shoe', 400, 300);
    const input = fullSubmission(2);
    const [first, second] = input.dispute.products;
    if (!first || !second) throw new Error('two products expected');
    first.image = 'https://shop.example.com/shoe.png';
    second.image = 'https://shop.example.com/gone.png';
    const productImages = [
      {
        url: first.image,
        file: { id: 'file_shoe', type: 'png' as const, pixels: imageSize(thumbnail, 'png') },
        problem: null,
      },
      { url: second.image, file: null, problem: 'the server answered 404' },
    ];
    const model = buildEvidenceDocument({ ...input, productImages });
    const products = model.blocks.find(
      (block) => block.kind === 'table' && block.table.section === 'products',
    );
    if (products?.kind !== 'table') throw new Error('no products table');
    expect(products.table.rows[0]?.image).toEqual({
      path: '/files/0.png',
      file: 'file_shoe',
      width: 160,
      height: 120,
    });
    expect(products.table.rows[1]?.detail).toContain('Image not available: the server answered 404');
    const { pdf, pages } = await renderDocument(model, new Map([['file_shoe', thumbnail]]), true);
    expect(pages).toBe((await pageTexts(pdf)).length);
    expect((await pageTexts(pdf)).join(' ')).toContain('Image not available: the server answered 404');
    expect((await imagesDrawn(pdf)).reduce((sum, count) => sum + count, 0)).toBe(1);
  });
});
