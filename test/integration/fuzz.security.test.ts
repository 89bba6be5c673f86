import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { CreatedOrganisation } from '../../src/features/organisations/organisations.js';
import { type CallOptions, startTestApi, type TestApi } from '../helpers/api.js';
import { emptyDisputeList } from '../helpers/disputes.js';
import {
  basicAuth,
  expectApiError,
  type ListeningServer,
  rawCall,
  serve,
  snapshotTables,
  type TableSnapshot,
  withTimeout,
} from '../helpers/security.js';

/**
 * Hostile and malformed requests across every endpoint. Each must get a JSON 4xx with the error body of
 * docs/api.md, "Errors" (never a 5xx, never HTML, never a hang), and no row of any table may change: the
 * database is snapshotted before and after every request and once more at the end.
 */

let api: TestApi;
let org: CreatedOrganisation;
let original: TableSnapshot;
let latest: TableSnapshot;

const D = 'dp_fuzz';
const WON = 'dp_won';
const SUBMITTED = 'dp_submitted';
const LIVE = 'dp_live';
const T = 'tpl_fuzz';
const day = 86_400_000;

const product = { name: 'Widget', quantity: 1, amount: 100 };
const letter = { to: 'a@example.com', from: 'b@example.com', subject: 'Order', body: 'Shipped.' };
const payment = { id: 'ch_old', amount: 100, currency: 'usd', charged_at: '2024-01-01' };
const template = {
  id: T,
  name: 'Fuzz',
  fields: [
    { key: 'order_id', type: 'text', required: true },
    { key: 'shipped_at', type: 'date' },
    { key: 'qty', type: 'number' },
    { key: 'total', type: 'amount' },
    { key: 'order_url', type: 'url' },
    { key: 'contact', type: 'email' },
  ],
  reasons: ['fraudulent'],
  body: 'Order {{order_id}}',
};
const createBase = {
  id: 'dp_fuzz_new',
  charge: 'ch_fuzz',
  reason: 'fraudulent',
  charged_at: '2024-01-01T00:00:00Z',
  disputed_at: '2024-01-05',
  due_by: '2099-01-01T00:00:00Z',
  currency: 'usd',
  amount: 1000,
};

beforeAll(async () => {
  // No webhook relay beside the table snapshots: it would mark events relayed while they are taken.
  api = await startTestApi({ workers: ['submission'] });
  org = await api.createOrg('Fuzz');
  const setup: [string, string, CallOptions][] = [
    ['POST', '/v1/templates', { key: org.test_key, json: template }],
    ['POST', '/v1/templates', { key: org.live_key, json: template }],
    ['POST', '/v1/test/disputes', { key: org.test_key, json: { id: D } }],
    [
      'PUT',
      `/v1/disputes/${D}`,
      {
        key: org.test_key,
        json: {
          template: T,
          fields: { order_id: 'A-1', qty: 2 },
          products: [product],
          correspondence: [letter],
          past_payments: [payment],
          reference_url: 'https://example.com/ref',
        },
      },
    ],
    ['POST', '/v1/test/disputes', { key: org.test_key, json: { id: WON, state: 'won' } }],
    ['POST', '/v1/test/disputes', { key: org.test_key, json: { id: SUBMITTED, state: 'submitted' } }],
    [
      'POST',
      '/v1/disputes',
      {
        key: org.live_key,
        json: { ...createBase, id: LIVE, due_by: new Date(Date.now() + 10 * day).toISOString() },
      },
    ],
  ];
  for (const [method, path, options] of setup) {
    const response = await api.call(method, path, options);
    expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  }
  original = await snapshotTables(api.db.sql);
  latest = original;
});
afterAll(async () => {
  await api.close();
});

interface FuzzCase {
  name: string;
  method: string;
  /** The path as sent (percent-encoding included); a query string may follow `?`. */
  path: string;
  /** Which key authenticates it: the test key unless said otherwise. */
  key?: 'test' | 'live' | 'none';
  json?: unknown;
  raw?: Buffer | string;
  form?: Record<string, unknown> | string;
  query?: Record<string, unknown> | string;
  headers?: Record<string, string>;
  status: number;
  type: string;
}

const cases: FuzzCase[] = [];
const add = (fuzz: FuzzCase) => cases.push(fuzz);

const long = (length: number) => 'x'.repeat(length);
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** Values of the wrong JSON type, by label. */
const wrongTypes: [string, unknown][] = [
  ['a number', 12345],
  ['a fraction', 1.5],
  ['an object', { nested: { a: 1 } }],
  ['an array', ['x', 1]],
  ['a boolean', true],
  ['null', null],
];

// ---- Update (PUT and POST) and submit: the evidence parameters ----

const evidenceType: Record<string, string> = {
  fields: 'invalid_fields',
  products: 'invalid_products',
  correspondence: 'invalid_correspondence',
  past_payments: 'invalid_past_payments',
  evidence_files: 'invalid_evidence_files',
};

