import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderPdf } from '../../src/documents/pdf.js';
import { compellingEvidenceOf } from '../../src/domain/compelling-evidence.js';
import { measureDocument } from '../../src/domain/document-size.js';
import {
  buildEvidenceDocument,
  documentText,
  type EvidenceDocumentInput,
} from '../../src/domain/evidence-document.js';
import { fullSubmission } from '../helpers/evidence-documents.js';
import { pageLines, pageTexts } from '../helpers/pdf-text.js';

/** The response document's Visa CE 3.0 section (docs/api.md, "Compelling evidence"). */

const outputFolder = join(import.meta.dirname, '..', '..', 'test-output');

/**
 * The full submission as a Visa fraud dispute whose evidence qualifies: two earlier payments 196 and 237
 * days before the disputed one, with the same IP address, device and login (one by email, in another
 * case), and one more payment out of the window.
 */
function qualifiedSubmission(
  change: (input: EvidenceDocumentInput) => void = () => {},
): EvidenceDocumentInput {
  const input = fullSubmission(3);
  const { dispute } = input;
  dispute.reason = 'fraudulent';
  dispute.network = 'visa';
  dispute.networkReasonCode = '10.4';
  dispute.customerPurchaseIp = '203.0.113.10';
  dispute.fields = {
    ...dispute.fields,
    customer_device_id: 'dev_A1B2',
    customer_account_id: 'user_2231',
    product_description: 'Trail running shoes, model 1',
    merchandise_or_services: 'merchandise',
  };
  const earlier = {
    amount: 4999,
    currency: 'eur',
    ip_address: '203.0.113.10',
    item_description: 'Trail running socks, 3 pairs',
  };
  dispute.pastPayments = [
    { ...earlier, id: 'ch_recent', charged_at: '2026-08-30T10:00:00Z', device_id: 'dev_a1b2' },
    {
      ...earlier,
      id: 'ch_march',
      charged_at: '2026-03-02T10:15:00Z',
      device_id: 'DEV_A1B2',
      user_id: 'user_2231',
    },
    {
      ...earlier,
      id: 'ch_january',
      charged_at: 1_768_903_200,
      device_id: 'dev_a1b2',
      email: 'Lukasz@Example.PL',
    },
  ];
  change(input);
  return input;
}

const section = (input: EvidenceDocumentInput) => {
  const blocks = buildEvidenceDocument(input).blocks;
  const at = blocks.findIndex(
    (block) => block.kind === 'heading' && block.text === 'Visa Compelling Evidence 3.0',
  );
  return at === -1 ? null : blocks.slice(at, at + 3);
};

