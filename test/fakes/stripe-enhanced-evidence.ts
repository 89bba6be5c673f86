import { type FakeReply, jsonReply } from './harness.js';

/**
 * The fake Stripe's enhanced evidence (docs.stripe.com/disputes/api/visa-ce3, the dispute update's
 * `evidence[enhanced_evidence]`, API 2024-10-28.acacia and 2025-06-30.basil on), kept apart from
 * stripe.ts, which calls it at three points: a dispute's creation, its update, and the lookup of charges.
 * - A Visa dispute of reason `fraudulent` and code 10.4 lists `visa_compelling_evidence_3` in
 *   `enhanced_eligibility_types`, with Stripe's verdict `requires_action` until enhanced evidence
 *   qualifies it; a dispute made with `visaCompliance` lists `visa_compliance`, whose fee must be
 *   acknowledged (`fee_acknowledged=true`) before evidence is submitted.
 * - The update is refused as Stripe documents it: unknown fields, CE 3.0 on a dispute not eligible for
 *   it, other than exactly two prior transactions, a prior `charge` missing, unknown, disputed or the
 *   disputed charge itself, a device id under 15 characters or fingerprint under 20, a
 *   `merchandise_or_services` other than merchandise or services.
 * - Stripe's verdict after CE 3.0 evidence: `qualified` when two elements match across the three
 *   transactions, one of them main (IP, device), and a description is given; else `requires_action`.
 * - What each dispute received is kept, nested, for tests (`received`).
 */

type Json = Record<string, unknown>;
interface Charge {
  id: string;
  disputed?: unknown;
}

const prefix = 'evidence[enhanced_evidence]';
const transactionFields = new Set([
  'customer_account_id',
  'customer_device_fingerprint',
  'customer_device_id',
  'customer_email_address',
  'customer_purchase_ip',
  'product_description',
]);
const addressFields = new Set(['city', 'country', 'line1', 'line2', 'postal_code', 'state']);

const refuse = (message: string, param?: string): FakeReply =>
  jsonReply(400, {
    error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) },
  });

export class StripeEnhancedEvidenceFake {
  /** Per dispute, the enhanced evidence of its latest update that carried any, as Stripe's nested object. */
  readonly received = new Map<string, Json>();

  /** Sets a new dispute's eligibility, as Stripe serves it. */
  opened(dispute: Json, options: { visaCompliance?: boolean }): void {
    const card = (dispute.payment_method_details as { card: { brand: string; network_reason_code: string } })
      .card;
    const types: string[] = [];
    const eligibility: Json = {};
    if (card.brand === 'visa' && dispute.reason === 'fraudulent' && card.network_reason_code === '10.4') {
      types.push('visa_compelling_evidence_3');
      eligibility.visa_compelling_evidence_3 = {
        status: 'requires_action',
        required_actions: ['missing_prior_undisputed_transactions'],
      };
    }
    if (options.visaCompliance) {
      types.push('visa_compliance');
      eligibility.visa_compliance = { status: 'requires_fee_acknowledgement' };
    }
    dispute.enhanced_eligibility_types = types;
    (dispute.evidence_details as Json).enhanced_eligibility = eligibility;
  }

  /**
   * Checks an update's enhanced evidence; a refusal, or what applies it once the rest of the update is
   * taken too. `submitting`: the update sends the evidence on.
   */
  update(
    dispute: Json & { id: string },
    params: URLSearchParams,
    charges: { get(id: string): Charge | undefined },
    disputedCharge: string,
    submitting: boolean,
  ): FakeReply | (() => void) {
    const sent: Json = {};
    for (const [name, value] of params) {
      if (!name.startsWith(prefix)) continue;
      const path =
        name
          .slice(prefix.length)
          .match(/\[([^\]]*)\]/g)
          ?.map((part) => part.slice(1, -1)) ?? [];
      if (!known(path)) return refuse(`Received unknown parameter: ${name}`, name);
      place(sent, path, value);
    }
    const types = (dispute.enhanced_eligibility_types as string[] | undefined) ?? [];
    const compliance = (sent.visa_compliance as Json | undefined)?.fee_acknowledged;
    if (compliance !== undefined && compliance !== 'true' && compliance !== 'false') {
      return refuse('fee_acknowledged must be a boolean.', `${prefix}[visa_compliance][fee_acknowledged]`);
    }
    if (compliance !== undefined && !types.includes('visa_compliance')) {
      return refuse(`Dispute ${dispute.id} is not a Visa compliance dispute.`);
    }
    const acknowledged = compliance === 'true' || this.#acknowledged(dispute);
    if (submitting && types.includes('visa_compliance') && !acknowledged) {
      return refuse(
        `Dispute ${dispute.id} is a Visa compliance dispute: acknowledge the fee with ${prefix}[visa_compliance][fee_acknowledged]=true to submit evidence.`,
      );
    }
    const ce3 = sent.visa_compelling_evidence_3 as Json | undefined;
    let verdict: Json | null = null;
    if (ce3) {
      if (!types.includes('visa_compelling_evidence_3')) {
        return refuse(`Dispute ${dispute.id} is not eligible for Visa Compelling Evidence 3.0.`);
      }
      const checked = checkCe3(ce3, charges, disputedCharge);
      if ('reply' in checked) return checked.reply;
      verdict = checked.verdict;
    }
    return () => {
      if (Object.keys(sent).length > 0) this.received.set(dispute.id, sent);
      const eligibility = (dispute.evidence_details as Json).enhanced_eligibility as Json;
      if (compliance === 'true') eligibility.visa_compliance = { status: 'fee_acknowledged' };
      if (verdict) eligibility.visa_compelling_evidence_3 = verdict;
    };
  }

  #acknowledged(dispute: Json): boolean {
    const eligibility = (dispute.evidence_details as Json).enhanced_eligibility as Json;
    return (eligibility.visa_compliance as Json | undefined)?.status === 'fee_acknowledged';
  }
}