/** For each evidence parameter: the labels of wrongTypes that are in fact valid there, then extra bad values. */
const evidenceParameters: Record<string, { valid: string[]; bad: [string, unknown][] }> = {
  template: {
    valid: ['null'],
    bad: [
      ['an id with a space', 'has space'],
      ['a 300-character id', long(300)],
      ['a 20,000-character id', long(20_000)],
      ['an SQL injection', "' or 1=1--"],
      ['a path', '../tpl_fuzz'],
    ],
  },
  fields: {
    valid: [],
    bad: [
      ['a string', 'order_id=1'],
      ['a value that is an object', { note: { a: 1 } }],
      ['a value that is an array', { note: [1] }],
      ['a key with a space', { 'bad key': 'v' }],
      ['a 300-character key', { [long(300)]: 'v' }],
      ['a 20,000-character value', { note: long(20_000) }],
      ['201 keys', Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, 'v']))],
      ['text for a number field', { qty: 'many' }],
      ['a fraction for an amount field', { total: 1.5 }],
      ['a boolean for a date field', { shipped_at: true }],
      ['a javascript: URL for a url field', { order_url: 'javascript:alert(1)' }],
      ['an ftp URL for a url field', { order_url: 'ftp://example.com/x' }],
      ['a bad address for an email field', { contact: 'not-an-email' }],
      ['a NUL byte in a value', { note: 'a\u0000b' }],
      ['a lone surrogate in a value', { note: '\ud800' }],
    ],
  },
  products: {
    valid: [],
    bad: [
      ['a string that is not JSON', 'not json'],
      ['JSON text of an object', '{"name":"x"}'],
      ['an array of numbers', [1, 2]],
      ['an empty item', [{}]],
      ['a name that is a number', [{ ...product, name: 1 }]],
      ['a negative amount', [{ ...product, amount: -1 }]],
      ['a fractional amount', [{ ...product, amount: 1.5 }]],
      ['a quantity that is an object', [{ ...product, quantity: {} }]],
      ['a javascript: image', [{ ...product, image: 'javascript:alert(1)' }]],
      ['a relative url', [{ ...product, url: '/relative' }]],
      ['a 20,000-character name', [{ ...product, name: long(20_000) }]],
      ['101 items', Array.from({ length: 101 }, () => product)],
      ['a NUL byte in a name', [{ ...product, name: 'a\u0000b' }]],
    ],
  },
  correspondence: {
    valid: [],
    bad: [
      ['an empty item', [{}]],
      ['a subject that is a number', [{ ...letter, subject: 1 }]],
      ['a 20,000-character to', [{ ...letter, to: long(20_000) }]],
      ['101 items', Array.from({ length: 101 }, () => letter)],
    ],
  },
  past_payments: {
    valid: [],
    bad: [
      ['an empty item', [{}]],
      ['11 payments', Array.from({ length: 11 }, (_, i) => ({ ...payment, id: `ch_${i}` }))],
      ['a four-letter currency', [{ ...payment, currency: 'usdd' }]],
      ['a numeric currency', [{ ...payment, currency: '123' }]],
      ['an amount that is text', [{ ...payment, amount: 'ten' }]],
      ['charged_at that is an object', [{ ...payment, charged_at: {} }]],
      ['a 20,000-character id', [{ ...payment, id: long(20_000) }]],
    ],
  },
  evidence_files: {
    valid: [],
    bad: [
      ['an empty item', [{}]],
      ['an unknown category', [{ file: 'file_00000000000000000000', category: 'invoice' }]],
      ['a file that is not an id', [{ file: '../etc/passwd', category: 'receipt' }]],
      ['a file that does not exist', [{ file: 'file_00000000000000000000', category: 'receipt' }]],
      [
        '21 entries',
        Array.from({ length: 21 }, () => ({ file: 'file_00000000000000000000', category: 'receipt' })),
      ],
      [
        'a 1,001-character description',
        [{ file: 'file_00000000000000000000', category: 'receipt', description: long(1001) }],
      ],
    ],
  },
  reference_url: {
    valid: ['null'],
    bad: [
      ['not a URL', 'not a url'],
      ['a javascript: URL', 'javascript:alert(1)'],
      ['an ftp URL', 'ftp://example.com/'],
      ['a protocol-relative URL', '//evil.example/'],
      ['a file URL', 'file:///etc/passwd'],
      ['a data URL', 'data:text/html,<script>alert(1)</script>'],
      ['a scheme only', 'http://'],
      ['a 20,000-character URL', `https://example.com/${long(20_000)}`],
    ],
  },
  account_id: {
    valid: ['null'],
    bad: [
      ['a 20,000-character value', long(20_000)],
      ['a NUL byte', 'acct_\u0000'],
    ],
  },
  charge: {
    valid: [],
    bad: [
      ['a 20,000-character value', long(20_000)],
      ['a 256-character value', long(256)],
    ],
  },
  force: {
    valid: ['a boolean'],
    bad: [
      ['yes', 'yes'],
      ['TRUE', 'TRUE'],
      ['1', 1],
    ],
  },
  queue: { valid: ['a boolean'], bad: [['yes', 'yes']] },
};

function evidenceCases(parameters: string[]): [string, string, unknown, string][] {
  const out: [string, string, unknown, string][] = [];
  for (const parameter of parameters) {
    const spec = evidenceParameters[parameter] ?? { valid: [], bad: [] };
    const type = evidenceType[parameter] ?? 'invalid_request';
    for (const [label, value] of wrongTypes) {
      if (!spec.valid.includes(label)) out.push([parameter, label, value, type]);
    }
    for (const [label, value] of spec.bad) out.push([parameter, label, value, type]);
  }
  return out;
}

const evidenceNames = [
  'template',
  'fields',
  'products',
  'correspondence',
  'past_payments',
  'evidence_files',
  'reference_url',
  'account_id',
  'charge',
  'force',
  'queue',
];

