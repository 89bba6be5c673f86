import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedDispute, ProcessorConnection } from '../../../src/processors/types.js';
import { PushRejectedError, ReportError } from '../../../src/processors/types.js';
import { WorldpayAdapter } from '../../../src/processors/worldpay/adapter.js';
import { startWorldpayFake, type WorldpayFake, worldpayFakeCredentials } from '../../fakes/worldpay.js';
import {
  adapterContract,
  capturingLogger,
  contractAccount,
  contractSubmission,
} from '../../helpers/adapter-contract.js';
import { processorSpecs } from '../../helpers/processor-specs.js';

adapterContract(processorSpecs.worldpay);

describe('worldpay adapter against the fake Worldpay', () => {
  let fake: WorldpayFake;
  const logs = capturingLogger();
  const adapter = new WorldpayAdapter({ logger: logs.logger });
  const connection = (
    credentials: Record<string, unknown> = worldpayFakeCredentials,
  ): ProcessorConnection => ({
    account: contractAccount,
    credentials: JSON.stringify(credentials),
    baseUrl: fake.server.url,
    readOnly: false,
  });
  const parse = (push: { headers: Record<string, string | string[]>; body: Buffer }, conn = connection()) =>
    adapter.parsePush({ connection: conn, ...push });

  beforeAll(async () => {
    fake = await startWorldpayFake();
  });
  afterAll(() => fake.close());

  describe('credentials', () => {
    it('takes the key id as text or number, and names what is wrong', () => {
      expect(adapter.checkCredentials(JSON.stringify({ webhook_key_id: 2, webhook_secret: 's' }))).toBeNull();
      expect(adapter.checkCredentials(JSON.stringify({ webhook_key_id: 'one', webhook_secret: 's' }))).toBe(
        'webhook_key_id: must be the numeric keyId of the signing key',
      );
      expect(adapter.checkCredentials(JSON.stringify({ webhook_key_id: '1' }))).toMatch(/^webhook_secret: /);
    });
  });

  describe('submission', () => {
    it('sends nothing: the package is left for the Dashboard, and says so in the log', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const [dispute] = (await parse(fake.event(id))).disputes as [NormalizedDispute];
      const before = fake.server.requests.length;
      const result = await adapter.submitEvidence(
        contractSubmission(dispute, connection(), 'sub_worldpay_1'),
      );
      expect(result).toEqual({ reference: null, delivery: 'portal' });
      expect(fake.server.requests.length).toBe(before);
    });
  });

  describe('webhooks', () => {
    it('reads a chargedBack event in full: no reason and no deadline in it', async () => {
      const dispute = fake.addDispute({
        amount: 4999,
        currency: 'GBP',
        transactionDate: new Date('2026-10-03T00:00:00Z'),
      });
      const result = await parse(fake.event(dispute.reference));
      expect(result.refresh).toEqual([]);
      expect(result.reply).toBeUndefined();
      expect(result.disputes).toEqual([
        {
          id: dispute.reference,
          state: 'needs_response',
          reason: 'general',
          kind: 'chargeback',
          chargedAt: new Date('2026-10-03T00:00:00Z'),
          disputedAt: dispute.changedAt,
          dueBy: null,
          closedAt: null,
          charge: dispute.reference,
          isChargeRefundable: null,
          amount: 4999,
          currency: 'gbp',
          fee: null,
          reversalAmount: null,
          reversalTotal: null,
          reversalCurrency: null,
          customer: null,
          customerName: null,
          customerEmail: null,
          customerPurchaseIp: null,
          addressZip: null,
          addressLine1Check: null,
          addressZipCheck: null,
          cvcCheck: null,
          statementDescriptor: null,
          network: null,
          networkReasonCode: null,
          processorStatus: 'CHARGED_BACK',
          resolution: null,
          compellingEvidenceProcessorStatus: null,
        },
      ]);
    });

    it.each([
      ['INFORMATION_REQUESTED', 'warning_needs_response', 'retrieval', 'retrieved', true],
      ['INFORMATION_SUPPLIED', 'under_review', 'chargeback', 'general', false],
      ['CHARGED_BACK', 'needs_response', 'chargeback', 'general', true],
      ['CHARGEBACK_REVERSED', 'won', 'chargeback', 'general', false],
    ] as const)('a payment that is %s is %s, a %s', async (status, state, kind, reason, opens) => {
      const dispute = fake.addDispute({ status });
      const [read] = (await parse(fake.event(dispute.reference))).disputes;
      expect(read).toMatchObject({ state, kind, reason, disputedAt: opens ? dispute.changedAt : null });
      expect(read?.closedAt).toEqual(state === 'won' ? dispute.changedAt : null);
    });

    it('acknowledges events that are not a dispute, and leaves them out', async () => {
      const push = fake.signed({
        eventId: 'bb55ca5a-e05c-47e1-8e94-e88bac1a0a17',
        eventTimestamp: new Date().toISOString().slice(0, 23),
        eventDetails: {
          classification: 'payment',
          transactionReference: 'Memory265-13/08/1876',
          type: 'authorized',
          date: '2026-11-20',
          amount: { value: 100, currencyCode: 'EUR' },
        },
      });
      expect(await parse(push)).toEqual({ refresh: [], disputes: [] });
    });

    it('reads a timestamp that carries its zone as written', async () => {
      // An hour ago, written as the clock of a zone an hour ahead of UTC shows it.
      const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
      const push = fake.signed({
        eventId: 'e1',
        eventTimestamp: `${new Date(at.getTime() + 3_600_000).toISOString().slice(0, 19)}+01:00`,
        eventDetails: { classification: 'payment', transactionReference: 'Memory265-x', type: 'chargedBack' },
      });
      const [read] = (await parse(push)).disputes;
      expect(read).toMatchObject({
        disputedAt: at,
        amount: null,
        chargedAt: null,
      });
    });

    it('finds its signature by key id among several, in any order, also as repeated headers', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const body = fake.event(id).body;
      const both = fake.signed(body.toString('utf8'), [
        ['2', 'a-newer-secret'],
        ['1', worldpayFakeCredentials.webhook_secret],
      ]);
      expect((await parse(both)).disputes.map((dispute) => dispute.id)).toEqual([id]);
      const [newer, ours] = both.headers['event-signature'].split(',') as [string, string];
      expect((await parse({ headers: { 'event-signature': [newer, ours] }, body })).disputes).toHaveLength(1);
      const rotated = { ...worldpayFakeCredentials, webhook_key_id: 2, webhook_secret: 'a-newer-secret' };
      expect((await parse(both, connection(rotated))).disputes).toHaveLength(1);
    });

    it.each([
      ['no signature header', {}, 'no Event-Signature header'],
      ['only another key', { 'event-signature': '7/SHA256/00ff' }, 'no SHA256 signature under key id 1'],
      ['another hash function', { 'event-signature': '1/SHA1/00ff' }, 'no SHA256 signature under key id 1'],
      [
        'a wrong signature',
        { 'event-signature': `1/SHA256/${'0'.repeat(64)}` },
        'the Event-Signature does not match the body',
      ],
      [
        'a signature that is not hex',
        { 'event-signature': '1/SHA256/zz' },
        'the Event-Signature does not match the body',
      ],
    ])('refuses a push with %s', async (_what, headers, message) => {
      const [id] = fake.addDisputes(1) as [string];
      await expect(parse({ headers, body: fake.event(id).body })).rejects.toThrow(
        new PushRejectedError(message),
      );
    });

    it('refuses a signed body that is not JSON, or not an event', async () => {
      await expect(parse(fake.signed('{"eventId":'))).rejects.toThrow(
        new PushRejectedError('the body is not JSON'),
      );
      await expect(parse(fake.signed({ eventId: 'e' }))).rejects.toBeInstanceOf(PushRejectedError);
      const badDate = fake.signed({
        eventId: 'e2',
        eventTimestamp: 'yesterday',
        eventDetails: { classification: 'payment', transactionReference: 'r', type: 'chargedBack' },
      });
      await expect(parse(badDate)).rejects.toThrow(
        new PushRejectedError('the push carries no signed time it was sent at'),
      );
    });
  });

  describe('the portal export', () => {
    const header =
      'Order Code,Reference,MID,Status,Cycle,Reason Category,Reason Code,Chargeback Amount,Currency,' +
      'Transaction Amount,Transaction Date,Due Date,Status Date,Card Number';
    const csv = (...rows: string[]) => [header, ...rows].join('\n');

    it('reads every column it knows into the dispute', () => {
      const report = csv(
        'order-7,CB7,4001234,In progress,First cycle,Consumer Disputes,13.1,12.50,GBP,20.00,03/10/2026,2026-12-01,2026-11-20,**** 4242',
      );
      expect(adapter.readReport(report)).toEqual([
        {
          id: 'order-7',
          state: 'needs_response',
          reason: 'product_not_received',
          kind: 'chargeback',
          chargedAt: new Date('2026-10-03T00:00:00Z'),
          disputedAt: null,
          dueBy: new Date('2026-12-01T00:00:00Z'),
          closedAt: null,
          charge: 'order-7',
          isChargeRefundable: null,
          amount: 1250,
          currency: 'gbp',
          fee: null,
          reversalAmount: null,
          reversalTotal: null,
          reversalCurrency: null,
          customer: null,
          customerName: null,
          customerEmail: null,
          customerPurchaseIp: null,
          addressZip: null,
          addressLine1Check: null,
          addressZipCheck: null,
          cvcCheck: null,
          statementDescriptor: null,
          network: null,
          networkReasonCode: '13.1',
          processorStatus: 'IN_PROGRESS',
          resolution: null,
          compellingEvidenceProcessorStatus: null,
        },
      ]);
    });

    it('reads the card network where the export has a Network column, its code by that network', () => {
      const withNetwork = (network: string) =>
        adapter.readReport(
          [
            'Order Code,Status,Reason Code,Network,Chargeback Amount,Currency',
            `o1,CHARGED_BACK,C08,${network},1.00,USD`,
          ].join('\n'),
        )[0];
      expect(withNetwork('American Express (AMEX)')).toMatchObject({
        network: 'amex',
        networkReasonCode: 'C08',
        reason: 'product_not_received',
        processorStatus: 'CHARGED_BACK',
      });
      expect(withNetwork('Cartes Bancaires')).toMatchObject({ network: null, networkReasonCode: 'C08' });
    });

    it.each([
      ['In progress', 'Request for information', 'warning_needs_response', 'retrieval', null],
      ['In progress', 'Second cycle', 'needs_response', 'pre_arbitration', null],
      ['Expired', 'First cycle', 'lost', 'chargeback', '2026-11-20'],
      ['Expired', 'Request for information', 'warning_closed', 'retrieval', '2026-11-20'],
      ['INFORMATION_REQUESTED', '', 'warning_needs_response', 'retrieval', null],
      ['Information supplied', 'Request for information', 'warning_under_review', 'retrieval', null],
      ['INFORMATION_SUPPLIED', '', 'under_review', 'chargeback', null],
      ['CHARGED_BACK', 'Second cycle', 'needs_response', 'pre_arbitration', null],
      ['CHARGEBACK_REVERSED', '', 'won', 'chargeback', '2026-11-20'],
    ])('status %s in cycle "%s" is %s, a %s', (status, cycle, state, kind, closed) => {
      const [dispute] = adapter.readReport(
        csv(`o1,R,M,${status},${cycle},,,1.00,EUR,,,2026-12-01,2026-11-20,`),
      );
      expect(dispute).toMatchObject({ state, kind, closedAt: closed && new Date(`${closed}T00:00:00Z`) });
    });

    it('closes an expired dispute at its due date when no status date is given', () => {
      const [dispute] = adapter.readReport(csv('o1,R,M,Expired,First cycle,,,1.00,EUR,,,2026-12-01,,'));
      expect(dispute?.closedAt).toEqual(new Date('2026-12-01T00:00:00Z'));
    });

    it('falls back on the reason category where the code says nothing', () => {
      const row = (category: string, code: string) =>
        `o1,R,M,In progress,First cycle,${category},${code},1.00,EUR,,,,,`;
      expect(adapter.readReport(csv(row('Fraud', '')))[0]?.reason).toBe('fraudulent');
      expect(adapter.readReport(csv(row('Fraud', '4855')))[0]?.reason).toBe('product_not_received');
      expect(adapter.readReport(csv(row('Processing Errors', '99')))[0]?.reason).toBe('general');
    });

    it.each([
      ['1000', 'JPY', 1000],
      ['3.125', 'KWD', 3125],
      ['0.5', 'EUR', 50],
    ])('reads %s %s as %i minor units', (amount, currency, minor) => {
      expect(adapter.readReport(csv(`o1,R,M,In progress,,,,${amount},${currency},,,,,`))[0]?.amount).toBe(
        minor,
      );
    });

    it.each([
      ['an unknown status', 'o2,R,M,Pending,,,,1.00,EUR,,,,,', /line 3: "Pending" is not a dispute status/],
      [
        'an unknown cycle',
        'o2,R,M,In progress,Third cycle,,,1.00,EUR,,,,,',
        /line 3: "Third cycle" is not a dispute cycle/,
      ],
      [
        'an amount in too fine a unit',
        'o2,R,M,In progress,,,,1.001,EUR,,,,,',
        /line 3: "1.001 EUR" is not an amount/,
      ],
      [
        'a date that does not exist',
        'o2,R,M,In progress,,,,1.00,EUR,,31/02/2026,,,',
        /line 3: "Transaction Date" 31\/02\/2026 is not a date/,
      ],
      [
        'a date in another form',
        'o2,R,M,In progress,,,,1.00,EUR,,,Dec 1 2026,,',
        /line 3: "Due Date" Dec 1 2026 is not a date/,
      ],
      ['no order code', ',R,M,In progress,,,,1.00,EUR,,,,,', /line 3: "Order Code" is empty/],
    ])('refuses the whole file for %s, naming the line', (_what, bad, message) => {
      const good = 'o1,R,M,In progress,,,,1.00,EUR,,,,,';
      expect(() => adapter.readReport(csv(good, bad))).toThrow(ReportError);
      expect(() => adapter.readReport(csv(good, bad))).toThrow(message);
    });

    it('refuses a file without a column it needs', () => {
      expect(() => adapter.readReport('Order Code,Status\no1,Expired')).toThrow(
        new ReportError('line 1: the header has no "Chargeback Amount", "Currency" column'),
      );
    });

    it("tells the fake's disputes as its webhooks do", async () => {
      const ids = fake.addDisputes(3);
      fake.move(ids[1] as string, 'under_review');
      fake.move(ids[2] as string, 'won');
      const fromReport = adapter.readReport(fake.report(ids));
      const fromPushes: NormalizedDispute[] = [];
      for (const push of fake.events(ids)) fromPushes.push(...(await parse(push)).disputes);
      const view = (disputes: NormalizedDispute[]) =>
        disputes.map(({ id, state, kind, amount, currency, charge, chargedAt }) => ({
          id,
          state,
          kind,
          amount,
          currency,
          charge,
          chargedAt,
        }));
      expect(view(fromReport)).toEqual(view(fromPushes));
    });
  });

  it('never logs the credentials', () => {
    for (const secret of Object.values(worldpayFakeCredentials)) {
      if (secret.length >= 6) expect(logs.text()).not.toContain(secret);
    }
  });
});
