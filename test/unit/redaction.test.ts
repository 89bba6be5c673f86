import { describe, expect, it } from 'vitest';
import { removeInput } from '../../src/api/inputs/personal-data.js';
import {
  concernsPerson,
  customerOfObject,
  documentConcernsPerson,
  isPersonsCustomer,
  objectConcernsPerson,
  type PersonalColumns,
  personOf,
  redactDispute,
  redactDisputeObject,
  redactDocumentInput,
  redactEvidence,
} from '../../src/domain/personal-data.js';
import {
  containsDeep,
  redactAttributes,
  redactedText,
  replaceDeep,
  sameJson,
} from '../../src/domain/redaction.js';
import { bareDispute, generatedAt, template } from '../helpers/evidence-documents.js';

/** Deep redaction (domain/redaction.ts) and what removing a person does to each kind of record. */

const ada = personOf({ email: 'Ada@Example.com', name: 'Ada  Lovelace' });

describe('replaceDeep', () => {
  it('replaces every match in every string, however deep, and keeps the structure', () => {
    const value = {
      note: 'ask ada about it, then Ada again',
      list: ['ada', 1, true, null, { inner: ['xadax'] }],
      count: 3,
      empty: {},
    };
    expect(replaceDeep(value, /ada/gi)).toEqual({
      note: `ask ${redactedText} about it, then ${redactedText} again`,
      list: [redactedText, 1, true, null, { inner: [`x${redactedText}x`] }],
      count: 3,
      empty: {},
    });
  });

  it('leaves object keys alone and does not change the value it was given', () => {
    const value = { ada: 'ada', nested: { ada: ['ada'] } };
    const copy = structuredClone(value);
    expect(replaceDeep(value, /ada/g)).toEqual({ ada: redactedText, nested: { ada: [redactedText] } });
    expect(value).toEqual(copy);
  });

  it('keeps a stored __proto__ key a key', () => {
    const value = JSON.parse('{"__proto__": {"name": "ada"}}') as Record<string, unknown>;
    const redacted = replaceDeep(value, /ada/g);
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.hasOwn(redacted, '__proto__')).toBe(true);
    expect(JSON.stringify(redacted)).toBe(`{"__proto__":{"name":"${redactedText}"}}`);
  });

  it('returns scalars as they are', () => {
    expect(replaceDeep(42, /4/g)).toBe(42);
    expect(replaceDeep(null, /x/g)).toBeNull();
    expect(replaceDeep('x', /x/g)).toBe(redactedText);
  });
});

describe('containsDeep', () => {
  it.each([
    ['a string', 'hello ada', true],
    ['a nested array', [[['ADA']]], true],
    ['an object value', { a: { b: 'Ada' } }, true],
    ['an object key only', { ada: 'x' }, false],
    ['numbers and booleans', [1, true, null], false],
    ['nothing', undefined, false],
  ])('finds a match in %s: %s', (_label, value, found) => {
    expect(containsDeep(value, /ada/gi)).toBe(found);
  });

  it('gives the same answer however often a global pattern is used', () => {
    const pattern = /ada/g;
    expect([1, 2, 3].map(() => containsDeep('ada', pattern))).toEqual([true, true, true]);
  });
});

describe('redactAttributes', () => {
  it('replaces the named string attributes whole; absent and null ones stay as they are', () => {
    expect(redactAttributes({ ip: '203.0.113.9', zip: null, keep: 'x' }, ['ip', 'zip', 'gone'])).toEqual({
      ip: redactedText,
      zip: null,
      keep: 'x',
    });
  });

  it('returns what is not an object unchanged', () => {
    expect(redactAttributes('text', ['a'])).toBe('text');
    expect(redactAttributes([1], ['a'])).toEqual([1]);
  });
});

describe('sameJson', () => {
  it('compares JSON values', () => {
    expect(sameJson({ a: [1, 'x'] }, { a: [1, 'x'] })).toBe(true);
    expect(sameJson({ a: [1, 'x'] }, { a: [1, 'y'] })).toBe(false);
  });
});

