import { describe, expect, it } from 'vitest';
import {
  buildEvidenceDocument,
  type DocumentBlock,
  documentText,
  evidenceDictionary,
} from '../../src/domain/evidence-document.js';
import { placeholderValues } from '../../src/domain/evidence-format.js';
import { renderTemplateBody } from '../../src/domain/template-body.js';
import type { FieldType } from '../../src/domain/templates.js';
import { bareDispute, fullSubmission, generatedAt, template } from '../helpers/evidence-documents.js';

const paragraph = (text: string) => ({ kind: 'paragraph', text });
const section = (name: string) => ({ kind: 'section', section: name });

/** The placeholders of a bare dispute with these overrides (and template fields). */
function values(overrides: Parameters<typeof bareDispute>[0], fields: [string, FieldType][] = []) {
  return placeholderValues({ dispute: bareDispute(overrides), template: template('', fields) });
}

/** The kinds of the document's blocks, tables by section: the document's outline. */
function outline(blocks: DocumentBlock[]): string[] {
  return blocks.map((block) => (block.kind === 'table' ? `table:${block.table.section}` : block.kind));
}

describe('renderTemplateBody fills placeholders', () => {
  it('with or without spaces inside the braces', () => {
    expect(
      renderTemplateBody('Order {{order_id}} for {{ customer_name }}.', {
        order_id: '42',
        customer_name: 'Ada',
      }),
    ).toEqual([paragraph('Order 42 for Ada.')]);
  });

  it('renders unknown, empty and malformed placeholders as empty text, never the raw placeholder', () => {
    const parts = renderTemplateBody('a{{missing}}b{{empty}}c{{}}d{{ two words }}e', { empty: '' });
    expect(parts).toEqual([paragraph('abcde')]);
  });

  it('does not read keys off the prototype', () => {
    expect(renderTemplateBody('{{constructor}}{{__proto__}}{{toString}}x', {})).toEqual([paragraph('x')]);
  });

  it('inserts a value as text: placeholders inside values are not filled', () => {
    expect(renderTemplateBody('{{note}}', { note: 'see {{order_id}}', order_id: '42' })).toEqual([
      paragraph('see {{order_id}}'),
    ]);
  });

  it('splits paragraphs at blank lines and keeps single line breaks', () => {
    const body = 'Dear bank,\r\n\r\n\r\nline one  \nline two\n   \nSincerely,\nShop\n';
    expect(renderTemplateBody(body, {})).toEqual([
      paragraph('Dear bank,'),
      paragraph('line one\nline two'),
      paragraph('Sincerely,\nShop'),
    ]);
  });

  it('drops a paragraph left empty by its placeholders', () => {
    expect(renderTemplateBody('{{gone}}\n\nkept', {})).toEqual([paragraph('kept')]);
  });
});

describe('renderTemplateBody places the item sections', () => {
  it('where a line holds only the section placeholder', () => {
    const body = 'Items:\n  {{ products }}  \nMessages:\n{{correspondence}}\n{{past_payments}}\nEnd';
    expect(renderTemplateBody(body, {})).toEqual([
      paragraph('Items:'),
      section('products'),
      paragraph('Messages:'),
      section('correspondence'),
      section('past_payments'),
      paragraph('End'),
    ]);
  });

  it('once: a repeated section line is dropped', () => {
    expect(renderTemplateBody('{{products}}\nx\n{{products}}\ny', {})).toEqual([
      section('products'),
      paragraph('x\ny'),
    ]);
  });

  it('not inside a line of text, where the placeholder is empty text', () => {
    expect(renderTemplateBody('See {{products}} below', {})).toEqual([paragraph('See  below')]);
  });
});