/** Whether a parameter's path below `enhanced_evidence` is one Stripe documents. */
function known(path: string[]): boolean {
  const [program, part, ...rest] = path;
  if (program === 'visa_compliance') return part === 'fee_acknowledged' && rest.length === 0;
  if (program !== 'visa_compelling_evidence_3') return false;
  const fieldOk = (fields: string[], withKind: boolean) => {
    const [field, sub, ...more] = fields;
    if (field === 'shipping_address') return sub !== undefined && addressFields.has(sub) && more.length === 0;
    if (sub !== undefined || field === undefined) return false;
    return transactionFields.has(field) || (withKind && field === 'merchandise_or_services');
  };
  if (part === 'disputed_transaction') return fieldOk(rest, true);
  if (part === 'prior_undisputed_transactions') {
    const [index, field, ...more] = rest;
    if (!/^\d+$/.test(index ?? '')) return false;
    return field === 'charge' ? more.length === 0 : fieldOk([field ?? '', ...more], false);
  }
  return false;
}

function place(into: Json, path: string[], value: string): void {
  let at = into;
  for (const key of path.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as Json;
  }
  at[path.at(-1) as string] = value;
}

/** A refusal, or Stripe's verdict on valid CE 3.0 evidence. */
function checkCe3(
  ce3: Json,
  charges: { get(id: string): Charge | undefined },
  disputedCharge: string,
): { reply: FakeReply } | { verdict: Json } {
  const at = `${prefix}[visa_compelling_evidence_3]`;
  const disputed = (ce3.disputed_transaction as Json | undefined) ?? {};
  const priors = Object.entries((ce3.prior_undisputed_transactions as Json | undefined) ?? {});
  if (priors.length !== 2 || !priors.every(([index]) => index === '0' || index === '1')) {
    return {
      reply: refuse(
        'prior_undisputed_transactions must list exactly two transactions.',
        `${at}[prior_undisputed_transactions]`,
      ),
    };
  }
  const all: [string, Json][] = [
    ['disputed_transaction', disputed],
    ...priors.map(
      ([index, prior]) => [`prior_undisputed_transactions][${index}`, prior as Json] as [string, Json],
    ),
  ];
  for (const [where, transaction] of all) {
    const device = transaction.customer_device_id;
    if (typeof device === 'string' && device.length < 15) {
      return {
        reply: refuse(
          'customer_device_id must be at least 15 characters.',
          `${at}[${where}][customer_device_id]`,
        ),
      };
    }
    const fingerprint = transaction.customer_device_fingerprint;
    if (typeof fingerprint === 'string' && fingerprint.length < 20) {
      return {
        reply: refuse(
          'customer_device_fingerprint must be at least 20 characters.',
          `${at}[${where}][customer_device_fingerprint]`,
        ),
      };
    }
  }
  const kind = disputed.merchandise_or_services;
  if (kind !== undefined && kind !== 'merchandise' && kind !== 'services') {
    return {
      reply: refuse(
        'merchandise_or_services must be merchandise or services.',
        `${at}[disputed_transaction][merchandise_or_services]`,
      ),
    };
  }
  for (const [index, prior] of priors) {
    const param = `${at}[prior_undisputed_transactions][${index}][charge]`;
    const id = (prior as Json).charge;
    if (typeof id !== 'string' || id === '')
      return { reply: refuse('Missing required param: charge.', param) };
    const charge = charges.get(id);
    if (!charge)
      return {
        reply: jsonReply(400, {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            message: `No such charge: '${id}'`,
            param,
          },
        }),
      };
    if (id === disputedCharge || charge.disputed === true) {
      return { reply: refuse(`Charge ${id} is disputed: prior transactions must be undisputed.`, param) };
    }
  }
  return {
    verdict: verdictOf(
      disputed,
      priors.map(([, prior]) => prior as Json),
    ),
  };
}

/** Stripe's variant: two main elements, or one main and one secondary, matching across all three. */
function verdictOf(disputed: Json, priors: Json[]): Json {
  const same = (...keys: string[]) =>
    keys.some((key) => {
      const value = disputed[key];
      return typeof value === 'string' && priors.every((prior) => prior[key] === value);
    });
  const main = [
    same('customer_purchase_ip'),
    same('customer_device_id', 'customer_device_fingerprint'),
  ].filter(Boolean).length;
  const secondary = [same('customer_email_address'), same('customer_account_id')].filter(Boolean).length;
  const actions: string[] = [];
  if (!(main >= 2 || (main >= 1 && secondary >= 1))) actions.push('missing_customer_identifiers');
  if (typeof disputed.product_description !== 'string')
    actions.push('missing_disputed_transaction_description');
  if (typeof disputed.merchandise_or_services !== 'string') actions.push('missing_merchandise_or_services');
  if (priors.some((prior) => typeof prior.product_description !== 'string')) {
    actions.push('missing_prior_undisputed_transaction_description');
  }
  return { status: actions.length === 0 ? 'qualified' : 'requires_action', required_actions: actions };
}