describe('personOf: matching a person', () => {
  it('normalises the email (trimmed, lower case) and the name (whitespace collapsed, lower case)', () => {
    const person = personOf({ email: '  Ada@Example.COM ', name: ' Ada \t Lovelace ' });
    expect(person).toMatchObject({ email: 'ada@example.com', name: 'ada lovelace' });
  });

  it.each([
    ['the email in any case', 'Write to ADA@EXAMPLE.COM today', true],
    ['the email in angle brackets', 'Ada L. <ada@example.com>', true],
    ['the email after mailto:', 'mailto:ada@example.com', true],
    ['the name in any case', 'signed ADA LOVELACE', true],
    ['the name across a line break', 'Dear Ada\n  Lovelace,', true],
    ['the name possessive', "Ada Lovelace's order", true],
    ['a longer address', 'grada@example.com', false],
    ['an address in a longer domain', 'ada@example.com.au', false],
    ['the name inside a longer word', 'Ada Lovelacexx', false],
    ['the first name alone', 'Ada', false],
  ])('finds %s', (_label, text, found) => {
    expect(containsDeep(text, ada.mentions)).toBe(found);
  });

  it('escapes what regular expressions would read as syntax', () => {
    const person = personOf({ email: 'a.b+c@example.com', name: 'J. (Jr) Smith' });
    expect(containsDeep('to a.b+c@example.com', person.mentions)).toBe(true);
    expect(containsDeep('to aXb+c@example.com', person.mentions)).toBe(false);
    expect(containsDeep('from j. (jr) smith', person.mentions)).toBe(true);
  });

  it('spells out both cases for the database search: the email and the longest word of the name', () => {
    const person = personOf({ email: 'Ab.c@x.io', name: 'Zoë Ng' });
    expect(person.searchPatterns).toEqual(['[Aa][bB]\\.[cC]\\@[xX]\\.[iI][oO]', '[Zz][oO][ëË]']);
  });
});

const stored = (overrides: Partial<PersonalColumns> = {}): PersonalColumns => ({
  customerName: null,
  customerEmail: null,
  customerPurchaseIp: null,
  addressZip: null,
  fields: {},
  products: [],
  correspondence: [],
  pastPayments: [],
  referenceUrl: null,
  ...overrides,
});

describe('removeInput: who may be asked for', () => {
  const asked = (name: string) => removeInput.safeParse({ email: 'ada@example.com', name }).success;

  it.each([
    ['a one-letter name', 'J', false],
    ['one letter among digits and marks', 'J. 2', false],
    ['a two-letter name', 'Jo', true],
    ['two letters of another script', '李明', true],
    ['a full name', 'Ada Lovelace', true],
  ])('%s: %s', (_label, name, accepted) => {
    expect(asked(name)).toBe(accepted);
  });
});

describe('isPersonsCustomer: whose customer attributes a removal clears', () => {
  it.each<[string, { customerName: string | null; customerEmail: string | null }, boolean]>([
    ['their email, another name', { customerEmail: ' ADA@example.com', customerName: 'A. L.' }, true],
    ['no email, their name', { customerEmail: null, customerName: 'ada   LOVELACE' }, true],
    ['an empty email, their name', { customerEmail: ' ', customerName: 'Ada Lovelace' }, true],
    [
      'their name, another email',
      { customerEmail: 'ada@other.example', customerName: 'Ada Lovelace' },
      false,
    ],
    ['no email, a name mentioning theirs', { customerEmail: null, customerName: 'Dr Ada Lovelace' }, false],
    ['nobody', { customerEmail: null, customerName: null }, false],
  ])('%s: %s', (_label, customer, theirs) => {
    expect(isPersonsCustomer(customer, ada)).toBe(theirs);
  });

  it('reads the customer of a dispute object', () => {
    expect(customerOfObject({ customer_name: 'Ada Lovelace', customer_email: null })).toEqual({
      customerName: 'Ada Lovelace',
      customerEmail: null,
    });
    expect(customerOfObject('text')).toEqual({ customerName: null, customerEmail: null });
  });
});

