import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import type { FieldValue } from '../../src/domain/evidence.js';
import {
  attributesFillingFields,
  checkFieldValues,
  createTemplateInput,
  type FieldType,
  fieldTypes,
  mergeFields,
  missingFields,
  type TemplateField,
  type TemplateShape,
  templateInput,
} from '../../src/domain/templates.js';

function field(key: string, type: FieldType, required = false): TemplateField {
  return { key, type, required, description: null };
}

function templateWith(...fields: TemplateField[]): TemplateShape {
  return { id: 'tpl_test', fields };
}

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('field types', () => {
  it('are the seven types of docs/api.md, "The dispute object"', () => {
    expect([...fieldTypes].sort()).toEqual(['amount', 'date', 'email', 'file', 'number', 'text', 'url']);
  });
});

describe('checkFieldValues accepts values of the declared type', () => {
  it.each<[FieldType, FieldValue, FieldValue]>([
    ['text', 'hello', 'hello'],
    ['text', 'Order 42 shipped by DHL', 'Order 42 shipped by DHL'],
    ['date', '2021-03-01', '2021-03-01'],
    ['date', '1 March 2021', '1 March 2021'],
    ['date', 1_614_602_096, 1_614_602_096],
    ['number', 42, 42],
    ['number', -3, -3],
    ['number', 0, 0],
    ['number', '42', 42],
    ['number', '-3', -3],
    ['amount', 1999, 1999],
    ['amount', 0, 0],
    ['amount', '1999', 1999],
    ['url', 'https://example.com/tracking/1', 'https://example.com/tracking/1'],
    ['url', 'http://example.com', 'http://example.com'],
    ['email', 'ada@example.com', 'ada@example.com'],
    ['email', 'first.last+tag@sub.example.co.uk', 'first.last+tag@sub.example.co.uk'],
  ])('a %s field accepts %j (as %j)', (type, value, expected) => {
    const template = templateWith(field('value', type));
    expect(checkFieldValues(template, { value })).toEqual({ value: expected });
  });
});

describe('checkFieldValues refuses values of the wrong type with invalid_fields', () => {
  it.each<[FieldType, FieldValue]>([
    ['text', 42],
    ['text', true],
    ['date', true],
    ['date', 1.5],
    ['number', 1.5],
    ['number', '1.5'],
    ['number', 'abc'],
    ['number', '4e2'],
    ['number', true],
    ['amount', 19.99],
    ['amount', '19.99'],
    ['amount', '$5'],
    ['amount', 'ten'],
    ['amount', false],
    ['url', 'example.com'],
    ['url', '/relative'],
    ['url', 'ftp://example.com/file'],
    ['url', 'javascript:alert(1)'],
    ['url', 'not a url'],
    ['url', 42],
    ['email', 'ada'],
    ['email', 'ada@'],
    ['email', '@example.com'],
    ['email', 'ada example@example.com'],
    ['email', 42],
  ])('a %s field refuses %j, naming the field', (type, value) => {
    const template = templateWith(field('order_detail', type));
    const error = caught(() => checkFieldValues(template, { order_detail: value }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ type: 'invalid_fields', status: 400 });
    expect((error as ApiError).message).toContain('order_detail');
  });

  it('names the offending field, not a valid one next to it', () => {
    const template = templateWith(field('shipped_on', 'date'), field('tracking_url', 'url'));
    const error = caught(() =>
      checkFieldValues(template, { shipped_on: '2021-03-01', tracking_url: 'not a url' }),
    ) as ApiError;
    expect(error.type).toBe('invalid_fields');
    expect(error.message).toContain('tracking_url');
    expect(error.message).not.toContain('shipped_on');
  });
});

describe('checkFieldValues passes through what the template does not constrain', () => {
  it('returns the values unchanged when the dispute has no template', () => {
    const values = { anything: 'goes', count: '42' };
    expect(checkFieldValues(null, values)).toEqual({ anything: 'goes', count: '42' });
  });

  it('leaves keys the template does not declare unchanged', () => {
    const template = templateWith(field('count', 'number'));
    expect(checkFieldValues(template, { count: '7', extra: 'x', flag: true })).toEqual({
      count: 7,
      extra: 'x',
      flag: true,
    });
  });

  it('does not require declared fields that are absent (that is missingFields)', () => {
    const template = templateWith(field('count', 'number', true), field('site', 'url', true));
    expect(checkFieldValues(template, {})).toEqual({});
  });

  it.each(['constructor', 'toString'])(
    'does not check a declared field %s that is absent (what objects inherit is not a value)',
    (key) => {
      const template = templateWith(field(key, 'text', true));
      expect(checkFieldValues(template, {})).toEqual({});
    },
  );

  it('does not change the dictionary it was given', () => {
    const template = templateWith(field('count', 'number'));
    const values = { count: '7' };
    checkFieldValues(template, values);
    expect(values).toEqual({ count: '7' });
  });
});