for (const [parameter, label, value, type] of evidenceCases([...evidenceNames, 'submit'])) {
  if (parameter === 'submit' && label === 'a boolean') continue;
  add({
    name: `update ${parameter}: ${label}`,
    method: 'PUT',
    path: `/v1/disputes/${D}`,
    json: { [parameter]: value },
    status: 400,
    type,
  });
}
for (const [parameter, label, value, type] of evidenceCases(evidenceNames)) {
  if (label === 'a number' || label === 'an object' || parameter === 'fields' || parameter === 'products') {
    add({
      name: `update by POST ${parameter}: ${label}`,
      method: 'POST',
      path: `/v1/disputes/${D}`,
      json: { [parameter]: value },
      status: 400,
      type,
    });
  }
}
for (const [parameter, label, value, type] of evidenceCases([...evidenceNames, 'account'])) {
  add({
    name: `submit ${parameter}: ${label}`,
    method: 'POST',
    path: `/v1/disputes/${D}/submit`,
    json: { [parameter]: value },
    status: 400,
    type,
  });
}

// Update in a form: arrays as one JSON-text value, dictionaries with brackets.
for (const [name, form, type] of [
  ['products as bad JSON text', 'products=%5B%7B', 'invalid_products'],
  [
    'products as 100,000 items of JSON text',
    { products: JSON.stringify(Array(100_000).fill(0)) },
    'invalid_products',
  ],
  ['fields nested 50 brackets deep', `fields${'[a]'.repeat(50)}=1`, 'invalid_request'],
  ['fields nested 4 brackets deep', 'fields[a][b][c][d]=1', 'invalid_request'],
  ['force that is neither true nor false', 'force=maybe', 'invalid_request'],
  ['2,000 parameters', Array.from({ length: 2000 }, (_, i) => `p${i}=1`).join('&'), 'invalid_request'],
  ['a field of the wrong type', 'fields[qty]=many', 'invalid_fields'],
] as const) {
  add({ name: `update form: ${name}`, method: 'PUT', path: `/v1/disputes/${D}`, form, status: 400, type });
}

// Live mode answers with livemode true.
add({
  name: 'live update: products of the wrong type',
  method: 'PUT',
  path: `/v1/disputes/${LIVE}`,
  key: 'live',
  json: { products: 5 },
  status: 400,
  type: 'invalid_products',
});
add({
  name: 'live submit: a bad reference_url',
  method: 'POST',
  path: `/v1/disputes/${LIVE}/submit`,
  key: 'live',
  json: { reference_url: 'javascript:alert(1)' },
  status: 400,
  type: 'invalid_request',
});
add({
  name: 'live key on a test dispute',
  method: 'PUT',
  path: `/v1/disputes/${D}`,
  key: 'live',
  json: { reference_url: 'https://example.com/' },
  status: 404,
  type: 'dispute_not_found',
});

// Actions the state table or the templates refuse.
for (const [name, method, path, json, status, type] of [
  [
    'update names an unknown template',
    'PUT',
    `/v1/disputes/${D}`,
    { template: 'tpl_none' },
    400,
    'template_not_found',
  ],
  [
    'submit names an unknown template',
    'POST',
    `/v1/disputes/${D}/submit`,
    { template: 'tpl_none' },
    400,
    'template_not_found',
  ],
  [
    'update a won dispute',
    'PUT',
    `/v1/disputes/${WON}`,
    { fields: { order_id: 'x' } },
    400,
    'dispute_closed',
  ],
  ['submit a won dispute', 'POST', `/v1/disputes/${WON}/submit`, {}, 400, 'dispute_closed'],
  ['accept a won dispute', 'POST', `/v1/disputes/${WON}/accept`, undefined, 400, 'dispute_closed'],
  [
    'update a submitted dispute',
    'PUT',
    `/v1/disputes/${SUBMITTED}`,
    { fields: { a: 'b' } },
    400,
    'dispute_uneditable',
  ],
  ['submit a submitted dispute', 'POST', `/v1/disputes/${SUBMITTED}/submit`, {}, 400, 'dispute_submitted'],
  [
    'accept a submitted dispute',
    'POST',
    `/v1/disputes/${SUBMITTED}/accept`,
    undefined,
    400,
    'dispute_submitted',
  ],
  [
    'the response before one exists',
    'GET',
    `/v1/disputes/${D}/response`,
    undefined,
    404,
    'response_not_found',
  ],
] as const) {
  add({ name, method, path, ...(json !== undefined && { json }), status, type });
}

// ---- Create ----