describe('concernsPerson', () => {
  it.each<[string, Partial<PersonalColumns>, boolean]>([
    ['customer_email equal ignoring case and spaces', { customerEmail: ' ADA@example.com' }, true],
    ['customer_name equal ignoring case and whitespace', { customerName: 'ada   LOVELACE' }, true],
    ['customer_name mentioning the name', { customerName: 'Dr Ada Lovelace' }, false],
    [
      'customer_name equal, another customer_email',
      { customerName: 'Ada Lovelace', customerEmail: 'ada@other.example' },
      false,
    ],
    ['a field', { fields: { note: 'spoke to ada@example.com' } }, true],
    [
      'a product description',
      { products: [{ name: 'Mug', quantity: 1, amount: 100, description: 'For Ada Lovelace' }] },
      true,
    ],
    [
      'a letter',
      { correspondence: [{ to: 'x@y.z', from: 'a@b.c', subject: 's', body: 'Hi Ada Lovelace' }] },
      true,
    ],
    [
      'a past payment',
      {
        pastPayments: [
          {
            id: 'ch_1',
            amount: 1,
            currency: 'usd',
            charged_at: 1,
            shipping_address: 'Ada Lovelace, 1 Main St',
          },
        ],
      },
      true,
    ],
    ['the reference URL', { referenceUrl: 'https://shop.example/?e=ada@example.com' }, true],
    ['someone else', { customerName: 'Charles Babbage', customerEmail: 'cb@example.com' }, false],
    ['nobody', {}, false],
  ])('by %s: %s', (_label, overrides, concerned) => {
    expect(concernsPerson(stored(overrides), ada)).toBe(concerned);
  });
});

describe('objectConcernsPerson and documentConcernsPerson', () => {
  it.each<[string, Record<string, unknown>, boolean]>([
    ['their customer', { customer_email: 'ada@example.com' }, true],
    ['a mention in the fields', { fields: { note: 'Ada Lovelace' } }, true],
    ['another customer sharing the name', { customer_name: 'Ada Lovelace', customer_email: 'x@y.z' }, false],
    ['only the response evidence', { evidence: { customer_name: 'Ada Lovelace' } }, false],
    ['nothing', { id: 'dp_1' }, false],
  ])('an event payload with %s: %s', (_label, object, concerned) => {
    expect(objectConcernsPerson(object, ada)).toBe(concerned);
  });

  it('a document input: by its dispute, or by its template text outside placeholders', () => {
    const input = (body: string | null, overrides = {}) => ({
      dispute: bareDispute(overrides),
      template: template(body),
      generatedAt,
    });
    expect(documentConcernsPerson(input(null, { customerEmail: 'ada@example.com' }), ada)).toBe(true);
    expect(documentConcernsPerson(input('Thanks, Ada Lovelace.'), ada)).toBe(true);
    expect(documentConcernsPerson(input('{{customer_name}} placed order'), ada)).toBe(false);
    expect(
      documentConcernsPerson(
        input('{{customer_name}}', { customerName: 'Ada Lovelace', customerEmail: 'x@y.z' }),
        ada,
      ),
    ).toBe(false);
  });
});

