import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { renderByTypst, renderPdf } from '../../src/documents/pdf.js';
import {
  buildEvidenceDocument,
  type DocumentBlock,
  type EvidenceDocumentInput,
} from '../../src/domain/evidence-document.js';
import { bareDispute, fullSubmission, generatedAt, template } from '../helpers/evidence-documents.js';
import { firstPageBaselines, openPdf, pageTexts } from '../helpers/pdf-text.js';

type RenderParameters = Parameters<
  Awaited<ReturnType<Awaited<ReturnType<typeof openPdf>>['getPage']>>['render']
>[0];

/** Where the sample goes for a person to look at (gitignored). */
const outputFolder = join(import.meta.dirname, '..', '..', 'test-output');

async function render(input: EvidenceDocumentInput): Promise<Buffer> {
  return renderPdf(buildEvidenceDocument(input));
}

describe('renderPdf', () => {
  const input = fullSubmission(10);

  it('has the dispute, every filled value and every evidence item, on numbered pages', async () => {
    const pages = await pageTexts(await render(input));
    const text = pages.join(' ');
    const { dispute } = input;
    const expected = [
      dispute.id,
      'ORD-48213',
      '2026-09-18',
      '129.98 EUR',
      '1Z999AA10123456784',
      'https://shop.example.com/policies/refunds',
      'Response due by',
      '2026-10-23 23:59 UTC',
      ...dispute.products.map((product) => product.name),
      ...dispute.correspondence.map((item) => item.subject),
      ...dispute.pastPayments.map((payment) => payment.id),
    ];
    for (const piece of expected) expect(text).toContain(piece);
    expect(pages.length).toBeGreaterThan(1);
    pages.forEach((page, index) => {
      expect(page).toContain(`Page ${index + 1} of ${pages.length}`);
      expect(page).toContain(`Dispute ${dispute.id}`);
    });
  });

  it('keeps names outside Latin-1 as written', async () => {
    const text = (await pageTexts(await render(input))).join(' ');
    expect(text).toContain('Łukasz Zieliński');
    expect(text).toContain('Dzień dobry');
    expect(text).toContain('ul. Marszałkowska 12/4');
  });

  it('renders the same input to the same bytes', async () => {
    const [first, second] = [await render(input), await render(fullSubmission(10))];
    expect(first.equals(second)).toBe(true);
    expect(await pageTexts(first)).toEqual(await pageTexts(second));
  });

  it('leaves the model as it was, so that it renders the same again', async () => {
    const model = buildEvidenceDocument(input);
    const before = structuredClone(model);
    const first = await renderPdf(model);
    expect(model).toEqual(before);
    expect((await renderPdf(model)).equals(first)).toBe(true);
  });

  it('dates the file by generatedAt, not by the clock', async () => {
    const document = await openPdf(await render(input));
    const { info } = (await document.getMetadata()) as { info: { CreationDate?: string } };
    expect(info.CreationDate).toMatch(/^D:20261006093000Z/);
    await document.destroy();
  });

  it('breaks a message longer than a page across pages, repeating the table header, losing nothing', async () => {
    const body = `${'The parcel was handed to the customer at the door. '.repeat(400)}Last words of the message.`;
    const dispute = bareDispute({
      correspondence: [
        { to: 'a@example.com', from: 'b@example.com', subject: 'Short one', body: 'Received, thanks.' },
        { to: 'a@example.com', from: 'b@example.com', subject: 'Long one', body },
      ],
    });
    const pages = await pageTexts(await render({ dispute, template: null, generatedAt }));
    expect(pages.length).toBeGreaterThan(2);
    const text = pages.join(' ');
    // Counted by a single word: a phrase may straddle a page's footer and the next page's header.
    expect(text.match(/\bparcel\b/g)).toHaveLength(400);
    expect(text).toContain('Last words of the message.');
    for (const page of pages) expect(page).toContain('Correspondence (2) SENT FROM TO SUBJECT');
  });

  it.each([10, 30, 45, 60, 90, 150])(
    'loses no word of %d sentences, whether rows are kept whole or not',
    async (count) => {
      const body = 'The parcel was handed to the customer at the door. '.repeat(count);
      const message = { to: 'a@example.com', from: 'b@example.com', subject: 'Delivery', body };
      const dispute = bareDispute({ correspondence: [message, message, message] });
      const text = (await pageTexts(await render({ dispute, template: null, generatedAt }))).join(' ');
      expect(text.match(/\bparcel\b/g)).toHaveLength(3 * count);
    },
  );

  it('loses no word of an evidence field longer than a page', async () => {
    const policy = 'Returns are accepted within thirty days of delivery. '.repeat(200);
    const dispute = bareDispute({ fields: { refund_policy: policy } });
    const text = (await pageTexts(await render({ dispute, template: null, generatedAt }))).join(' ');
    expect(text.match(/\bReturns\b/g)).toHaveLength(200);
  });

  it('wraps long unbroken text inside its column', async () => {
    const sku = `SKU-${'X'.repeat(150)}`;
    const dispute = bareDispute({ products: [{ name: 'Shoe', sku, quantity: 1, amount: 1 }] });
    const text = (await pageTexts(await render({ dispute, template: null, generatedAt }))).join(' ');
    expect(text.replace(/ /g, '')).toContain(sku);
  });

  it('writes a sample PDF and its first page as PNG to test-output/ for a person to look at', async () => {
    const pdf = await render(input);
    mkdirSync(outputFolder, { recursive: true });
    writeFileSync(join(outputFolder, 'evidence-sample.pdf'), pdf);
    const document = await openPdf(pdf);
    const page = await document.getPage(1);
    const viewport = page.getViewport({ scale: 2 });
    const canvas = createCanvas(viewport.width, viewport.height);
    await page.render({ canvas: canvas as unknown as RenderParameters['canvas'], viewport }).promise;
    const png = canvas.toBuffer('image/png');
    writeFileSync(join(outputFolder, 'evidence-sample-page-1.png'), png);
    await document.destroy();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it("sets the template's lines and paragraphs where Typst sets them", async () => {
    const body = 'To the reviewing bank,\nfirst paragraph.\n\nSecond paragraph.\n\nThird.';
    const model = buildEvidenceDocument({ ...input, template: template(body, []) });
    const engine = await firstPageBaselines(renderPdf(model));
    const typst = await firstPageBaselines(renderByTypst(model));
    for (const line of ['To the reviewing bank,', 'first paragraph.', 'Second paragraph.', 'Third.']) {
      const y = (pieces: { text: string; y: number }[]) =>
        pieces.find(({ text }) => line.startsWith(text))?.y;
      expect(y(engine), line).toBeDefined();
      expect(Math.abs((y(engine) ?? 0) - (y(typst) ?? Number.NaN)), line).toBeLessThan(0.5);
    }
  });

  it('renders a dispute with no evidence and no template', async () => {
    const text = (
      await pageTexts(await render({ dispute: bareDispute(), template: template(null), generatedAt }))
    ).join(' ');
    expect(text).toContain('Dispute response');
    expect(text).toContain('Page 1 of 1');
  });

  it('fails saying what it cannot draw when the model has a block no layout knows', () => {
    const model = buildEvidenceDocument({ dispute: bareDispute(), template: null, generatedAt });
    model.blocks.push({ kind: 'chart' } as unknown as DocumentBlock);
    expect(() => renderPdf(model)).toThrow(/^The document engine cannot draw a block of kind "chart"$/);
    expect(() => renderByTypst(model)).toThrow(
      /^Typst could not lay out the document: .*dictionary does not contain key \\"table\\"/,
    );
  });
});