const createParameters: Record<string, [string, unknown][]> = {
  id: [
    ['an empty id', ''],
    ['a 300-character id', long(300)],
    ['a 20,000-character id', long(20_000)],
    ['an SQL injection', "' or 1=1--"],
    ['a path', '../dp_fuzz'],
    ['unicode', 'dísputé'],
    ['a NUL byte', 'dp_\u0000'],
    ['an existing id', D],
  ],
  charge: [
    ['a 20,000-character charge', long(20_000)],
    ['a NUL byte', 'ch_\u0000'],
  ],
  reason: [
    ['an unknown reason', 'bogus'],
    ['an upper-case reason', 'FRAUDULENT'],
  ],
  charged_at: [
    ['February 31st', '2021-02-31'],
    ['a word', 'yesterday'],
    ['month 13', '2021-13-01'],
    ['hour 25', '2021-01-01T25:00:00Z'],
    ['a negative Unix time', -1],
    ['13 digits', '9999999999999'],
    ['an empty string', ''],
    ['a 20,000-character string', long(20_000)],
  ],
  disputed_at: [['a word', 'tomorrow']],
  due_by: [
    ['a word', 'soon'],
    ['year 10000', 253_402_300_800],
    ['year 0000, which Postgres does not have', '0000-01-01'],
    ['year 0001 carried back into year 0000 by its offset', '0001-01-01T00:00:00+14:00'],
    ['the last second of 9999 carried into year 10000 by its offset', '9999-12-31T23:59:59-14:00'],
    ['a moment before 1970', '1969-07-20T20:17:00Z'],
  ],
  currency: [
    ['four letters', 'usdd'],
    ['two letters', 'us'],
    ['digits', '123'],
    ['a symbol', 'US$'],
    ['non-ASCII letters', 'üéx'],
    ['an empty string', ''],
  ],
  amount: [
    ['a negative amount', -1],
    ['text', 'abc'],
    ['an exponent in text', '1e3'],
    ['beyond the safe integers', 2 ** 53],
    ['17 digits of text', '99999999999999999'],
  ],
  customer: [
    ['a 20,000-character customer', long(20_000)],
    ['a NUL byte', 'cus_\u0000'],
  ],
  processor: [['an unknown processor', 'bogus']],
  state: [
    ['won', 'won'],
    ['an unknown state', 'bogus'],
  ],
  reversal_currency: [['four letters', 'usdd']],
  fee: [['a negative fee', -1]],
  reversal_amount: [['text', 'ten']],
  is_charge_refundable: [['yes', 'yes']],
  submitted_count: [
    ['a negative count', -1],
    ['a count beyond a 32-bit integer', 3_000_000_000],
    ['a count beyond a 32-bit integer, as text', '3000000000'],
  ],
  cvc_check: [['maybe', 'maybe']],
  address_zip_check: [['a number', 1]],
  kind: [['an unknown kind', 'refund']],
  submit: [['yes', 'yes']],
  queue: [['yes', 'yes']],
  template: [['an unknown template', 'tpl_none']],
  reference_url: [['a javascript: URL', 'javascript:alert(1)']],
  products: [['an empty item', [{}]]],
  correspondence: [['an empty item', [{}]]],
  past_payments: [['11 payments', Array.from({ length: 11 }, () => payment)]],
  fields: [
    ['a value that is an object', { note: {} }],
    ['a __proto__ key', JSON.parse('{"__proto__": "x", "note": "y"}')],
  ],
};
const requiredForCreate = [
  'id',
  'charge',
  'reason',
  'charged_at',
  'disputed_at',
  'due_by',
  'currency',
  'amount',
];

for (const [parameter, values] of Object.entries(createParameters)) {
  const type = evidenceType[parameter] ?? 'invalid_request';
  // Timestamps take Unix seconds and amounts integers, so a number is no wrong type there (a fraction is).
  const takesNumbers = ['charged_at', 'disputed_at', 'due_by', 'amount'].includes(parameter);
  const wrong = requiredForCreate.includes(parameter)
    ? wrongTypes.filter(([label]) => !(takesNumbers && label === 'a number'))
    : wrongTypes.filter(([label]) => label === 'an object' || label === 'an array');
  for (const [label, value] of [...wrong, ...values]) {
    add({
      name: `create ${parameter}: ${label}`,
      method: 'POST',
      path: '/v1/disputes',
      json: { ...createBase, [parameter]: value },
      status: 400,
      type: parameter === 'template' && label === 'an unknown template' ? 'template_not_found' : type,
    });
  }
}
for (const parameter of requiredForCreate) {
  const { [parameter]: _, ...rest } = createBase as Record<string, unknown>;
  add({
    name: `create without ${parameter}`,
    method: 'POST',
    path: '/v1/disputes',
    json: rest,
    status: 400,
    type: 'invalid_request',
  });
}
add({
  name: 'create with submit=true but no template (nothing is created)',
  method: 'POST',
  path: '/v1/disputes',
  json: { ...createBase, submit: true },
  status: 400,
  type: 'missing_template',
});
add({
  name: 'create with queue=true and a template but its required field missing (nothing is created)',
  method: 'POST',
  path: '/v1/disputes',
  json: { ...createBase, template: T, queue: true },
  status: 400,
  type: 'missing_fields',
});
add({
  name: 'create an existing live id in live mode',
  method: 'POST',
  path: '/v1/disputes',
  key: 'live',
  json: { ...createBase, id: LIVE },
  status: 400,
  type: 'invalid_request',
});

// ---- Test dispute generator ----

const generatorParameters: Record<string, [string, unknown][]> = {
  id: [
    ['an empty id', ''],
    ['a 300-character id', long(300)],
    ['an SQL injection', "' or 1=1--"],
    ['an existing id', D],
  ],
  state: [
    ['an unknown state', 'bogus'],
    ['compiling_evidence, which only a submission in flight has', 'compiling_evidence'],
    ['queued, which only queueing a submittable dispute reaches', 'queued'],
    ['an upper-case state', 'WON'],
  ],
  reason: [['an unknown reason', 'bogus']],
  kind: [['an unknown kind', 'refund']],
  amount: [
    ['a negative amount', -1],
    ['text', 'abc'],
  ],
  currency: [
    ['four letters', 'usdd'],
    ['an empty string', ''],
  ],
  due_by: [
    ['a word', 'yesterday'],
    ['February 31st', '2021-02-31'],
    ['year 0000', '0000-01-01'],
  ],
  charge: [
    ['a 20,000-character charge', long(20_000)],
    ['a NUL byte', 'ch_\u0000'],
  ],
  account: [
    ['a 20,000-character account', long(20_000)],
    ['a NUL byte', 'acct_\u0000'],
  ],
};
for (const [parameter, values] of Object.entries(generatorParameters)) {
  // Every override is optional, not nullable: null is as wrong as an object or an array.
  const wrong = wrongTypes.filter(([label]) => ['an object', 'an array', 'null'].includes(label));
  for (const [label, value] of [...wrong, ...values]) {
    add({
      name: `test generator ${parameter}: ${label}`,
      method: 'POST',
      path: '/v1/test/disputes',
      json: { [parameter]: value },
      status: 400,
      type: 'invalid_request',
    });
  }
}
add({
  name: 'test generator with a live key',
  method: 'POST',
  path: '/v1/test/disputes',
  key: 'live',
  json: {},
  status: 400,
  type: 'invalid_request',
});