describe('the Visa CE 3.0 section of the response document', () => {
  it('compares the disputed payment with the two prior ones, first after the summary', () => {
    const input = qualifiedSubmission();
    expect(compellingEvidenceOf(input.dispute)).toMatchObject({
      status: 'qualified',
      matched: ['ip_address', 'device_id'],
      prior_payments: ['ch_march', 'ch_january'],
    });
    const blocks = buildEvidenceDocument(input).blocks;
    expect(blocks.slice(0, 4).map((block) => block.kind)).toEqual([
      'heading',
      'paragraph',
      'table',
      'heading',
    ]);
    expect(section(input)).toEqual([
      { kind: 'heading', text: 'Visa Compelling Evidence 3.0' },
      {
        kind: 'paragraph',
        text: expect.stringContaining('two earlier payments, made 120 to 365 days before the disputed one'),
      },
      {
        kind: 'table',
        table: {
          section: 'compelling_evidence',
          title: 'Matching data elements',
          columns: [
            { label: 'Data', weight: 1.5 },
            { label: 'Disputed payment', weight: 2.3 },
            { label: 'Prior undisputed payment', weight: 2.3 },
            { label: 'Prior undisputed payment', weight: 2.3 },
          ],
          rows: [
            ['Payment', 'ch_3PqR7sTuVwXyZ0', 'ch_march', 'ch_january'],
            [
              'Date',
              '2026-09-14 16:42 UTC',
              '2026-03-02 10:15 UTC\n196 days before',
              '2026-01-20 10:00 UTC\n237 days before',
            ],
            ['Amount', '129.98 EUR', '49.99 EUR', '49.99 EUR'],
            [
              'Description',
              'Trail running shoes, model 1',
              'Trail running socks, 3 pairs',
              'Trail running socks, 3 pairs',
            ],
            ['IP address', '203.0.113.10', '203.0.113.10', '203.0.113.10'],
            // Each payment's own spelling of the value that matched.
            ['Device ID', 'dev_A1B2', 'DEV_A1B2', 'dev_a1b2'],
          ].map((cells) => ({ cells, detail: null })),
        },
      },
    ]);
  });

  it('shows the spelling of the login that matched: an account id on one, an email on another', () => {
    const input = qualifiedSubmission(({ dispute }) => {
      dispute.fields = { ...dispute.fields, customer_account_id: null };
      dispute.pastPayments = dispute.pastPayments.map((payment) => ({
        ...payment,
        email: 'lukasz.zielinski@EXAMPLE.pl',
      }));
    });
    const table = section(input)?.[2];
    expect(table?.kind === 'table' && table.table.rows.map((row) => row.cells)).toContainEqual([
      'Customer account / login',
      'lukasz.zielinski@example.pl',
      'lukasz.zielinski@EXAMPLE.pl',
      'lukasz.zielinski@EXAMPLE.pl',
    ]);
  });

  it('names the disputed products when no description is given', () => {
    const input = qualifiedSubmission(({ dispute }) => {
      dispute.fields = { ...dispute.fields, product_description: '' };
    });
    const table = section(input)?.[2];
    expect(table?.kind === 'table' && table.table.rows[3]?.cells[1]).toBe(
      'Trail running shoe, model 1\nTrail running shoe, model 2\nTrail running shoe, model 3',
    );
  });

  it.each([
    [
      'requires_action (a description missing)',
      (input: EvidenceDocumentInput) => {
        input.dispute.fields = { ...input.dispute.fields, merchandise_or_services: null };
      },
      'requires_action',
    ],
    [
      'requires_action (the prior payments 30 and 40 days old)',
      (input: EvidenceDocumentInput) => {
        input.dispute.pastPayments = input.dispute.pastPayments.map((payment, index) => ({
          ...payment,
          charged_at: `2026-08-${10 + index}T00:00:00Z`,
        }));
      },
      'requires_action',
    ],
    [
      'not_qualified (the devices differ)',
      (input: EvidenceDocumentInput) => {
        input.dispute.fields = {
          ...input.dispute.fields,
          customer_device_id: 'dev_other',
          customer_account_id: null,
        };
        input.dispute.customerPurchaseIp = '198.51.100.7';
      },
      'not_qualified',
    ],
    [
      'no program (Mastercard)',
      (input: EvidenceDocumentInput) => {
        input.dispute.network = 'mastercard';
        input.dispute.networkReasonCode = '4837';
      },
      null,
    ],
    [
      'no program (reason product_not_received)',
      (input: EvidenceDocumentInput) => {
        input.dispute.reason = 'product_not_received';
      },
      null,
    ],
  ] as const)('is left out when the verdict is %s', (_, change, status) => {
    const input = qualifiedSubmission(change);
    expect(compellingEvidenceOf(input.dispute)?.status ?? null).toBe(status);
    expect(section(input)).toBeNull();
    expect(documentText(buildEvidenceDocument(input))).not.toContain('Compelling Evidence');
    expect(documentText(buildEvidenceDocument(input))).not.toContain('Matching data elements');
  });

  it('is in the plain text and counted in the document size', () => {
    const input = qualifiedSubmission();
    const text = documentText(buildEvidenceDocument(input));
    expect(text).toContain('Visa Compelling Evidence 3.0\n----------------------------');
    expect(text).toContain('Matching data elements\n----------------------');
    expect(text).toContain(
      '1. Data: Payment\n   Disputed payment: ch_3PqR7sTuVwXyZ0\n   Prior undisputed payment: ch_march',
    );
    const without = qualifiedSubmission((it) => {
      it.dispute.reason = 'general';
    });
    expect(measureDocument(input).characters).toBeGreaterThanOrEqual(text.length);
    expect(measureDocument(input).characters).toBeGreaterThan(measureDocument(without).characters);
  });

  it('renders as a table on the first page, merchant text as written', async () => {
    const markup = '#set page(fill: red) *bold* $x$ <label> @ref';
    const input = qualifiedSubmission(({ dispute }) => {
      dispute.fields = { ...dispute.fields, customer_device_id: markup };
      dispute.pastPayments = dispute.pastPayments.map((payment) => ({ ...payment, device_id: markup }));
    });
    const pdf = renderPdf(buildEvidenceDocument(input));
    mkdirSync(outputFolder, { recursive: true });
    writeFileSync(join(outputFolder, 'compelling-evidence.pdf'), pdf);
    const [first] = await pageTexts(pdf);
    expect(first).toContain('Visa Compelling Evidence 3.0');
    expect(first).toContain('Matching data elements');
    expect(first).toContain('PRIOR UNDISPUTED PAYMENT');
    expect(first).toContain('196 days before');
    expect((first ?? '').split(markup).length - 1).toBe(3);
    // The section comes before the template's text.
    const lines = (await pageLines(pdf))[0] ?? '';
    expect(lines.indexOf('Matching data elements')).toBeLessThan(lines.indexOf('To the reviewing bank'));
  });
});
