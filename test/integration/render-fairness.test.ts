import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  type Dispute,
  getDispute,
  newTenant,
  submittableDispute,
  type Tenant,
} from '../helpers/disputes.js';

/**
 * Fairness between tenants at the render threads (docs/architecture.md, "Render threads"): one
 * organisation's batch of large documents does not hold another organisation's ordinary submission
 * behind it. Asserted as an order at the processor, never as a time.
 */
let api: TestApi;
let big: Tenant;
let small: Tenant;
beforeAll(async () => {
  // Two threads, so the batch queues for them; no waiting on submit, so the batch is sent at once.
  api = await startTestApi({ env: { RENDER_THREADS: '2', SUBMIT_WAIT_MS: '0' } });
  big = await newTenant(api);
  small = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

const batchSize = 12;
// The costliest documents are those Typst draws (documents/pdf.ts): a Chinese word sends them there, where
// 45 pages take half a second, not the document engine's tens of milliseconds.
const sentence = 'the parcel was handed to the carrier and signed for at the door (已签收). ';
/** About `length` characters. */
const text = (length: number, seed: number) =>
  `Message ${seed}: ${sentence.repeat(length / sentence.length)}`;

/**
 * The most items a dispute takes, 100 products and 100 messages, with texts that bring the document to
 * about 180,000 characters and 45 pages: large, yet within what a tenant may send.
 */
const largeEvidence = {
  products: Array.from({ length: 100 }, (_, i) => ({
    name: `Trail running shoe, model ${i + 1}`,
    quantity: 1,
    amount: 6499,
    description: text(800, i),
  })),
  correspondence: Array.from({ length: 100 }, (_, i) => ({
    sent: 1_789_000_000 + i * 3600,
    from: 'support@shop.example.com',
    to: 'customer@example.com',
    subject: `Re: order ORD-${i}`,
    body: text(800, i),
  })),
};

const submitted = (ids: string[]) => ids.filter((id) => acceptedSubmissions(api, id).length > 0).length;

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 6000; tries++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('render threads shared by two organisations', () => {
  it("one organisation's batch of large documents does not hold back another's submission", async () => {
    const batch: Dispute[] = [];
    for (let n = 0; n < batchSize; n++) batch.push((await submittableDispute(api, big)).dispute);
    const ordinary = (await submittableDispute(api, small)).dispute;
    const batchIds = batch.map((dispute) => dispute.id);

    for (const id of batchIds) {
      const response = await api.call('POST', `/v1/disputes/${id}/submit`, {
        key: big.key,
        json: largeEvidence,
      });
      expect(response.status, response.text).toBe(202);
    }
    // The whole batch has started (below SUBMISSION_CONCURRENCY, so no job waits in the queue), its
    // renders with the pool, before the other organisation submits; most of it is still to render.
    await until(
      async () => (await api.queues.byName.submission.getActiveCount()) + submitted(batchIds) >= batchSize,
      'the batch to be running',
    );
    const doneBefore = submitted(batchIds);
    expect(doneBefore).toBeLessThanOrEqual(batchSize / 2);
    const response = await api.call('POST', `/v1/disputes/${ordinary.id}/submit`, { key: small.key });
    expect(response.status, response.text).toBe(202);

    // Read in the same moment the processor accepts the ordinary submission: it waited for the renders
    // on the threads when it came (two), and batch submissions whose renders had just ended may reach
    // the processor first (at most two more); unfair, it would wait for the rest of the batch, at least
    // half of it (six).
    let batchDone = -1;
    await until(() => {
      if (acceptedSubmissions(api, ordinary.id).length === 0) return false;
      batchDone = submitted(batchIds);
      return true;
    }, 'the ordinary submission');
    expect(batchDone - doneBefore).toBeLessThanOrEqual(batchSize / 3);
    await until(
      async () => (await getDispute(api, small.key, ordinary.id)).state === 'submitted',
      'the ordinary submission to be recorded',
    );

    // The batch is not starved either: all of it goes through.
    await until(() => submitted(batchIds) === batchSize, 'the whole batch');
    for (const id of batchIds) expect((await getDispute(api, big.key, id)).state).toBe('submitted');
  }, 180_000);
});