describe('missingFields', () => {
  it('returns {} when the dispute has no template', () => {
    expect(missingFields(null, {}, {})).toEqual({});
  });

  it('lists each required field that is not provided, with its type', () => {
    const template = templateWith(
      field('order_id', 'text', true),
      field('shipped_on', 'date', true),
      field('refund_amount', 'amount', true),
    );
    expect(missingFields(template, {}, {})).toEqual({
      order_id: 'text',
      shipped_on: 'date',
      refund_amount: 'amount',
    });
  });

  it('does not list optional fields', () => {
    const template = templateWith(field('note', 'text', false));
    expect(missingFields(template, {}, {})).toEqual({});
  });

  it('does not list a required field that fields provides', () => {
    const template = templateWith(field('order_id', 'text', true), field('tracking', 'url', true));
    expect(missingFields(template, { order_id: '123' }, {})).toEqual({ tracking: 'url' });
  });

  it.each<[string, FieldValue]>([
    ['zero', 0],
    ['false', false],
    ['a space', ' '],
  ])('counts %s in fields as provided (it is not empty)', (_what, value) => {
    const template = templateWith(field('value', 'text', true));
    expect(missingFields(template, { value }, {})).toEqual({});
  });

  it('counts an empty string in fields as missing', () => {
    const template = templateWith(field('order_id', 'text', true));
    expect(missingFields(template, { order_id: '' }, {})).toEqual({ order_id: 'text' });
  });

  it('counts null in fields as missing', () => {
    const template = templateWith(field('order_id', 'text', true));
    expect(missingFields(template, { order_id: null }, {})).toEqual({ order_id: 'text' });
  });

  it('fills the nine attributes of docs/api.md, "The dispute object"', () => {
    expect([...attributesFillingFields].sort()).toEqual(
      [
        'customer_name',
        'customer_email',
        'customer_purchase_ip',
        'charge',
        'amount',
        'currency',
        'charged_at',
        'statement_descriptor',
        'address_zip',
      ].sort(),
    );
  });

  it.each<[string, FieldType, unknown]>([
    ['customer_name', 'text', 'Ada Lovelace'],
    ['customer_email', 'email', 'ada@example.com'],
    ['customer_purchase_ip', 'text', '203.0.113.7'],
    ['charge', 'text', 'ch_123'],
    ['amount', 'amount', 1999],
    ['amount', 'amount', 0],
    ['currency', 'text', 'usd'],
    ['charged_at', 'date', new Date('2021-03-01T00:00:00Z')],
    ['statement_descriptor', 'text', 'ACME STORE'],
    ['address_zip', 'text', '94110'],
  ])(
    'counts a required %s field as provided by the dispute attribute of that name (%j)',
    (key, type, value) => {
      const template = templateWith(field(key, type, true));
      expect(missingFields(template, {}, { [key]: value })).toEqual({});
    },
  );

  it('lists a required field whose same-named dispute attribute is null', () => {
    const template = templateWith(field('customer_email', 'email', true));
    expect(missingFields(template, {}, { customer_email: null })).toEqual({ customer_email: 'email' });
  });

  it('lists a required field that only a differently named attribute could fill', () => {
    const template = templateWith(field('buyer_email', 'email', true));
    expect(missingFields(template, {}, { customer_email: 'ada@example.com' })).toEqual({
      buyer_email: 'email',
    });
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])(
    'lists a required field named %s that neither fields nor an attribute provides',
    (key) => {
      const template = templateWith(field(key, 'text', true));
      expect(missingFields(template, {}, {})).toEqual({ [key]: 'text' });
    },
  );

  it('counts a required field named constructor as provided when fields holds it', () => {
    const template = templateWith(field('constructor', 'text', true));
    expect(missingFields(template, { constructor: 'x' }, {})).toEqual({});
  });

  it('counts a required field as provided by its attribute even when fields holds "" for it', () => {
    const template = templateWith(field('customer_name', 'text', true));
    expect(missingFields(template, { customer_name: '' }, { customer_name: 'Ada' })).toEqual({});
  });
});

