import { randomBytes, randomInt } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { disputes } from '../../db/schema/index.js';
import { ApiError } from '../../domain/errors.js';
import { sampleDisputeValues, sampleNetwork } from '../../domain/sample-disputes.js';
import { applyArrivalRules } from '../rules/arrival.js';
import type { Caller } from '../tenancy.js';
import { recordDisputeEvent } from '../webhooks/events.js';
import type { TestDisputeInput } from './inputs.js';
import type { DisputeOutcome } from './outcomes.js';

/**
 * Realistic random test-mode disputes (`source: mock`), answered by the mock processor, so that an
 * integration can be exercised end to end before any processor is connected.
 */

const { customers, reasons: reasonsSeen, descriptors, checks: checkValues } = sampleDisputeValues;

const day = 86_400_000;
const pick = <T>(values: readonly T[]): T => values[randomInt(values.length)] as T;
const token = () => randomBytes(9).toString('base64url').replace(/[-_]/g, 'x');

export async function generateTestDispute(
  db: Db,
  caller: Caller,
  input: TestDisputeInput,
): Promise<DisputeOutcome> {
  if (caller.livemode) {
    throw new ApiError('invalid_request', 'Test disputes can only be created with a test key.');
  }
  const now = Date.now();
  const [name, email] = pick(customers);
  const amount = input.amount ?? randomInt(5, 500) * 100 + pick([0, 49, 99]);
  const fee = 1500;
  const dueBy = input.due_by ?? new Date(now + randomInt(7, 21) * day);
  const reason = input.reason ?? pick(reasonsSeen);
  // A sample pair for the reason unless the client gives either; the one not given is then unknown.
  const given = input.network !== undefined || input.network_reason_code !== undefined;
  const card = given
    ? { network: input.network ?? null, networkReasonCode: input.network_reason_code ?? null }
    : sampleNetwork(reason, randomInt(1000));
  return db.transaction(async (tx) => {
    const [created] = await tx
      .insert(disputes)
      .values({
        orgId: caller.orgId,
        livemode: false,
        id: input.id ?? `dp_${token()}`,
        state: input.state,
        reason,
        kind: input.kind,
        source: 'mock',
        processor: null,
        account: input.account ?? null,
        chargedAt: new Date(now - randomInt(20, 60) * day),
        disputedAt: new Date(now - randomInt(1, 5) * day),
        dueBy,
        charge: input.charge ?? `ch_${token()}`,
        isChargeRefundable: false,
        amount,
        currency: input.currency ?? 'usd',
        fee,
        reversalAmount: amount,
        reversalTotal: amount + fee,
        reversalCurrency: input.currency ?? 'usd',
        customer: `cus_${token()}`,
        customerName: name,
        customerEmail: email,
        customerPurchaseIp: `203.0.113.${randomInt(1, 255)}`,
        addressZip: String(randomInt(10000, 99999)),
        addressLine1Check: pick(checkValues),
        addressZipCheck: pick(checkValues),
        cvcCheck: pick(checkValues),
        statementDescriptor: pick(descriptors),
        ...card,
        processorStatus: input.processor_status ?? null,
      })
      .onConflictDoNothing()
      .returning();
    if (!created) throw new ApiError('invalid_request', `A dispute with id '${input.id}' already exists.`);
    // A generated dispute arrives as a mirrored one would, so a merchant can try their workflow rules on it.
    const [arrived = { dispute: created, template: null }] = await applyArrivalRules(tx, [
      { dispute: created, template: null },
    ]);
    await recordDisputeEvent(tx, 'dispute.created', arrived.dispute, arrived.template);
    return { outcome: 'created', ...arrived };
  });
}
