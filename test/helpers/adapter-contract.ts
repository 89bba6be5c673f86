import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputeStates } from '../../src/domain/states.js';
import { kinds, type Processor, reasons } from '../../src/domain/vocabulary.js';
import type { AdapterContext } from '../../src/processors/connection.js';
import {
  type NormalizedDispute,
  type ProcessorAdapter,
  type ProcessorConnection,
  ProcessorError,
  PushRejectedError,
} from '../../src/processors/types.js';
import type { FakeServer } from '../fakes/harness.js';
import {
  capturingLogger,
  contractAccount,
  contractSubmission,
  countdown,
  type NetworkFacts,
  networkFacts,
} from './contract-calls.js';
import { contractFiles, expectedSlots, slottedOf } from './evidence-files.js';

export { capturingLogger, contractAccount, contractSubmission };

/**
 * The contract every processor adapter keeps, run against its fake processor (test/fakes/<name>.ts).
 * One suite for all eight, driven by the adapter's declared capabilities: what a processor cannot do is
 * checked to be declared missing, not skipped silently.
 */

/** What the suite needs of a fake processor, whatever its wire format. */
export interface ContractFake {
  readonly server: FakeServer;
  /** Adds disputes the merchant must answer (chargebacks, needs_response); returns their ids. */
  addDisputes(count: number): string[];
  /** The processor moves a dispute on, as it would on its own. */
  move(id: string, to: 'under_review' | 'won' | 'lost'): void;
  /** How many times the dispute's evidence was sent on to the bank (the final step). */
  submissionCount(id: string): number;
  /** What the fake holds of the dispute's final submission: all text it received, and the files. */
  submitted(id: string): { text: string; files: Buffer[] } | undefined;
  /**
   * The evidence files the dispute's final submission carries in the processor's own slots (its evidence
   * file fields, its document types), each with its bytes as the processor holds them; the response
   * document is not among them. Absent on fakes of processors that take no file of their own.
   */
  slotted?(id: string): { slot: string; bytes: Buffer }[];
  /**
   * How many files the processor holds from uploads, all disputes together: a retry must not add one.
   * Where uploads take no idempotency key and cannot be listed (Checkout.com), only those whose answer
   * reached the adapter: one whose answer was lost can be found again by nobody.
   */
  uploadCount?(): number;
  /** Whether the merchant accepted the dispute. */
  accepted(id: string): boolean;
  /**
   * The dispute's card network, the network's code and the processor's status word as the suite's means
   * of ingestion tells them, the network in this service's name (the fake knows its own spellings).
   */
  reported(id: string): NetworkFacts;
  close(): Promise<void>;
}

export interface AdapterSpec {
  processor: Processor;
  createAdapter(context: AdapterContext): ProcessorAdapter;
  startFake(): Promise<ContractFake>;
  /** Credentials the fake takes, as the operator's credentials file holds them; null where none are needed. */
  credentials: Record<string, unknown> | null;
  /** Well-formed credentials the fake refuses. */
  wrongCredentials: Record<string, unknown>;
  /**
   * Processors that push: the processor's own signed webhook(s) about these disputes (their current state
   * at the fake), as it would POST them.
   */
  push?(fake: ContractFake, ids: string[]): { headers: Record<string, string>; body: Buffer }[];
  /**
   * The push with the dispute's id changed after signing, the signature kept. Default: the id replaced in
   * the raw body (processors that encode their payload, like Braintree, say how).
   */
  tamper?(push: { headers: Record<string, string>; body: Buffer }, id: string): Buffer;
  /** Processors without a list call whose disputes come from a report file: the report for these ids. */
  report?(fake: ContractFake, ids: string[]): string;
}

