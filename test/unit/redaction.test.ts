import { describe, expect, it } from 'vitest';
import {
  concernsPerson,
  type PersonalColumns,
  personOf,
  redactDispute,
  redactDisputeObject,
  redactEvidence,
} from '../../src/domain/personal-data.js';
import {
  containsDeep,
  redactAttributes,
  redactedText,
  replaceDeep,
  sameJson,
} from '../../src/domain/redaction.js';

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

describe('concernsPerson', () => {
  it.each<[string, Partial<PersonalColumns>, boolean]>([
    ['customer_email equal ignoring case and spaces', { customerEmail: ' ADA@example.com' }, true],
    ['customer_name equal ignoring case and whitespace', { customerName: 'ada   LOVELACE' }, true],
    ['customer_name mentioning the name', { customerName: 'Dr Ada Lovelace' }, true],
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
    expect(redactEvidence(evidence, ada)).toEqual({
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
          item_description: `Mug for ${redactedText}`,
        },
      ],
      referenceUrl: 'https://shop.example/orders/A-1',
    });
  });

  it('takes the API shape (past_payments) too', () => {
    expect(redactEvidence({ past_payments: [payment] }, ada)).toEqual({
      past_payments: [
        {
          ...payment,
          ip_address: redactedText,
          shipping_address: redactedText,
          item_description: `Mug for ${redactedText}`,
        },
      ],
    });
  });

  it('replaces a letter address whole when it mentions the person by name', () => {
    const [redacted] = redactEvidence(
      { correspondence: [{ ...letter, from: 'Ada Lovelace <a.l@home.example>' }] },
      ada,
    ).correspondence;
    expect(redacted).toMatchObject({ to: redactedText, from: redactedText });
  });
});

describe('redactDisputeObject', () => {
  it('nulls the customer attributes and redacts the evidence of a stored dispute object', () => {
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
    expect(redactDisputeObject(object, ada)).toEqual({
      ...object,
      customer_name: null,
      customer_email: null,
      customer_purchase_ip: null,
      address_zip: null,
      fields: { note: `${redactedText} called` },
      past_payments: [{ id: 'ch_1', amount: 1, currency: 'usd', charged_at: 1, ip_address: redactedText }],
    });
  });

  it('adds no attributes to payloads that are not disputes', () => {
    expect(redactDisputeObject({}, ada)).toEqual({});
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
});