// ---- Templates create and update ----

/** A template's own `fields` (its field definitions) is "any other bad parameter" of docs/api.md, "Errors". */
const templateFieldsError = 'invalid_request';
const templateParameters: Record<string, [string, unknown][]> = {
  name: [
    ['a 20,000-character name', long(20_000)],
    ['a NUL byte', 'a\u0000b'],
    ['a lone surrogate', 'a\ud800b'],
  ],
  description: [['a 20,000-character description', long(20_000)]],
  body: [
    ['a 200,000-character body', long(200_000)],
    ['a NUL byte', 'Order\u0000'],
  ],
  reasons: [
    ['an unknown reason', ['bogus']],
    ['one reason as a string', 'fraudulent'],
    ['20,000 reasons', Array(20_000).fill('fraudulent')],
  ],
  fields: [
    ['an unknown field type', [{ key: 'a', type: 'colour' }]],
    [
      'duplicate keys',
      [
        { key: 'a', type: 'text' },
        { key: 'a', type: 'text' },
      ],
    ],
    ['a bad key', [{ key: 'a b', type: 'text' }]],
    ['201 fields', Array.from({ length: 201 }, (_, i) => ({ key: `k${i}`, type: 'text' }))],
    ['a NUL byte in a description', [{ key: 'a', type: 'text', description: 'a\u0000' }]],
  ],
};
for (const [parameter, values] of Object.entries(templateParameters)) {
  const type = parameter === 'fields' ? templateFieldsError : 'invalid_request';
  const wrong = wrongTypes.filter(([label]) => label !== 'null');
  for (const [label, value] of [...wrong, ...values]) {
    add({
      name: `create template ${parameter}: ${label}`,
      method: 'POST',
      path: '/v1/templates',
      json: { id: 'tpl_fuzz_new', [parameter]: value },
      status: 400,
      type,
    });
    add({
      name: `update template ${parameter}: ${label}`,
      method: 'PUT',
      path: `/v1/templates/${T}`,
      json: { [parameter]: value },
      status: 400,
      type,
    });
  }
}
for (const [label, value] of [
  ...wrongTypes,
  ['an empty id', ''],
  ['a 300-character id', long(300)],
  ['an SQL injection', "' or 1=1--"],
  ['a path', '../x'],
  ['an existing id', T],
] as [string, unknown][]) {
  add({
    name: `create template id: ${label}`,
    method: 'POST',
    path: '/v1/templates',
    json: { id: value, name: 'x' },
    status: 400,
    type: 'invalid_request',
  });
}
add({
  name: 'create template: fields as bad JSON text in a form',
  method: 'POST',
  path: '/v1/templates',
  form: { id: 'tpl_fuzz_new', fields: '[{"key":' },
  status: 400,
  type: templateFieldsError,
});

// ---- Lists ----

const badLimits = [
  '-1',
  '0',
  '101',
  '1000000000',
  'abc',
  '1.5',
  '',
  '10abc',
  'Infinity',
  'NaN',
  '0x10',
  '1e2',
  '+5',
  '%205',
  '99999999999999999999',
];
for (const list of ['/v1/disputes', '/v1/templates']) {
  for (const limit of badLimits) {
    add({
      name: `limit=${limit}`,
      method: 'GET',
      path: list,
      query: `limit=${limit}`,
      status: 400,
      type: 'invalid_request',
    });
  }
  const cursor = list === '/v1/disputes' ? D : T;
  for (const [name, query] of [
    ['limit as an array', 'limit[]=5'],
    ['limit as a dictionary', 'limit[a]=5'],
    ['both cursors', `starting_after=${cursor}&ending_before=${cursor}`],
    ['an unknown cursor', 'starting_after=nope'],
    ['an unknown ending_before', 'ending_before=nope'],
    ['an SQL injection cursor', `starting_after=${encodeURIComponent("' or 1=1--")}`],
    ['a 300-character cursor', `starting_after=${long(300)}`],
    ['a NUL cursor', 'starting_after=%00'],
    ['a cursor as a dictionary', 'starting_after[id]=x'],
    ['a query nested 50 deep', `starting_after${'[a]'.repeat(50)}=x`],
    ['1,001 query parameters', Array.from({ length: 1001 }, (_, i) => `q${i}=1`).join('&')],
  ] as const) {
    add({ name: `${list}: ${name}`, method: 'GET', path: list, query, status: 400, type: 'invalid_request' });
  }
}
for (const [name, query] of [
  ['an unknown state', 'state=bogus'],
  ['an upper-case state', 'state=NEEDS_RESPONSE'],
  ['an empty state', 'state='],
  ['a good and an unknown state', 'state=needs_response&state=bogus'],
  ['an unknown state in brackets', 'state[]=bogus'],
  ['states joined by a comma', 'state=needs_response,won'],
  ['state as a dictionary', 'state[a]=won'],
  ['an SQL injection state', `state=${encodeURIComponent("won' or 1=1--")}`],
  ['a 300-character account', `account=${long(300)}`],
  ['account as a dictionary', 'account[a]=b'],
] as const) {
  add({
    name: `list: ${name}`,
    method: 'GET',
    path: '/v1/disputes',
    query,
    status: 400,
    type: 'invalid_request',
  });
}

