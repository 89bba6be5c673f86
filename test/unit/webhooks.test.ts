import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createEndpointInput, updateEndpointInput } from '../../src/api/inputs/webhook-endpoints.js';
import {
  describeAnswer,
  disabledReason,
  endpointWants,
  eventTypes,
  signWebhook,
  webhookHeaders,
  webhookPayload,
} from '../../src/domain/webhooks.js';

/** docs/api.md, "Webhooks", the pure half: payloads by version, signatures, fan-out, the reasons of failures. */

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const dispute = { id: 'dp_1', charge: 'ch_1', account_id: 'acct_1', state: 'won', object: 'dispute' };
const source = (type: string) => ({ deliveryId: 'wh_1', type, livemode: true, data: dispute });

describe('webhookPayload', () => {
  it.each(['2017-10-30', '2020-02-28', '2021-09-15'] as const)(
    'carries dispute, charge and account_id on %s',
    (version) => {
      expect(webhookPayload(source('dispute.updated'), version)).toEqual({
        id: 'wh_1',
        type: 'dispute.updated',
        object: 'webhook',
        livemode: true,
        dispute: 'dp_1',
        charge: 'ch_1',
        account_id: 'acct_1',
      });
    },
  );

  it('carries dispute_id, external_charge and user_id before 2017-10-30, and the current names too', () => {
    expect(webhookPayload(source('dispute.closed'), '2016-03-05')).toEqual({
      id: 'wh_1',
      type: 'dispute.closed',
      object: 'webhook',
      livemode: true,
      dispute_id: 'dp_1',
      external_charge: 'ch_1',
      user_id: 'acct_1',
      dispute: 'dp_1',
      charge: 'ch_1',
      account_id: 'acct_1',
    });
  });

  it.each(['2016-03-05', '2021-09-15'] as const)(
    'gives a test event only id, type, object, livemode on %s',
    (version) => {
      expect(webhookPayload({ ...source('test'), data: {} }, version)).toEqual({
        id: 'wh_1',
        type: 'test',
        object: 'webhook',
        livemode: true,
      });
    },
  );

  it('adds evidence, response_url and files to dispute.response.generated (null and none when the event has none)', () => {
    expect(webhookPayload(source('dispute.response.generated'), '2021-09-15')).toMatchObject({
      dispute: 'dp_1',
      evidence: null,
      response_url: null,
      files: [],
    });
    const files = [{ file: 'file_1', filename: 'a.png', url: 'https://x/v1/files/file_1/download' }];
    expect(webhookPayload({ ...source('dispute.response.generated'), files }, '2021-09-15')).toMatchObject({
      files,
    });
  });

  it.each(['alert.created', 'alert.updated'])(
    'names an alert as alert and its linked dispute as dispute (%s), old versions with the old names too',
    (type) => {
      const alert = { object: 'alert', id: 'issfr_1', charge: 'ch_1', dispute: 'dp_9', outcome: 'disputed' };
      const head = { id: 'wh_1', type, object: 'webhook', livemode: true };
      expect(webhookPayload({ ...source(type), data: alert }, '2021-09-15')).toEqual({
        ...head,
        alert: 'issfr_1',
        dispute: 'dp_9',
        charge: 'ch_1',
        account_id: null,
      });
      expect(webhookPayload({ ...source(type), data: { ...alert, dispute: null } }, '2016-03-05')).toEqual({
        ...head,
        alert: 'issfr_1',
        dispute: null,
        charge: 'ch_1',
        account_id: null,
        dispute_id: null,
        external_charge: 'ch_1',
        user_id: null,
      });
    },
  );

  it('gives null for attributes the dispute lacks', () => {
    expect(
      webhookPayload({ ...source('dispute.created'), data: { id: 'dp_2' } }, '2021-09-15'),
    ).toMatchObject({
      dispute: 'dp_2',
      charge: null,
      account_id: null,
    });
  });
});