describe('placeholderValues', () => {
  it.each([
    [4999, 'usd', '49.99 USD'],
    [5, 'usd', '0.05 USD'],
    [-250, 'eur', '-2.50 EUR'],
    [5000, 'jpy', '5000 JPY'],
    [12345, 'bhd', '12.345 BHD'],
    [4999, null, '4999'],
  ])('formats amount %d in %s as %s', (amount, currency, expected) => {
    expect(values({ amount, currency }).amount).toBe(expected);
  });

  it('formats the fee in the dispute currency and reversals in theirs', () => {
    const formatted = values({ currency: 'usd', fee: 1500, reversalAmount: 700, reversalCurrency: 'jpy' });
    expect(formatted).toMatchObject({ fee: '15.00 USD', reversal_amount: '700 JPY', currency: 'USD' });
  });

  it('formats timestamps as UTC dates, with the time unless it is midnight', () => {
    const formatted = values({
      chargedAt: new Date('2026-09-14T16:42:59Z'),
      disputedAt: new Date('2026-10-02T00:00:00Z'),
    });
    expect(formatted).toMatchObject({ charged_at: '2026-09-14 16:42 UTC', disputed_at: '2026-10-02' });
  });

  it('gives booleans as yes or no and leaves out API plumbing and absent attributes', () => {
    const formatted = values({ isChargeRefundable: true });
    expect(formatted).toMatchObject({
      is_charge_refundable: 'yes',
      livemode: 'no',
      id: 'dp_bare',
      reason: 'general',
    });
    expect(formatted).not.toHaveProperty('url');
    expect(formatted).not.toHaveProperty('object');
    expect(formatted).not.toHaveProperty('charge');
    expect(formatted).not.toHaveProperty('products');
  });

  it('lets a field win over the attribute of the same name', () => {
    expect(values({ customerName: 'Ada', fields: { customer_name: 'Ada Lovelace' } }).customer_name).toBe(
      'Ada Lovelace',
    );
  });

  it('formats fields by their template type', () => {
    const fields: [string, FieldType][] = [
      ['total', 'amount'],
      ['shipped', 'date'],
      ['delivered', 'date'],
      ['returned', 'date'],
      ['count', 'number'],
    ];
    const formatted = values(
      {
        currency: 'jpy',
        fields: {
          total: 5000,
          shipped: 1_789_000_000,
          delivered: '2026-09-18',
          returned: 'not yet',
          count: 3,
        },
      },
      fields,
    );
    expect(formatted).toMatchObject({
      total: '5000 JPY',
      shipped: '2026-09-10 00:26 UTC',
      delivered: '2026-09-18',
      returned: 'not yet',
      count: '3',
    });
  });

  it('formats an undeclared field as the attribute it is named after', () => {
    const fields = { amount: 4999, due_by: '2026-10-23T10:00:00Z', constructor: 5 };
    expect(values({ currency: 'usd', fields })).toMatchObject({
      amount: '49.99 USD',
      due_by: '2026-10-23 10:00 UTC',
      constructor: '5',
    });
  });
});

describe('evidenceDictionary', () => {
  it('has every non-empty client field as sent', () => {
    const dispute = bareDispute({
      fields: { order_id: 'A1', total: 4999, gift: false, note: '', gone: null },
    });
    expect(evidenceDictionary({ dispute, template: null, generatedAt })).toEqual({
      gift: false,
      order_id: 'A1',
      total: 4999,
    });
  });

  it('fills template fields the client left empty from the attributes that satisfy missing_fields', () => {
    const dispute = bareDispute({
      charge: 'ch_1',
      amount: 4999,
      chargedAt: new Date('2026-09-14T16:42:00Z'),
      fields: { statement_descriptor: 'SENT' },
      statementDescriptor: 'KNOWN',
    });
    const fields: [string, FieldType][] = [
      ['charge', 'text'],
      ['amount', 'amount'],
      ['charged_at', 'date'],
      ['statement_descriptor', 'text'],
      ['address_zip', 'text'],
      ['reason', 'text'],
    ];
    expect(evidenceDictionary({ dispute, template: template(null, fields), generatedAt })).toEqual({
      amount: 4999,
      charge: 'ch_1',
      charged_at: '2026-09-14T16:42:00',
      statement_descriptor: 'SENT',
    });
  });

  it('takes no value from the prototype for a template field named like one of its keys', () => {
    const input = {
      dispute: bareDispute(),
      template: template(null, [['constructor', 'text']]),
      generatedAt,
    };
    expect(evidenceDictionary(input)).toEqual({});
  });

  it('adds the customer name and email when known, a client field taking precedence', () => {
    const dispute = bareDispute({
      customerName: 'Łukasz Zieliński',
      customerEmail: 'lz@example.pl',
      fields: { customer_email: 'other@example.pl' },
    });
    expect(evidenceDictionary({ dispute, template: null, generatedAt })).toEqual({
      customer_email: 'other@example.pl',
      customer_name: 'Łukasz Zieliński',
    });
  });

  it('has the filled template body as uncategorized_text, without the item sections', () => {
    const dispute = bareDispute({
      fields: { order_id: 'A1' },
      products: [{ name: 'Shoe', quantity: 1, amount: 1 }],
    });
    const body = 'Order {{order_id}}.\n{{products}}\nThanks,\nShop\n\n{{missing}}';
    expect(evidenceDictionary({ dispute, template: template(body), generatedAt })).toEqual({
      order_id: 'A1',
      uncategorized_text: 'Order A1.\n\nThanks,\nShop',
    });
  });

  it('has no uncategorized_text without a body, or when the body renders empty', () => {
    for (const body of [null, '', '{{missing}}\n{{products}}']) {
      expect(evidenceDictionary({ dispute: bareDispute(), template: template(body), generatedAt })).toEqual(
        {},
      );
    }
  });

  it('sorts its keys', () => {
    const dictionary = evidenceDictionary(fullSubmission());
    expect(Object.keys(dictionary)).toEqual([
      'customer_email',
      'customer_name',
      'delivered_on',
      'order_id',
      'order_total',
      'refund_policy_url',
      'tracking_number',
      'uncategorized_text',
    ]);
  });
});