export function adapterContract(spec: AdapterSpec): void {
  describe(`${spec.processor} adapter contract`, () => {
    let fake: ContractFake;
    let adapter: ProcessorAdapter;
    const logs = capturingLogger();
    const secrets = Object.values(spec.credentials ?? {}).filter(
      (value): value is string => typeof value === 'string' && value.length >= 6,
    );

    const connectionWith = (credentials: Record<string, unknown> | null): ProcessorConnection => ({
      account: contractAccount,
      credentials: credentials === null ? null : JSON.stringify(credentials),
      baseUrl: fake.server.url,
      readOnly: false,
    });
    const connection = () => connectionWith(spec.credentials);

    /** The dispute as the adapter's own means of ingestion reports it. */
    async function ingestOne(id: string): Promise<NormalizedDispute> {
      const found = (await ingest([id])).find((dispute) => dispute.id === id);
      if (!found) throw new Error(`${id} was not ingested`);
      return found;
    }

    /** Every dispute the processor reports now, by the adapter's own means of ingestion. */
    async function ingest(ids: string[]): Promise<NormalizedDispute[]> {
      if (adapter.listDisputes) return (await listAll(null)).disputes;
      if (adapter.parsePush && spec.push) {
        const found: NormalizedDispute[] = [];
        for (const push of spec.push(fake, ids)) {
          const result = await adapter.parsePush({ connection: connection(), ...push });
          found.push(...result.disputes);
          for (const id of result.refresh) {
            const got = await adapter.getDispute?.({ connection: connection(), id });
            if (got) found.push(got);
          }
        }
        return found;
      }
      if (adapter.readReport && spec.report) return adapter.readReport(spec.report(fake, ids));
      throw new Error(`${spec.processor}: no means of ingestion declared`);
    }

    let cursor: string | null = null;
    async function listAll(from: string | null) {
      const list = adapter.listDisputes;
      if (!list) throw new Error('no list');
      const disputes: NormalizedDispute[] = [];
      let at = from;
      let pages = 0;
      for (;;) {
        const page = await list.call(adapter, { connection: connection(), cursor: at, limit: 100 });
        disputes.push(...page.disputes);
        pages += 1;
        at = page.nextCursor;
        if (!page.hasMore) break;
        if (pages > 200) throw new Error('more than 200 pages');
      }
      cursor = at;
      return { disputes, pages };
    }

    beforeAll(async () => {
      fake = await spec.startFake();
      adapter = spec.createAdapter({ logger: logs.logger });
    });
    afterAll(async () => {
      await fake.close();
    });

    it('declares what it can do, and has a method for each capability it declares', () => {
      const { capabilities } = adapter;
      expect(adapter.name).toBe(spec.processor);
      expect(Boolean(adapter.listDisputes)).toBe(capabilities.list);
      expect(Boolean(adapter.getDispute)).toBe(capabilities.get);
      expect(Boolean(adapter.acceptDispute)).toBe(capabilities.accept);
      expect(Boolean(adapter.pastPayments)).toBe(capabilities.pastPayments);
      expect(Boolean(adapter.parsePush)).toBe(capabilities.push);
      expect(Boolean(adapter.listAlerts)).toBe(capabilities.alerts);
      expect(Boolean(adapter.refundCharge)).toBe(capabilities.refund);
      expect(capabilities.kinds.length).toBeGreaterThan(0);
      expect(capabilities.list || capabilities.push || Boolean(adapter.readReport)).toBe(true);
    });

    it('refuses malformed credentials at connect, with a message naming what is wrong', () => {
      const given = spec.credentials === null ? null : JSON.stringify(spec.credentials);
      expect(adapter.checkCredentials?.(given)).toBeNull();
      expect(adapter.checkCredentials?.('not json')).toMatch(/JSON/);
      expect(adapter.checkCredentials?.('{}')).toEqual(expect.any(String));
    });

    it('ingests 1,000 disputes, every one normalized', { timeout: 60_000 }, async () => {
      const ids = fake.addDisputes(1000);
      const before = fake.server.requests.length;
      const disputes = await ingest(ids);
      const byId = new Map(disputes.map((dispute) => [dispute.id, dispute]));
      expect(ids.filter((id) => !byId.has(id))).toEqual([]);
      if (adapter.listDisputes) expect(fake.server.requests.length - before).toBeGreaterThanOrEqual(10);
      for (const id of ids) {
        const dispute = byId.get(id) as NormalizedDispute;
        expect(disputeStates).toContain(dispute.state);
        expect(reasons).toContain(dispute.reason);
        expect(kinds).toContain(dispute.kind);
        expect(dispute.state).toBe('needs_response');
        expect(Number.isInteger(dispute.amount)).toBe(true);
        expect(dispute.currency).toMatch(/^[a-z]{3}$/);
        expect(networkFacts(dispute)).toEqual(fake.reported(id));
      }
    });

    it('picks up a status change and a closure', async () => {
      const [changing, closing] = fake.addDisputes(2) as [string, string];
      if (adapter.listDisputes) await listAll(cursor);
      fake.move(changing, 'under_review');
      fake.move(closing, 'won');
      const seen = adapter.listDisputes
        ? (await listAll(cursor)).disputes
        : await ingest([changing, closing]);
      const latest = new Map(seen.map((dispute) => [dispute.id, dispute]));
      expect(latest.get(changing)?.state).toBe('under_review');
      expect(latest.get(closing)?.state).toBe('won');
      expect(latest.get(closing)?.closedAt).toBeInstanceOf(Date);
      // The processor's own status word follows it.
      for (const id of [changing, closing]) expect(networkFacts(latest.get(id))).toEqual(fake.reported(id));
    });

    it('submits the evidence text and the PDF', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = contractSubmission(await ingestOne(id), connection(), 'sub_contract000000000001');
      const result = await adapter.submitEvidence(request);
      if (adapter.capabilities.submit === 'portal') {
        expect(result.delivery).toBe('portal');
        expect(fake.submissionCount(id)).toBe(0);
        return;
      }
      expect(result.delivery ?? 'sent').toBe('sent');
      expect(fake.submissionCount(id)).toBe(1);
      const held = fake.submitted(id);
      expect(held?.text).toContain('TRACK-4711');
      if (adapter.capabilities.fileUpload) {
        expect(held?.files.map((file) => file.toString('base64'))).toContain(
          request.response.document.pdf.toString('base64'),
        );
      }
    });

    it('sends each evidence file in its slot, and leaves the others to the response document', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const files = await contractFiles();
      const request = {
        ...contractSubmission(await ingestOne(id), connection(), 'sub_contract000000000003'),
        files,
      };
      const result = await adapter.submitEvidence(request);
      if (adapter.capabilities.submit === 'portal') {
        expect(result.delivery).toBe('portal');
        return;
      }
      expect(fake.submissionCount(id)).toBe(1);
      expect(slottedOf(fake, id)).toEqual(expectedSlots(adapter, files));
    });

    it('a retry after a dropped connection never submits twice, nor uploads a file twice', async () => {
      if (adapter.capabilities.submit === 'portal') return;
      const [id] = fake.addDisputes(1) as [string];
      const files = await contractFiles();
      const request = {
        ...contractSubmission(await ingestOne(id), connection(), 'sub_contract000000000002'),
        files,
      };
      const uploadsBefore = fake.uploadCount?.() ?? 0;
      // Every call may be the one whose answer is lost: drop each in turn, then retry until done. A read
      // the HTTP layer retries by itself may absorb the fault; the submission then simply goes on.
      for (let lose = 0; lose < 50; lose++) {
        fake.server.inject({ kind: 'drop-after', match: countdown(lose) });
        let outlived: boolean;
        try {
          await adapter.submitEvidence(request);
          outlived = fake.server.pendingFaults > 0;
        } catch (error) {
          expect(error).toBeInstanceOf(ProcessorError);
          expect((error as ProcessorError).retryable).toBe(true);
          fake.server.clearFaults();
          await adapter.submitEvidence(request);
          outlived = false;
        } finally {
          fake.server.clearFaults();
        }
        expect(fake.submissionCount(id)).toBe(1);
        // The fault outlived every call of a submission: each call's lost answer has been tried.
        if (outlived) break;
      }
      expect(fake.submissionCount(id)).toBe(1);
      const expected = expectedSlots(adapter, files);
      expect(slottedOf(fake, id)).toEqual(expected);
      // Each slotted file once, and the response document once where it is uploaded as a file.
      const document = fake.uploadCount && adapter.capabilities.fileUpload ? 1 : 0;
      expect((fake.uploadCount?.() ?? 0) - uploadsBefore).toBe(expected.length + document);
    });

    it('accepts where the processor can be told, and declares it missing where not', async () => {
      if (!adapter.acceptDispute) {
        expect(adapter.capabilities.accept).toBe(false);
        return;
      }
      const [id] = fake.addDisputes(1) as [string];
      const { dispute: reference } = contractSubmission(await ingestOne(id), connection(), 'x');
      await adapter.acceptDispute({ connection: connection(), dispute: reference, idempotencyKey: 'acc_1' });
      expect(fake.accepted(id)).toBe(true);
    });

    describe('maps every class of error', () => {
      const call = async (credentials = spec.credentials) => {
        const [id] = fake.addDisputes(1) as [string];
        const conn = connectionWith(credentials);
        if (adapter.listDisputes) return adapter.listDisputes({ connection: conn, cursor: null, limit: 10 });
        if (adapter.getDispute) return adapter.getDispute({ connection: conn, id });
        // Portal processors make no calls at all: nothing can fail on the wire.
        return undefined;
      };
      const failure = async (credentials?: Record<string, unknown> | null) => {
        try {
          await call(credentials);
        } catch (error) {
          expect(error).toBeInstanceOf(ProcessorError);
          return error as ProcessorError;
        }
        return undefined;
      };
      const wire = () => Boolean(adapter.listDisputes || adapter.getDispute);

      it('refused credentials: permanent, with the status', async () => {
        if (!wire()) return;
        const error = await failure(spec.wrongCredentials);
        expect(error?.retryable).toBe(false);
        expect([401, 403]).toContain(error?.status);
      });
      it('429 with Retry-After: transient, with the wait', async () => {
        if (!wire()) return;
        fake.server.inject({ kind: 'rate-limit', value: 7, times: 5 });
        const error = await failure();
        fake.server.clearFaults();
        expect(error?.retryable).toBe(true);
        expect(error?.status).toBe(429);
        expect(error?.retryAfterSeconds).toBe(7);
      });
      it('5xx: transient, with the status and an excerpt of the answer', async () => {
        if (!wire()) return;
        fake.server.inject({ kind: 'unavailable', times: 5 });
        const error = await failure();
        fake.server.clearFaults();
        expect(error?.retryable).toBe(true);
        expect(error?.status).toBe(503);
        expect(error?.excerpt).toEqual(expect.any(String));
      });
      it('a dropped connection: transient, no status', async () => {
        if (!wire()) return;
        fake.server.inject({ kind: 'drop', times: 5 });
        const error = await failure();
        fake.server.clearFaults();
        expect(error?.retryable).toBe(true);
        expect(error?.status).toBeUndefined();
      });
    });

    it('verifies pushes with the processor signature, and refuses a tampered one', async () => {
      if (!adapter.parsePush || !spec.push) {
        expect(adapter.capabilities.push).toBe(false);
        return;
      }
      const [id] = fake.addDisputes(1) as [string];
      const [push] = spec.push(fake, [id]);
      if (!push) throw new Error('no push');
      const result = await adapter.parsePush({ connection: connection(), ...push });
      expect([...result.refresh, ...result.disputes.map((dispute) => dispute.id)]).toContain(id);
      const tampered = spec.tamper
        ? spec.tamper(push, id)
        : Buffer.from(push.body.toString('utf8').replace(id, `${id}x`));
      expect(tampered.equals(push.body)).toBe(false);
      await expect(
        adapter.parsePush({ connection: connection(), headers: push.headers, body: tampered }),
      ).rejects.toBeInstanceOf(PushRejectedError);
      // An empty request carries no signature, wherever the processor puts it (a header, the body).
      await expect(
        adapter.parsePush({ connection: connection(), headers: {}, body: Buffer.alloc(0) }),
      ).rejects.toBeInstanceOf(PushRejectedError);
    });

    it('fetches past payments made with the same card, where it can', async () => {
      if (!adapter.pastPayments) {
        expect(adapter.capabilities.pastPayments).toBe(false);
        return;
      }
      const [id] = fake.addDisputes(1) as [string];
      const { dispute: reference } = contractSubmission(await ingestOne(id), connection(), 'x');
      const payments = await adapter.pastPayments({
        connection: connection(),
        dispute: reference,
        limit: 10,
      });
      expect(payments.length).toBeGreaterThan(0);
      expect(payments.length).toBeLessThanOrEqual(10);
      for (const payment of payments) {
        expect(payment.id).not.toBe(reference.charge);
        expect(Number.isInteger(payment.amount)).toBe(true);
      }
    });

    it('never logs the credentials, nor puts them in an error', () => {
      const text = logs.text();
      expect(text.length).toBeGreaterThan(0);
      for (const secret of secrets) expect(text).not.toContain(secret);
    });
  });
}