describe('signatures (Standard Webhooks)', () => {
  it('signs so that the standardwebhooks package verifies', () => {
    const body = JSON.stringify({ hello: 'world' });
    const headers = webhookHeaders([secret], 'wh_abc', new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual({ hello: 'world' });
    expect(headers['webhook-id']).toBe('wh_abc');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('matches the Standard Webhooks reference signature for fixed inputs', () => {
    const timestamp = 1_700_000_000;
    const body = '{"a":1}';
    const expected = new Webhook(secret).sign('wh_x', new Date(timestamp * 1000), body);
    expect(signWebhook(secret, 'wh_x', timestamp, body)).toBe(expected);
  });

  it('is refused by the verifier when the body, id or secret differ', () => {
    const body = '{"a":1}';
    const headers = webhookHeaders([secret], 'wh_abc', new Date(), body);
    expect(() => new Webhook(secret).verify('{"a":2}', headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'wh_abd' })).toThrow();
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    expect(() => new Webhook(other).verify(body, headers)).toThrow();
  });

  it('signs with each secret given, space-separated, so a receiver with either verifies', () => {
    const body = '{"a":1}';
    const previous = `whsec_${randomBytes(24).toString('base64')}`;
    const headers = webhookHeaders([secret, previous], 'wh_abc', new Date(), body);
    const timestamp = Number(headers['webhook-timestamp']);
    expect(headers['webhook-signature']).toBe(
      `${signWebhook(secret, 'wh_abc', timestamp, body)} ${signWebhook(previous, 'wh_abc', timestamp, body)}`,
    );
    expect(new Webhook(secret).verify(body, headers)).toEqual({ a: 1 });
    expect(new Webhook(previous).verify(body, headers)).toEqual({ a: 1 });
  });

  it('puts the timestamp in unix seconds', () => {
    const headers = webhookHeaders([secret], 'wh_abc', new Date(1_700_000_000_999), '{}');
    expect(headers['webhook-timestamp']).toBe('1700000000');
  });

  it('refuses a secret without the whsec_ prefix', () => {
    expect(() => signWebhook('abc', 'wh_1', 1, '{}')).toThrow();
  });
});

describe('endpointWants', () => {
  const all = { events: ['*'], apiVersion: '2021-09-15' };
  const old = { events: ['*'], apiVersion: '2016-03-05' };

  it.each(eventTypes.filter((type) => type !== 'test'))('sends %s to an endpoint subscribed to *', (type) => {
    expect(endpointWants(all, type, false)).toBe(true);
  });

  it('sends only the subscribed types to an endpoint with a list', () => {
    const some = { events: ['dispute.created', 'dispute.closed'], apiVersion: '2021-09-15' };
    expect(endpointWants(some, 'dispute.created', false)).toBe(true);
    expect(endpointWants(some, 'dispute.updated', false)).toBe(false);
  });

  it('never sends a test event by subscription (it goes to the endpoint it was made for)', () => {
    expect(endpointWants(all, 'test', true)).toBe(false);
    expect(endpointWants({ events: ['test'], apiVersion: '2021-09-15' }, 'test', true)).toBe(false);
  });

  it.each([
    ['2016-03-05', false, false],
    ['2016-03-05', true, true],
    ['2020-02-28', false, false],
    ['2020-02-28', true, true],
    ['2021-09-15', false, true],
    ['2021-09-15', true, true],
  ] as const)('dispute.closed on %s, submitted here %s: sent %s', (apiVersion, submittedHere, sent) => {
    expect(endpointWants({ events: ['*'], apiVersion }, 'dispute.closed', submittedHere)).toBe(sent);
  });

  it('applies the closed gate to other event types not at all', () => {
    expect(endpointWants(old, 'dispute.updated', false)).toBe(true);
  });

  it('throws on a stored version that is not one (a bug, not input)', () => {
    expect(() =>
      endpointWants({ events: ['*'], apiVersion: '2015-01-01' }, 'dispute.closed', false),
    ).toThrow();
  });
});

describe('answers and reasons', () => {
  it('describes an HTTP answer by its status and a missing one by its error', () => {
    expect(describeAnswer({ status: 500, error: 'HTTP 500' })).toBe('HTTP 500');
    expect(describeAnswer({ status: null, error: 'no answer within 10 s' })).toBe('no answer within 10 s');
  });

  it('says why an endpoint was disabled', () => {
    expect(disabledReason('HTTP 500')).toBe(
      'disabled after 3 days of failed deliveries; last answer: HTTP 500',
    );
  });
});

describe('endpoint parameters', () => {
  const strict = createEndpointInput(false);
  const relaxed = createEndpointInput(true);

  it('defaults events to all and leaves the version to the organisation', () => {
    expect(strict.parse({ url: 'https://example.com/hook' })).toEqual({
      url: 'https://example.com/hook',
      events: ['*'],
    });
  });

  it.each(['http://example.com/hook', 'ftp://example.com', '/hook', 'example.com', '', 'https//x'])(
    'refuses %s as a URL in production',
    (url) => {
      expect(strict.safeParse({ url }).success).toBe(false);
    },
  );

  it('allows plain http with WEBHOOK_ALLOW_PRIVATE, and still only http and https', () => {
    expect(relaxed.safeParse({ url: 'http://127.0.0.1:9/hook' }).success).toBe(true);
    expect(relaxed.safeParse({ url: 'ftp://127.0.0.1/' }).success).toBe(false);
  });

  it('refuses a URL over 2048 characters', () => {
    expect(strict.safeParse({ url: `https://example.com/${'a'.repeat(2030)}` }).success).toBe(false);
  });

  it('takes events as an array, one JSON-text value, or a single name; * wins; duplicates collapse', () => {
    const url = 'https://example.com/hook';
    expect(strict.parse({ url, events: ['dispute.created', 'dispute.created'] }).events).toEqual([
      'dispute.created',
    ]);
    expect(strict.parse({ url, events: '["dispute.closed","test"]' }).events).toEqual([
      'dispute.closed',
      'test',
    ]);
    expect(strict.parse({ url, events: 'dispute.updated' }).events).toEqual(['dispute.updated']);
    expect(strict.parse({ url, events: ['dispute.updated', '*'] }).events).toEqual(['*']);
  });

  it.each([[['dispute.nope']], [[]], [[5]], [{}], [5], [Array(51).fill('dispute.created')]])(
    'refuses events %j',
    (events) => {
      expect(strict.safeParse({ url: 'https://example.com/hook', events }).success).toBe(false);
    },
  );

  it('takes a known api_version and refuses any other', () => {
    const url = 'https://example.com/hook';
    expect(strict.parse({ url, api_version: '2016-03-05' }).api_version).toBe('2016-03-05');
    expect(strict.safeParse({ url, api_version: '2016-03-06' }).success).toBe(false);
    expect(strict.safeParse({ url, api_version: 20160305 }).success).toBe(false);
  });

  it('updates take any subset, enabled as a boolean or its form text', () => {
    const update = updateEndpointInput(false);
    expect(update.parse({})).toEqual({});
    expect(update.parse({ enabled: 'false' })).toEqual({ enabled: false });
    expect(update.safeParse({ enabled: 'maybe' }).success).toBe(false);
    expect(update.safeParse({ url: 'http://example.com' }).success).toBe(false);
  });
});