describe('mergeFields', () => {
  it('returns the stored fields when nothing is sent', () => {
    expect(mergeFields({ a: '1' }, undefined)).toEqual({ a: '1' });
  });

  it('adds new keys and overwrites sent ones, keeping the others', () => {
    expect(mergeFields({ a: '1', b: '2' }, { b: '20', c: 3 })).toEqual({ a: '1', b: '20', c: 3 });
  });

  it('removes a key sent as null', () => {
    expect(mergeFields({ a: '1', b: '2' }, { a: null })).toEqual({ b: '2' });
  });

  it('removes a key sent as ""', () => {
    expect(mergeFields({ a: '1', b: '2' }, { b: '' })).toEqual({ a: '1' });
  });

  it('ignores null or "" for a key that is not stored', () => {
    expect(mergeFields({ a: '1' }, { x: null, y: '' })).toEqual({ a: '1' });
  });

  it('keeps 0 and false, which are values, not removals', () => {
    expect(mergeFields({}, { count: 0, flag: false })).toEqual({ count: 0, flag: false });
  });

  it('does not change the stored dictionary', () => {
    const stored = { a: '1', b: '2' };
    mergeFields(stored, { a: null, c: '3' });
    expect(stored).toEqual({ a: '1', b: '2' });
  });
});

describe('createTemplateInput', () => {
  it('accepts a template and defaults required to false and description to null', () => {
    expect(
      createTemplateInput.parse({
        id: 'tpl_goods',
        name: 'Goods',
        fields: [{ key: 'order_id', type: 'text' }],
      }),
    ).toEqual({
      id: 'tpl_goods',
      name: 'Goods',
      fields: [{ key: 'order_id', type: 'text', required: false, description: null }],
    });
  });

  it('accepts every field type', () => {
    const fields = fieldTypes.map((type) => ({ key: `f_${type}`, type, required: true }));
    expect(createTemplateInput.safeParse({ id: 'tpl_all', fields }).success).toBe(true);
  });

  it('accepts fields sent as one JSON-text value (forms)', () => {
    const parsed = createTemplateInput.parse({
      id: 'tpl_form',
      fields: '[{"key":"order_id","type":"text","required":true}]',
    });
    expect(parsed.fields).toEqual([{ key: 'order_id', type: 'text', required: true, description: null }]);
  });

  it('accepts reasons from the reason list', () => {
    expect(createTemplateInput.parse({ id: 'tpl_r', reasons: ['fraudulent', 'duplicate'] }).reasons).toEqual([
      'fraudulent',
      'duplicate',
    ]);
  });

  it('refuses duplicate field keys', () => {
    const result = createTemplateInput.safeParse({
      id: 'tpl_dup',
      fields: [
        { key: 'order_id', type: 'text' },
        { key: 'order_id', type: 'number' },
      ],
    });
    expect(result.success).toBe(false);
  });

  it('refuses an unknown field type', () => {
    const result = createTemplateInput.safeParse({ id: 'tpl_x', fields: [{ key: 'phone', type: 'phone' }] });
    expect(result.success).toBe(false);
  });

  it('refuses a field without a key', () => {
    expect(createTemplateInput.safeParse({ id: 'tpl_x', fields: [{ type: 'text' }] }).success).toBe(false);
  });

  it('refuses a field key with characters outside the allowed set', () => {
    expect(
      createTemplateInput.safeParse({ id: 'tpl_x', fields: [{ key: 'order id', type: 'text' }] }).success,
    ).toBe(false);
  });

  it('refuses an unknown reason', () => {
    expect(createTemplateInput.safeParse({ id: 'tpl_x', reasons: ['not_a_reason'] }).success).toBe(false);
  });

  it.each(['', 'has space', 'slash/inside', 'x'.repeat(256)])('refuses the id %j', (id) => {
    expect(createTemplateInput.safeParse({ id }).success).toBe(false);
  });

  it('requires an id on create', () => {
    expect(createTemplateInput.safeParse({ name: 'No id' }).success).toBe(false);
  });

  it('does not take an id on update (templateInput)', () => {
    expect(templateInput.parse({ name: 'Renamed' })).toEqual({ name: 'Renamed' });
  });
});
