import type { RefundChargeRequest, RefundChargeResult } from '../alert-types.js';
import { ProcessorError } from '../types.js';

/**
 * The mock processor's refunds (an alert's refund, docs/api.md, "Refunds"). Like a processor, it refunds a
 * charge once per idempotency key and answers a repeated key with the same refund. Its answer is chosen
 * by the charge id, as the mock's submissions are:
 * - a charge starting `ch_mock_refuse` is refused (a permanent error, as Stripe's `charge_already_refunded`);
 * - a charge starting `ch_mock_unavailable` fails as an outage would (a retryable error, as a 503);
 * - a charge starting `ch_mock_lost_reply` is refunded, but the first answer for each key is lost (a
 *   transient error after the effect, as a dropped connection);
 * - anything else is refunded.
 * Tests may hold every call at `gate` (two workers racing) and read what reached it.
 */
export const mockRefundCharges = {
  refuse: 'ch_mock_refuse',
  unavailable: 'ch_mock_unavailable',
  lostReply: 'ch_mock_lost_reply',
} as const;

export class MockRefunds {
  /** Refunds made, by idempotency key: what the processor holds. */
  readonly made = new Map<string, { refund: string; request: RefundChargeRequest }>();
  /** Every call received, repeats included: what went over the wire. */
  readonly calls: RefundChargeRequest[] = [];
  /** When set, each call waits for it before answering. */
  gate: Promise<void> | null = null;
  readonly #lost = new Set<string>();

  /** Refunds made for a charge (a processor refunds a charge in full at most once). */
  refundsOf(charge: string): number {
    return [...this.made.values()].filter(({ request }) => request.charge === charge).length;
  }

  async refundCharge(request: RefundChargeRequest): Promise<RefundChargeResult> {
    this.calls.push(request);
    if (this.gate) await this.gate;
    const { charge, idempotencyKey } = request;
    if (charge.startsWith(mockRefundCharges.refuse)) {
      throw new ProcessorError('mock', 'Charge has already been refunded.', {
        retryable: false,
        status: 400,
        code: 'charge_already_refunded',
      });
    }
    if (charge.startsWith(mockRefundCharges.unavailable)) {
      throw new ProcessorError('mock', 'The mock processor is unavailable (503).', {
        retryable: true,
        status: 503,
        retryAfterSeconds: 1,
      });
    }
    const known = this.made.get(idempotencyKey);
    if (known) return { refund: known.refund };
    const refund = `re_mock_${this.made.size + 1}`;
    this.made.set(idempotencyKey, { refund, request });
    if (charge.startsWith(mockRefundCharges.lostReply) && !this.#lost.has(idempotencyKey)) {
      this.#lost.add(idempotencyKey);
      throw new ProcessorError('mock', 'The connection to the mock processor was lost.', { retryable: true });
    }
    return { refund };
  }
}