// ---- Ids in paths ----

const trickyIds: [string, string][] = [
  ['an SQL injection', encodeURIComponent("' or 1=1--")],
  ['an SQL injection after a real id', `${D}${encodeURIComponent("' or '1'='1")}`],
  ['a statement after a real id', `${D}${encodeURIComponent(';drop table disputes')}`],
  ['an encoded ../', '%2e%2e%2f'],
  ['an encoded ../../etc/passwd', '..%2f..%2fetc%2fpasswd'],
  ['an encoded slash in a real id', `${D}%2fsubmit`],
  ['a NUL byte', '%00'],
  ['a real id with a NUL byte', `${D}%00`],
  ['a 300-character id', long(300)],
  ['a 5,000-character id', long(5000)],
  ['unicode', encodeURIComponent('dísputé')],
  ['an emoji', encodeURIComponent('💥')],
  ['a real id with a trailing space', `${D}%20`],
  ['a wildcard', '%25'],
  ['a glob', 'dp_*'],
  ['an upper-case real id', D.toUpperCase()],
];
for (const [name, id] of trickyIds) {
  for (const [method, suffix, json] of [
    ['GET', '', undefined],
    ['PUT', '', { reference_url: 'https://example.com/x' }],
    ['POST', '', { reference_url: 'https://example.com/x' }],
    ['POST', '/submit', {}],
    ['POST', '/accept', undefined],
    ['GET', '/response', undefined],
  ] as const) {
    add({
      name: `${method} dispute${suffix}: ${name}`,
      method,
      path: `/v1/disputes/${id}${suffix}`,
      ...(json !== undefined && { json }),
      status: 404,
      type: 'dispute_not_found',
    });
  }
  for (const method of ['GET', 'PUT', 'DELETE']) {
    add({
      name: `${method} template: ${name}`,
      method,
      path: `/v1/templates/${id}`,
      ...(method === 'PUT' && { json: { name: 'x' } }),
      status: 404,
      type: 'template_not_found',
    });
  }
}
for (const path of [
  `/v1/disputes/%ff`,
  `/v1/disputes/%E0%A4%A`,
  `/v1/templates/%`,
  `/v1/disputes/${D}%zz/accept`,
]) {
  add({
    name: 'malformed percent-encoding in the path',
    method: 'GET',
    path,
    status: 400,
    type: 'invalid_request',
  });
}

// ---- Bodies: JSON shape, encoding, size, content type ----

const writeEndpoints: [string, string][] = [
  ['PUT', `/v1/disputes/${D}`],
  ['POST', `/v1/disputes/${D}`],
  ['POST', `/v1/disputes/${D}/submit`],
  ['POST', '/v1/disputes'],
  ['POST', '/v1/test/disputes'],
  ['POST', '/v1/templates'],
  ['PUT', `/v1/templates/${T}`],
];
const json = { 'content-type': 'application/json' };