describe('redactEvidence', () => {
  const letter = {
    to: 'Ada Lovelace <ada@example.com>',
    from: 'support@shop.example',
    subject: 'Your order, Ada Lovelace',
    body: 'Dear Ada Lovelace, we wrote to ada@example.com.',
    sent: '2024-01-01',
  };
  const payment = {
    id: 'ch_1',
    amount: 1200,
    currency: 'usd',
    charged_at: 1_700_000_000,
    ip_address: '203.0.113.9',
    shipping_address: '1 Main St',
    email: 'ada.l@example.org',
    item_description: 'Mug for Ada Lovelace',
  };

  it('redacts letters, past payments and every mention, keeping amounts and ids', () => {
    const evidence = {
      template: 'tpl_1',
      fields: { order_id: 'A-1', email: 'ada@example.com', total: 1200, gift: true },
      products: [{ name: 'Mug', quantity: 1, amount: 1200, description: 'Engraved: Ada Lovelace' }],
      correspondence: [letter],
      pastPayments: [payment],
      referenceUrl: 'https://shop.example/orders/A-1',
    };
    expect(redactEvidence(evidence, ada, { theirs: true })).toEqual({
      template: 'tpl_1',
      fields: { order_id: 'A-1', email: redactedText, total: 1200, gift: true },
      products: [{ name: 'Mug', quantity: 1, amount: 1200, description: `Engraved: ${redactedText}` }],
      correspondence: [
        {
          to: redactedText,
          from: 'support@shop.example',
          subject: `Your order, ${redactedText}`,
          body: `Dear ${redactedText}, we wrote to ${redactedText}.`,
          sent: '2024-01-01',
        },
      ],
      pastPayments: [
        {
          ...payment,
          ip_address: redactedText,
          shipping_address: redactedText,
          email: redactedText,
          item_description: `Mug for ${redactedText}`,
        },
      ],
      referenceUrl: 'https://shop.example/orders/A-1',
    });
  });

  it('takes the API shape (past_payments) too', () => {
    expect(redactEvidence({ past_payments: [payment] }, ada, { theirs: true })).toEqual({
      past_payments: [
        {
          ...payment,
          ip_address: redactedText,
          shipping_address: redactedText,
          email: redactedText,
          item_description: `Mug for ${redactedText}`,
        },
      ],
    });
  });

  it("keeps the past payments' addresses of another customer's dispute, replacing only mentions", () => {
    expect(redactEvidence({ pastPayments: [payment] }, ada, { theirs: false })).toEqual({
      pastPayments: [{ ...payment, item_description: `Mug for ${redactedText}` }],
    });
  });

  it('replaces a letter address whole when it mentions the person by name', () => {
    const [redacted] = redactEvidence(
      { correspondence: [{ ...letter, from: 'Ada Lovelace <a.l@home.example>' }] },
      ada,
      { theirs: false },
    ).correspondence;
    expect(redacted).toMatchObject({ to: redactedText, from: redactedText });
  });
});

describe('redactDisputeObject', () => {
  it("nulls the customer attributes of the person's dispute object and redacts its evidence", () => {
    const object = {
      object: 'dispute',
      id: 'dp_1',
      state: 'submitted',
      amount: 1200,
      customer: 'cus_1',
      customer_name: 'Ada Lovelace',
      customer_email: 'ada@example.com',
      customer_purchase_ip: '203.0.113.9',
      address_zip: 'SW1A 1AA',
      fields: { note: 'Ada Lovelace called' },
      correspondence: [],
      past_payments: [{ id: 'ch_1', amount: 1, currency: 'usd', charged_at: 1, ip_address: '203.0.113.9' }],
      created: '2024-01-01T00:00:00',
    };
    expect(redactDisputeObject(object, ada, { theirs: true })).toEqual({
      ...object,
      customer_name: null,
      customer_email: null,
      customer_purchase_ip: null,
      address_zip: null,
      fields: { note: `${redactedText} called` },
      past_payments: [{ id: 'ch_1', amount: 1, currency: 'usd', charged_at: 1, ip_address: redactedText }],
    });
  });

  it("keeps another customer's attributes, redacting only the mentions elsewhere", () => {
    const object = {
      customer_name: 'Ada Lovelace',
      customer_email: 'ada@other.example',
      customer_purchase_ip: '203.0.113.9',
      address_zip: null,
      fields: { note: 'not the Ada Lovelace of ada@example.com' },
    };
    expect(redactDisputeObject(object, ada, { theirs: false })).toEqual({
      ...object,
      fields: { note: `not the ${redactedText} of ${redactedText}` },
    });
  });

  it("leaves a response's evidence to its document, and keeps the key order", () => {
    const object = { evidence: { customer_name: 'Ada Lovelace' }, customer_name: 'Ada Lovelace', id: 'dp_1' };
    const redacted = redactDisputeObject(object, ada, { theirs: true });
    expect(redacted).toEqual({ ...object, customer_name: null });
    expect(Object.keys(redacted)).toEqual(Object.keys(object));
  });

  it('adds no attributes to payloads that are not disputes', () => {
    expect(redactDisputeObject({}, ada, { theirs: true })).toEqual({});
  });
});

