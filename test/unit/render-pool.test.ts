import { afterAll, describe, expect, it } from 'vitest';
import { renderPdf } from '../../src/documents/pdf.js';
import { RenderPool } from '../../src/documents/render-pool.js';
import { buildEvidenceDocument, type EvidenceDocument } from '../../src/domain/evidence-document.js';
import { fullSubmission } from '../helpers/evidence-documents.js';

const pool = new RenderPool(2);
afterAll(async () => {
  await pool.close();
});

describe('RenderPool', () => {
  it('renders on its threads the same bytes as rendering in the process', async () => {
    const model = buildEvidenceDocument(fullSubmission(3));
    const [threaded, local] = await Promise.all([pool.render(model), renderPdf(model)]);
    expect(threaded.equals(local)).toBe(true);
  });

  it('answers each of many concurrent renders with its own document', async () => {
    const models = [1, 2, 3, 4, 5, 6].map((count) => buildEvidenceDocument(fullSubmission(count)));
    const rendered = await Promise.all(models.map((model) => pool.render(model)));
    const expected = await Promise.all(models.map((model) => renderPdf(model)));
    rendered.forEach((pdf, index) => {
      expect(pdf.equals(expected[index] ?? Buffer.alloc(0))).toBe(true);
    });
  });

  it('fails only the render that failed, and goes on rendering', async () => {
    const broken = { blocks: 'not a list' } as unknown as EvidenceDocument;
    await expect(pool.render(broken)).rejects.toThrow('rendering the PDF failed');
    const pdf = await pool.render(buildEvidenceDocument(fullSubmission(1)));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });
});