for (const [method, path] of writeEndpoints) {
  for (const [name, raw] of [
    ['a JSON array', '[]'],
    ['a JSON array of an object', '[{"id":"tpl_x"}]'],
    ['a JSON string', '"hello"'],
    ['a JSON number', '42'],
    ['JSON null', 'null'],
    ['JSON true', 'true'],
    ['malformed JSON', '{"a":'],
    ['single-quoted JSON', "{'a':1}"],
    ['a trailing comma', '{"a":1,}'],
    ['trailing garbage', '{"a":1}x'],
    ['NaN', '{"a":NaN}'],
    ['an array 10,000 deep', deepArray(10_000)],
    ['an unclosed array 100,000 deep', '['.repeat(100_000)],
  ] as const) {
    add({
      name: `${method} ${path}: ${name}`,
      method,
      path,
      raw,
      headers: json,
      status: 400,
      type: 'invalid_request',
    });
  }
  for (const [name, raw] of [
    [
      'invalid UTF-8 bytes',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
    ],
    [
      'an overlong UTF-8 slash',
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
    ],
    [
      'a UTF-8-encoded surrogate',
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
    ],
  ] as const) {
    add({
      name: `${method} ${path}: ${name}`,
      method,
      path,
      raw,
      headers: json,
      status: 400,
      type: 'invalid_request',
    });
  }
  for (const [name, contentType] of [
    ['text/plain', 'text/plain'],
    ['multipart/form-data', 'multipart/form-data; boundary=xyz'],
    ['application/xml', 'application/xml'],
    ['application/octet-stream', 'application/octet-stream'],
    ['no content type', ''],
    ['JSON in latin1', 'application/json; charset=latin1'],
  ] as const) {
    const body = contentType.startsWith('multipart')
      ? '--xyz\r\nContent-Disposition: form-data; name="id"\r\n\r\ntpl_x\r\n--xyz--\r\n'
      : contentType === 'application/xml'
        ? '<template><id>tpl_x</id></template>'
        : '{"id":"tpl_x","reference_url":"https://example.com/"}';
    add({
      name: `${method} ${path}: ${name}`,
      method,
      path,
      raw: body,
      headers: contentType ? { 'content-type': contentType } : {},
      status: 400,
      type: 'invalid_request',
    });
  }
  add({
    name: `${method} ${path}: a JSON body over 1 MiB`,
    method,
    path,
    json: { name: long(1024 * 1024) },
    status: 413,
    type: 'request_too_large',
  });
  add({
    name: `${method} ${path}: a form body over 1 MiB`,
    method,
    path,
    form: `name=${long(1024 * 1024)}`,
    status: 413,
    type: 'request_too_large',
  });
}
add({
  name: 'a body exactly 1 byte over 1 MiB',
  method: 'POST',
  path: '/v1/templates',
  raw: `{"name":"${long(1024 * 1024 + 1 - 11)}"}`,
  headers: json,
  status: 413,
  type: 'request_too_large',
});
add({
  name: 'a gzip body that inflates past 1 MiB',
  method: 'POST',
  path: '/v1/templates',
  raw: gzipSync(Buffer.from(`{"name":"${long(4 * 1024 * 1024)}"}`)),
  headers: { ...json, 'content-encoding': 'gzip' },
  status: 413,
  type: 'request_too_large',
});
add({
  name: 'a body that claims gzip but is not',
  method: 'POST',
  path: '/v1/templates',
  raw: '{"id":"tpl_x"}',
  headers: { ...json, 'content-encoding': 'gzip' },
  status: 400,
  type: 'invalid_request',
});
add({
  name: 'an unsupported content encoding',
  method: 'POST',
  path: '/v1/templates',
  raw: '{"id":"tpl_x"}',
  headers: { ...json, 'content-encoding': 'compress' },
  status: 400,
  type: 'invalid_request',
});
add({
  name: 'fields nested 10,000 deep',
  method: 'PUT',
  path: `/v1/disputes/${D}`,
  raw: `{"fields":${deepObject(10_000)}}`,
  headers: json,
  status: 400,
  type: 'invalid_fields',
});
add({
  name: 'products nested 10,000 deep',
  method: 'PUT',
  path: `/v1/disputes/${D}`,
  raw: `{"products":${deepArray(10_000)}}`,
  headers: json,
  status: 400,
  type: 'invalid_products',
});
add({
  name: 'a field value nested 100,000 deep',
  method: 'POST',
  path: `/v1/disputes/${D}/submit`,
  raw: `{"fields":{"note":${deepArray(100_000)}}}`,
  headers: json,
  status: 400,
  type: 'invalid_fields',
});
add({
  name: 'an object 10,000 deep with no id',
  method: 'POST',
  path: '/v1/templates',
  raw: deepObject(10_000),
  headers: json,
  status: 400,
  type: 'invalid_request',
});
add({
  name: 'template fields nested 10,000 deep',
  method: 'POST',
  path: '/v1/templates',
  raw: `{"id":"tpl_x","fields":${deepArray(10_000)}}`,
  headers: json,
  status: 400,
  type: templateFieldsError,
});
add({
  name: 'create with products nested 10,000 deep',
  method: 'POST',
  path: '/v1/disputes',
  raw: JSON.stringify({ ...createBase, products: 0 }).replace('0}', `${deepArray(10_000)}}`),
  headers: json,
  status: 400,
  type: 'invalid_products',
});
add({
  name: '100,000 products',
  method: 'PUT',
  path: `/v1/disputes/${D}`,
  json: { products: Array(100_000).fill({}) },
  status: 400,
  type: 'invalid_products',
});
add({
  name: '100,000 past payments',
  method: 'POST',
  path: `/v1/disputes/${D}/submit`,
  json: { past_payments: Array(100_000).fill(1) },
  status: 400,
  type: 'invalid_past_payments',
});
add({
  name: '50,000 fields',
  method: 'PUT',
  path: `/v1/disputes/${D}`,
  json: { fields: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 1])) },
  status: 400,
  type: 'invalid_fields',
});
add({
  name: 'a prototype-polluting body without an id',
  method: 'POST',
  path: '/v1/templates',
  raw: '{"__proto__":{"id":"tpl_polluted"},"constructor":{"prototype":{"id":"tpl_polluted"}}}',
  headers: json,
  status: 400,
  type: 'invalid_request',
});
add({
  name: 'a prototype-polluting form without an id',
  method: 'POST',
  path: '/v1/templates',
  form: '__proto__[id]=tpl_polluted&constructor[prototype][id]=tpl_polluted',
  status: 400,
  type: 'invalid_request',
});

// ---- Routes and methods ----

for (const path of [
  '/v1/nope',
  '/v1',
  `/v1/disputes/${D}/nope`,
  `/v1/disputes/${D}/submit/extra`,
  `/v1/disputes/${D}/response/pdf`,
  `/v1/templates/${T}/fields`,
  '/v1/test',
  `/v1/test/disputes/${D}`,
  '/v1/disputes/../../etc/passwd',
  '/v2/disputes',
  '/',
  '/disputes',
  '/.env',
  '/admin',
  '/v1%2fdisputes',
]) {
  add({ name: `unknown route ${path}`, method: 'GET', path, status: 404, type: 'not_found' });
}
add({
  name: 'unknown route with a body',
  method: 'POST',
  path: '/v1/nope',
  json: { a: 1 },
  status: 404,
  type: 'not_found',
});

