import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  absoluteUrl,
  boolean,
  currency,
  integer,
  jsonArray,
  nonNegativeInteger,
  parseTimestamp,
  resourceId,
  show,
  timestamp,
} from '../../src/domain/values.js';

const utc = (...parts: [number, number, number, number?, number?, number?, number?]) => {
  const [year, month, day, hours = 0, minutes = 0, seconds = 0, ms = 0] = parts;
  return new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds, ms));
};

describe('parseTimestamp accepts ISO 8601 and Unix seconds (docs/api.md, "Conventions")', () => {
  it.each<[string, number | string, Date]>([
    ['ISO 8601 with Z', '2021-03-01T12:34:56Z', utc(2021, 3, 1, 12, 34, 56)],
    ['ISO 8601 without a zone, read as UTC', '2021-03-01T12:34:56', utc(2021, 3, 1, 12, 34, 56)],
    ['a date alone, read as midnight UTC', '2021-03-01', utc(2021, 3, 1)],
    ['an offset of +02:00', '2021-03-01T12:34:56+02:00', utc(2021, 3, 1, 10, 34, 56)],
    ['an offset of -05:00', '2021-03-01T12:34:56-05:00', utc(2021, 3, 1, 17, 34, 56)],
    ['an offset that crosses midnight', '2021-03-01T01:00:00+02:00', utc(2021, 2, 28, 23)],
    ['an offset without a colon', '2021-03-01T12:34:56+0200', utc(2021, 3, 1, 10, 34, 56)],
    ['an offset of +00:00', '2021-03-01T12:34:56+00:00', utc(2021, 3, 1, 12, 34, 56)],
    ['fractional seconds', '2021-03-01T12:34:56.789Z', utc(2021, 3, 1, 12, 34, 56, 789)],
    ['hours and minutes without seconds', '2021-03-01T12:34', utc(2021, 3, 1, 12, 34)],
    ['29 February of a leap year', '2020-02-29', utc(2020, 2, 29)],
    ['Unix seconds as a number', 1_614_602_096, utc(2021, 3, 1, 12, 34, 56)],
    ['Unix seconds as a numeric string', '1614602096', utc(2021, 3, 1, 12, 34, 56)],
    ['Unix second zero', 0, utc(1970, 1, 1)],
    ['the last second of year 9999', '9999-12-31T23:59:59Z', utc(9999, 12, 31, 23, 59, 59)],
  ])('accepts %s (%j)', (_what, value, expected) => {
    expect(parseTimestamp(value)).toEqual(expected);
  });

  it('reads a string of digits as Unix seconds, not as a compact date', () => {
    expect(parseTimestamp('20210301')).toEqual(new Date(20_210_301_000));
  });

  it('reads a timestamp without a zone the same as the same timestamp with Z', () => {
    expect(parseTimestamp('2019-12-31T23:59:59')).toEqual(parseTimestamp('2019-12-31T23:59:59Z'));
  });
});