describe('redactDispute', () => {
  it('nulls the customer columns of a dispute row and redacts its evidence', () => {
    const row = stored({
      customerName: 'Ada Lovelace',
      customerEmail: 'ada@example.com',
      customerPurchaseIp: '203.0.113.9',
      addressZip: '12345',
      fields: { order_id: 'A-1', note: 'for ada@example.com' },
      referenceUrl: 'https://shop.example/?email=ada@example.com',
    });
    expect(redactDispute(row, ada)).toEqual({
      ...row,
      customerName: null,
      customerEmail: null,
      customerPurchaseIp: null,
      addressZip: null,
      fields: { order_id: 'A-1', note: `for ${redactedText}` },
      referenceUrl: `https://shop.example/?email=${redactedText}`,
    });
  });

  it('keeps the customer columns of a customer who only shares the name', () => {
    const row = stored({
      customerName: 'Ada Lovelace',
      customerEmail: 'ada@other.example',
      customerPurchaseIp: '203.0.113.9',
      addressZip: '12345',
      fields: { note: 'wrote to ada@example.com by mistake' },
    });
    expect(redactDispute(row, ada)).toEqual({
      ...row,
      fields: { note: `wrote to ${redactedText} by mistake` },
    });
  });
});

describe('redactDocumentInput', () => {
  const body = 'Dear bank,\n{{ customer_name }} ({{customer_email}}) wrote to Ada Lovelace.\n{{products}}';
  const input = (overrides: Parameters<typeof bareDispute>[0]) => ({
    dispute: bareDispute({
      customerName: 'Ada Lovelace',
      customerPurchaseIp: '203.0.113.9',
      addressZip: 'SW1A 1AA',
      fields: { order_id: 'A-1', note: 'Ada Lovelace called' },
      pastPayments: [{ id: 'ch_1', amount: 1, currency: 'usd', charged_at: 1, ip_address: '203.0.113.9' }],
      ...overrides,
    }),
    template: {
      ...template(body, [['note', 'text']], 'For Ada Lovelace'),
      fields: [
        { key: 'note', type: 'text' as const, required: false, description: 'What ada@example.com said' },
      ],
    },
    generatedAt,
  });

  it("redacts the person's dispute as a row, and the template's text but its placeholders", () => {
    const given = input({ customerEmail: 'ada@example.com' });
    const copy = structuredClone(given);
    const redacted = redactDocumentInput(given, ada);
    expect(redacted).toEqual({
      ...given,
      dispute: {
        ...given.dispute,
        customerName: null,
        customerEmail: null,
        customerPurchaseIp: null,
        addressZip: null,
        fields: { order_id: 'A-1', note: `${redactedText} called` },
        pastPayments: [{ id: 'ch_1', amount: 1, currency: 'usd', charged_at: 1, ip_address: redactedText }],
      },
      template: {
        ...given.template,
        name: `For ${redactedText}`,
        body: `Dear bank,\n{{ customer_name }} ({{customer_email}}) wrote to ${redactedText}.\n{{products}}`,
        fields: [{ key: 'note', type: 'text', required: false, description: `What ${redactedText} said` }],
      },
    });
    expect(redacted.generatedAt).toBe(given.generatedAt);
    expect(given).toEqual(copy);
  });

  it("keeps another customer's attributes and past payments, replacing only the mentions", () => {
    const given = input({ customerEmail: 'ada@other.example' });
    const redacted = redactDocumentInput(given, ada);
    expect(redacted.dispute).toEqual({
      ...given.dispute,
      fields: { order_id: 'A-1', note: `${redactedText} called` },
    });
  });

  it('takes a document without a template', () => {
    const given = { ...input({ customerEmail: 'ada@example.com' }), template: null };
    expect(redactDocumentInput(given, ada).template).toBeNull();
  });
});