const methodsNotAllowed: [string, string][] = [
  ['DELETE', '/v1/disputes'],
  ['PUT', '/v1/disputes'],
  ['PATCH', '/v1/disputes'],
  ['DELETE', `/v1/disputes/${D}`],
  ['PATCH', `/v1/disputes/${D}`],
  ['GET', `/v1/disputes/${D}/submit`],
  ['PUT', `/v1/disputes/${D}/submit`],
  ['DELETE', `/v1/disputes/${D}/submit`],
  ['GET', `/v1/disputes/${D}/accept`],
  ['DELETE', `/v1/disputes/${D}/accept`],
  ['POST', `/v1/disputes/${D}/response`],
  ['DELETE', `/v1/disputes/${D}/response`],
  ['GET', '/v1/test/disputes'],
  ['DELETE', '/v1/test/disputes'],
  ['PUT', '/v1/templates'],
  ['DELETE', '/v1/templates'],
  ['PATCH', '/v1/templates'],
  ['POST', `/v1/templates/${T}`],
  ['PATCH', `/v1/templates/${T}`],
  ['OPTIONS', '/v1/disputes'],
  ['TRACE', '/v1/disputes'],
];
for (const [method, path] of methodsNotAllowed) {
  add({ name: `${method} ${path}`, method, path, status: 405, type: 'method_not_allowed' });
}

// ---- Headers and authentication ----

for (const [name, headers] of [
  ['an unknown Service-Version', { 'service-version': '2099-01-01' }],
  ['a Service-Version that is not a date', { 'service-version': 'latest' }],
  ['an empty Service-Version', { 'service-version': '' }],
  ['an unknown Chargehound-Version', { 'chargehound-version': '1999-01-01' }],
  ['a 10,000-character Service-Version', { 'service-version': long(10_000) }],
] as const) {
  add({ name, method: 'GET', path: '/v1/disputes', headers, status: 400, type: 'invalid_request' });
}
for (const [method, path] of writeEndpoints) {
  add({
    name: `${method} ${path} without a key, with malformed JSON`,
    method,
    path,
    key: 'none',
    raw: '{',
    headers: json,
    status: 401,
    type: 'authentication',
  });
}

describe('malformed and hostile requests', () => {
  it(`has at least 200 cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
  });

  for (const fuzz of cases) {
    const label = `${fuzz.method} ${fuzz.path.length > 60 ? `${fuzz.path.slice(0, 60)}…` : fuzz.path}`;
    it(`${label} — ${fuzz.name} → ${fuzz.status} ${fuzz.type}`, async () => {
      const key = fuzz.key === 'none' ? undefined : fuzz.key === 'live' ? org.live_key : org.test_key;
      const options: CallOptions = {
        ...(key !== undefined && { key }),
        ...(fuzz.json !== undefined && { json: fuzz.json }),
        ...(fuzz.raw !== undefined && { raw: fuzz.raw }),
        ...(fuzz.form !== undefined && { form: fuzz.form }),
        ...(fuzz.query !== undefined && { query: fuzz.query }),
        ...(fuzz.headers !== undefined && { headers: fuzz.headers }),
      };
      const response = await withTimeout(api.call(fuzz.method, fuzz.path, options), 15_000, fuzz.name);
      // Compared with the snapshot after the previous case, so that a change is blamed on this case alone.
      const now = await snapshotTables(api.db.sql);
      const previous = latest;
      latest = now;
      expect.soft(now, 'no row of any table changed').toEqual(previous);
      expectApiError(response, {
        status: fuzz.status,
        type: fuzz.type,
        url: fuzz.path.split('?')[0] ?? '',
        livemode: fuzz.key === 'live',
      });
      if (fuzz.status === 405) expect(response.headers.allow).toMatch(/^(GET|PUT|POST|DELETE)(, [A-Z]+)*$/);
    });
  }

  describe('bodies sent in chunks (no Content-Length)', () => {
    let server: ListeningServer;
    beforeAll(async () => {
      server = await serve(createApp(api.deps), { secure: true });
    });
    afterAll(async () => {
      await server.close();
    });

    it.each([
      [
        'over 1 MiB in 64 KiB chunks',
        Array(20).fill(Buffer.alloc(64 * 1024, 0x20)),
        413,
        'request_too_large',
      ],
      ['malformed JSON in small chunks', [Buffer.from('{"na'), Buffer.from('me": ')], 400, 'invalid_request'],
      [
        'an array 10,000 deep in chunks',
        [Buffer.from('['.repeat(10_000)), Buffer.from(']'.repeat(10_000))],
        400,
        'invalid_request',
      ],
    ] as const)('a chunked body %s → %i %s', async (_, body, status, type) => {
      const response = await withTimeout(
        rawCall({
          secure: true,
          port: server.port,
          method: 'POST',
          path: '/v1/templates',
          headers: { authorization: basicAuth(org.test_key), 'content-type': 'application/json' },
          body: [...body],
        }),
        15_000,
        'chunked',
      );
      expectApiError(response, { status, type, url: '/v1/templates' });
    });
  });

  it('list filters that are merely unknown answer an empty list, never rows of other filters', async () => {
    for (const account of ["' or 1=1--", '%', '*', '_']) {
      const response = await withTimeout(
        api.call('GET', '/v1/disputes', { key: org.test_key, query: { account } }),
        15_000,
        account,
      );
      expect(response.status, `${JSON.stringify(account)}: ${response.text}`).toBe(200);
      expect(response.body).toEqual(emptyDisputeList);
    }
  });

  it('refuses an account filter that no id could match (a NUL character) with 400 invalid_request', async () => {
    const response = await api.call('GET', '/v1/disputes', {
      key: org.test_key,
      query: { account: 'x\u0000y' },
    });
    expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/disputes' });
  });

  it('leaves every row of every table as it was before the first request', async () => {
    expect(await snapshotTables(api.db.sql)).toEqual(original);
  });
});