describe('parseTimestamp refuses what is not a real moment', () => {
  it.each<[string, number | string]>([
    ['31 February', '2021-02-31'],
    ['31 February with a time', '2021-02-31T10:00:00Z'],
    ['29 February of a common year', '2021-02-29'],
    ['29 February 1900, not a leap year', '1900-02-29'],
    ['31 April', '2021-04-31'],
    ['month 13', '2021-13-01'],
    ['month 00', '2021-00-10'],
    ['day 00', '2021-01-00'],
    ['hour 25', '2021-03-01T25:00:00Z'],
    ['minute 60', '2021-03-01T12:60:00Z'],
    ['second 60', '2021-03-01T12:34:60Z'],
    ['garbage', 'garbage'],
    ['an empty string', ''],
    ['a date in another order', '01/03/2021'],
    ['a single-digit month', '2021-3-1'],
    ['text after the timestamp', '2021-03-01T12:34:56Z tomorrow'],
    ['a negative number', -1],
    ['a negative numeric string', '-1'],
    ['fractional Unix seconds', 1_614_602_096.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a five-digit year', '10000-01-01'],
    ['an expanded year', '+020210-01-01T00:00:00Z'],
    ['a negative year', '-000001-01-01T00:00:00Z'],
    ['Unix seconds past year 9999', 253_402_300_800],
    ['year 0000, which Postgres does not have', '0000-01-01'],
    ['a moment before 1970', '1969-12-31T23:59:59Z'],
    ['an offset that carries the last day of 9999 into year 10000', '9999-12-31T23:59:59-14:00'],
    ['an offset that carries year 0001 back into year 0000', '0001-01-01T00:00:00+14:00'],
    ['absurd Unix seconds', 1e15],
    ['a numeric string too long for Unix seconds', '100000000000000'],
    ['Unix seconds in text past year 9999', '253402300800'],
  ])('refuses %s (%j)', (_what, value) => {
    expect(parseTimestamp(value)).toBeNull();
  });
});

describe('timestamp (zod block)', () => {
  it('turns an ISO string into a Date', () => {
    expect(timestamp.parse('2021-03-01T12:34:56+02:00')).toEqual(utc(2021, 3, 1, 10, 34, 56));
  });

  it('turns Unix seconds into a Date', () => {
    expect(timestamp.parse(1_614_602_096)).toEqual(utc(2021, 3, 1, 12, 34, 56));
  });

  it('takes Unix seconds up to the last second of 9999, as a number or as text (a query string)', () => {
    const last = new Date(Date.UTC(9999, 11, 31, 23, 59, 59));
    expect(timestamp.parse(253_402_300_799)).toEqual(last);
    expect(timestamp.parse('253402300799')).toEqual(last);
  });

  it.each(['2021-02-31', 'garbage', -5, true, null, {}])('refuses %j', (value) => {
    expect(timestamp.safeParse(value).success).toBe(false);
  });
});

describe('integer', () => {
  it.each<[unknown, number]>([
    [42, 42],
    ['42', 42],
    [0, 0],
    ['0', 0],
    [-7, -7],
    ['-7', -7],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  ])('accepts %j as %j', (value, expected) => {
    expect(integer.parse(value)).toBe(expected);
  });

  it.each([
    1.5,
    '1.5',
    'abc',
    '',
    ' 42',
    '42 ',
    '4e2',
    '0x10',
    '+42',
    {},
    [],
    [42],
    true,
    'true',
    null,
    undefined,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.MAX_SAFE_INTEGER + 2,
  ])('refuses %j', (value) => {
    expect(integer.safeParse(value).success).toBe(false);
  });
});

describe('nonNegativeInteger', () => {
  it.each<[unknown, number]>([
    [0, 0],
    ['0', 0],
    [5, 5],
    ['1999', 1999],
  ])('accepts %j as %j', (value, expected) => {
    expect(nonNegativeInteger.parse(value)).toBe(expected);
  });

  it.each([-1, '-1', 1.5, 'abc', {}, true, null])('refuses %j', (value) => {
    expect(nonNegativeInteger.safeParse(value).success).toBe(false);
  });
});

describe('boolean', () => {
  it.each<[unknown, boolean]>([
    [true, true],
    [false, false],
    ['true', true],
    ['false', false],
  ])('accepts %j as %j', (value, expected) => {
    expect(boolean.parse(value)).toBe(expected);
  });

  it.each(['yes', 'no', '1', '0', 1, 0, '', null, undefined, {}, []])('refuses %j', (value) => {
    expect(boolean.safeParse(value).success).toBe(false);
  });
});

describe('jsonArray', () => {
  const numbers = jsonArray(z.number(), 3);

  it('accepts a JSON array', () => {
    expect(numbers.parse([1, 2])).toEqual([1, 2]);
  });

  it('accepts an array sent as one JSON-text value (forms)', () => {
    expect(numbers.parse('[1,2,3]')).toEqual([1, 2, 3]);
  });

  it('accepts an empty array', () => {
    expect(numbers.parse([])).toEqual([]);
    expect(numbers.parse('[]')).toEqual([]);
  });

  it.each([
    ['more items than the maximum', [1, 2, 3, 4]],
    ['more items than the maximum as JSON text', '[1,2,3,4]'],
    ['an object', { a: 1 }],
    ['an object as JSON text', '{"a":1}'],
    ['text that is not JSON', 'not json'],
    ['an item of the wrong type', ['x']],
    ['an item of the wrong type as JSON text', '["x"]'],
    ['a number', 42],
    ['null', null],
  ])('refuses %s', (_what, value) => {
    expect(numbers.safeParse(value).success).toBe(false);
  });

  it('validates each item with the item schema', () => {
    const items = jsonArray(z.object({ name: z.string() }), 10);
    expect(items.parse('[{"name":"a"}]')).toEqual([{ name: 'a' }]);
    expect(items.safeParse('[{"name":1}]').success).toBe(false);
  });
});

describe('currency', () => {
  it.each([
    ['usd', 'usd'],
    ['USD', 'usd'],
    ['Eur', 'eur'],
    ['gBp', 'gbp'],
  ])('accepts %j case-insensitively as %j', (value, expected) => {
    expect(currency.parse(value)).toBe(expected);
  });

  it.each(['', 'us', 'usdd', 'u$d', '840', 'us1', ' usd', 840, null, {}])('refuses %j', (value) => {
    expect(currency.safeParse(value).success).toBe(false);
  });
});

describe('absoluteUrl', () => {
  it.each([
    'https://example.com',
    'https://example.com/receipts/1?download=true#page',
    'http://example.com/a',
    'http://localhost:3000/x',
    'HTTPS://EXAMPLE.COM/',
  ])('accepts %j', (value) => {
    expect(absoluteUrl.parse(value)).toBe(value);
  });

  it.each([
    '',
    'example.com',
    'www.example.com/path',
    '/relative/path',
    '//example.com/protocol-relative',
    'ftp://example.com/file',
    'mailto:ada@example.com',
    'javascript:alert(1)',
    'data:text/plain,hi',
    'https://',
    'not a url',
    `https://example.com/${'a'.repeat(2048)}`,
    42,
    null,
  ])('refuses %j', (value) => {
    expect(absoluteUrl.safeParse(value).success).toBe(false);
  });
});

describe('resourceId', () => {
  it.each(['a', 'dp_123', 'Z9', 'du_1.2-3:4', 'ABC-xyz_09.:', 'x'.repeat(255)])('accepts %j', (value) => {
    expect(resourceId.parse(value)).toBe(value);
  });

  it.each([
    '',
    'x'.repeat(256),
    'has space',
    'slash/inside',
    'back\\slash',
    'question?',
    'hash#',
    'percent%20',
    'ünïcode',
    'tab\t',
    'new\nline',
    42,
    null,
  ])('refuses %j', (value) => {
    expect(resourceId.safeParse(value).success).toBe(false);
  });
});

describe('show (a value as a message quotes it)', () => {
  it.each([
    ['a string, in double quotes', 'dispute.exploded', '"dispute.exploded"'],
    ['a long string, cut to 200 characters', 'x'.repeat(300), `"${'x'.repeat(200)}…"`],
    ['a number', 42, '42'],
    ['a boolean', true, 'true'],
    ['null', null, 'null'],
    ['an object, by its kind', { a: { b: 1 } }, 'an object'],
    ['an array, by its kind', ['x', 1], 'an array'],
  ])('shows %s', (_, value, shown) => {
    expect(show(value)).toBe(shown);
  });

  it('shows an array nested 100,000 deep without overflowing the stack', () => {
    let deep: unknown = [];
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(show(deep)).toBe('an array');
  });
});