describe('buildEvidenceDocument', () => {
  it('places sections where the body puts them and appends the others after it', () => {
    const model = buildEvidenceDocument(fullSubmission());
    expect(outline(model.blocks)).toEqual([
      'heading',
      'paragraph',
      'paragraph',
      'paragraph',
      'table:products',
      'paragraph',
      'table:correspondence',
      'paragraph',
      'table:past_payments',
      'pairs',
    ]);
  });

  it('appends every non-empty section in order when there is no template, with no heading', () => {
    const dispute = bareDispute({
      products: [{ name: 'Shoe', quantity: 1, amount: 100 }],
      pastPayments: [{ id: 'ch_0', amount: 1, currency: 'usd', charged_at: 0 }],
    });
    expect(outline(buildEvidenceDocument({ dispute, template: null, generatedAt }).blocks)).toEqual([
      'table:products',
      'table:past_payments',
    ]);
  });

  it('leaves out an empty section even where the body places it', () => {
    const model = buildEvidenceDocument({
      dispute: bareDispute(),
      template: template('A\n{{products}}\nB'),
      generatedAt,
    });
    expect(outline(model.blocks)).toEqual(['heading', 'paragraph', 'paragraph']);
  });

  it('heads the body with the template name, or "Response"', () => {
    const heading = (name: string | null) =>
      buildEvidenceDocument({ dispute: bareDispute(), template: template('x', [], name), generatedAt })
        .blocks[0];
    expect(heading('PNR letter')).toEqual({ kind: 'heading', text: 'PNR letter' });
    expect(heading(null)).toEqual({ kind: 'heading', text: 'Response' });
  });

  it('summarises only what the dispute knows', () => {
    const model = buildEvidenceDocument({ dispute: bareDispute(), template: null, generatedAt });
    expect(model.summary).toEqual([
      { label: 'Dispute', value: 'dp_bare' },
      { label: 'Reason', value: 'General' },
      { label: 'Kind', value: 'Chargeback' },
    ]);
    expect(model.blocks).toEqual([]);
  });

  it('summarises a full dispute for a reviewer', () => {
    const { summary, subtitle, pageLabel } = buildEvidenceDocument(fullSubmission());
    expect(Object.fromEntries(summary.map((row) => [row.label, row.value]))).toEqual({
      Dispute: 'du_1PqR7sTuVwXyZ',
      Processor: 'stripe, account default',
      Reason: 'Product not received',
      Kind: 'Chargeback',
      'Disputed amount': '129.98 EUR',
      Charge: 'ch_3PqR7sTuVwXyZ0',
      'Statement descriptor': 'SHOP.EXAMPLE',
      Customer: 'Łukasz Zieliński <lukasz.zielinski@example.pl>',
      'Customer ID': 'cus_R2d2C3po',
      'Purchase IP address': '203.0.113.10',
      'Card checks': 'CVC pass, postal code pass, address line 1 pass',
      Charged: '2026-09-14 16:42 UTC',
      Disputed: '2026-10-02',
      'Response due by': '2026-10-23 23:59 UTC',
      Reference: 'https://shop.example.com/admin/orders/ORD-48213',
    });
    expect(subtitle).toBe('Evidence for dispute du_1PqR7sTuVwXyZ, generated 2026-10-06 09:30 UTC');
    expect(pageLabel).toBe('Dispute du_1PqR7sTuVwXyZ');
  });

  it('lists the evidence fields formatted by type, under readable labels', () => {
    const pairs = buildEvidenceDocument(fullSubmission()).blocks.at(-1);
    expect(pairs).toEqual({
      kind: 'pairs',
      title: 'Evidence fields',
      rows: [
        { label: 'Customer name', value: 'Łukasz Zieliński' },
        { label: 'Delivered on', value: '2026-09-18' },
        { label: 'Order id', value: 'ORD-48213' },
        { label: 'Order total', value: '129.98 EUR' },
        { label: 'Refund policy url', value: 'https://shop.example.com/policies/refunds' },
        { label: 'Tracking number', value: '1Z999AA10123456784' },
      ],
    });
  });

  it('fills the body with formatted values', () => {
    const model = buildEvidenceDocument(fullSubmission());
    expect(model.blocks[2]).toEqual(
      paragraph(
        'Łukasz Zieliński placed order ORD-48213 on 2026-09-14 16:42 UTC for 129.98 EUR and disputes the charge ' +
          'ch_3PqR7sTuVwXyZ0 of 129.98 EUR as "product not received".',
      ),
    );
  });

  it('puts each item in its table, with its long text as the row detail', () => {
    const input = fullSubmission(2);
    const tables = buildEvidenceDocument(input).blocks.flatMap((block) =>
      block.kind === 'table' ? [block.table] : [],
    );
    expect(tables.map((table) => [table.title, table.rows.length])).toEqual([
      ['Products (2)', 2],
      ['Correspondence (2)', 2],
      ['Past payments (2)', 2],
    ]);
    const [products, correspondence, payments] = tables;
    expect(products?.rows[0]).toEqual({
      cells: ['Trail running shoe, model 1', 'SKU-TRS-1000', '1', '64.99 EUR', 'UPS\n1Z999AA10123456780'],
      detail: 'Trail shoe with a rock plate and a 6 mm drop; size EU 40.',
    });
    expect(correspondence?.rows[1]).toEqual({
      cells: [
        '2026-09-11 00:26 UTC',
        'support@shop.example.com',
        'lukasz.zielinski@example.pl',
        'Re: order ORD-48213, message 2',
      ],
      detail: 'Dzień dobry Łukasz, your parcel was delivered on 18 September and signed for by "Zieliński".',
    });
    expect(payments?.rows[0]?.cells).toEqual([
      'ch_3PastPayment0',
      '2026-01-10 10:15 UTC',
      '49.99 EUR',
      'dev_0\nuser user_2231',
      '203.0.113.10',
      'Trail running socks, 3 pairs',
      'ul. Marszałkowska 12/4, 00-590 Warszawa, Poland',
    ]);
  });
});

describe('documentText', () => {
  it('has every summary value, paragraph and item', () => {
    const input = fullSubmission();
    const text = documentText(buildEvidenceDocument(input));
    const expected = [
      'Dispute response',
      'Customer: Łukasz Zieliński <lukasz.zielinski@example.pl>',
      'Response due by: 2026-10-23 23:59 UTC',
      'Sincerely,\nThe Shop team',
      ...input.dispute.products.map((product) => `Product: ${product.name}`),
      ...input.dispute.correspondence.map((item) => `Subject: ${item.subject}`),
      ...input.dispute.pastPayments.map((payment) => `Payment: ${payment.id}`),
      'Order total: 129.98 EUR',
    ];
    for (const piece of expected) expect(text).toContain(piece);
  });

  it('lays tables out as numbered records', () => {
    const dispute = bareDispute({
      products: [{ name: 'Shoe', quantity: 2, amount: 100, description: 'Red.\nSize 43.' }],
      currency: 'usd',
    });
    expect(documentText(buildEvidenceDocument({ dispute, template: null, generatedAt }))).toBe(
      [
        'Dispute response',
        '================',
        '',
        'Evidence for dispute dp_bare, generated 2026-10-06 09:30 UTC',
        '',
        'Dispute: dp_bare\nReason: General\nKind: Chargeback',
        '',
        'Products (1)\n------------',
        '',
        '1. Product: Shoe\n   Qty: 2\n   Amount: 1.00 USD',
        '',
        '   Red.\n   Size 43.\n',
      ].join('\n'),
    );
  });
});

describe('determinism', () => {
  it('gives the same dictionary, model and text for the same input', () => {
    const [first, second] = [fullSubmission(), fullSubmission()];
    expect(evidenceDictionary(first)).toEqual(evidenceDictionary(second));
    expect(buildEvidenceDocument(first)).toEqual(buildEvidenceDocument(second));
    expect(documentText(buildEvidenceDocument(first))).toBe(documentText(buildEvidenceDocument(second)));
  });

  it('does not depend on the order the client sent its fields in', () => {
    const input = fullSubmission();
    const reversed = {
      ...input,
      dispute: {
        ...input.dispute,
        fields: Object.fromEntries(Object.entries(input.dispute.fields).reverse()),
      },
    };
    expect(JSON.stringify(evidenceDictionary(reversed))).toBe(JSON.stringify(evidenceDictionary(input)));
    expect(documentText(buildEvidenceDocument(reversed))).toBe(documentText(buildEvidenceDocument(input)));
  });
});
