import { type FieldValue, own, type PastPayment, type Product } from './evidence.js';
import { codeKey } from './networks.js';

/**
 * Visa Compelling Evidence 3.0 (docs/api.md, "Compelling evidence"): whether a card-absent fraud dispute
 * on Visa can be answered with the cardholder's own undisputed history, decided here from the dispute's
 * evidence as a pure function of it.
 *
 * Visa's rule, as Stripe and Adyen publish it: at least two earlier payments with the same card, paid and
 * neither disputed nor reported as fraud, made 120 to 365 days before the disputed one (Stripe: "more
 * than 119 and fewer than 366 calendar days"); at least two of four elements match across the disputed
 * payment and both earlier ones, one of them the IP address or the device. The elements: IP address,
 * device id or fingerprint, shipping address, and customer account id or login (an email used as the
 * login counts). Visa also asks for a description of what was bought, on the disputed payment and on
 * the earlier ones, and Stripe whether it was merchandise or services: missing, they are actions to take.
 *
 * Past payments are the client's word (or the processor's, fetched) that they were paid and undisputed:
 * the rule checks their dates and elements, not their history.
 */

export const compellingEvidenceStatuses = ['qualified', 'requires_action', 'not_qualified'] as const;
export type CompellingEvidenceStatus = (typeof compellingEvidenceStatuses)[number];

/** The elements compared, by the names `matched` lists. */
export const compellingEvidenceElements = [
  'ip_address',
  'device_id',
  'shipping_address',
  'customer_account_id',
] as const;
export type CompellingEvidenceElement = (typeof compellingEvidenceElements)[number];

/** Stripe's names for what is missing, with one of this service's own for a disputed payment without a date. */
export const compellingEvidenceActions = [
  'missing_prior_undisputed_transactions',
  'missing_customer_identifiers',
  'missing_disputed_transaction_description',
  'missing_merchandise_or_services',
  'missing_prior_undisputed_transaction_description',
  'missing_disputed_transaction_date',
] as const;
export type CompellingEvidenceAction = (typeof compellingEvidenceActions)[number];

export interface CompellingEvidence {
  program: 'visa_ce3';
  status: CompellingEvidenceStatus;
  required_actions: CompellingEvidenceAction[];
  /** The elements that match across the disputed payment and both `prior_payments`. */
  matched: CompellingEvidenceElement[];
  /** The ids of the two past payments compared (the best pair found), or none when fewer than two fit. */
  prior_payments: string[];
}

/** What the rule reads of a dispute: a stored dispute, or one with the evidence of a submission, satisfies it. */
export interface CompellingEvidenceInput {
  network: string | null;
  reason: string;
  networkReasonCode: string | null;
  charge: string | null;
  chargedAt: Date | null;
  customerPurchaseIp: string | null;
  customerEmail: string | null;
  fields: Readonly<Record<string, FieldValue>>;
  products: readonly Product[];
  pastPayments: readonly PastPayment[];
}

/** The evidence fields that carry the disputed payment's elements (docs/api.md, "Compelling evidence"). */
export const compellingEvidenceFields = {
  device: 'customer_device_id',
  account: 'customer_account_id',
  email: 'customer_email',
  shippingAddress: 'shipping_address',
  description: 'product_description',
  merchandiseOrServices: 'merchandise_or_services',
} as const;

/** Visa's window, in whole calendar days (UTC) between the earlier payment and the disputed one. */
export const priorPaymentWindowDays = { min: 120, max: 365 } as const;

/**
 * Where the program applies: a card-absent fraud dispute on Visa. The outcome statistics select the same
 * disputes in SQL from these values (features/stats/disputes.ts, `visaFraud`).
 */
export const compellingEvidenceScope = {
  network: 'visa',
  reason: 'fraudulent',
  networkReasonCode: '10.4',
} as const;

/** A card-absent fraud dispute on Visa: reason `fraudulent`, and code 10.4 where the processor gives one. */
export function compellingEvidenceApplies(
  dispute: Pick<CompellingEvidenceInput, 'network' | 'reason' | 'networkReasonCode'>,
): boolean {
  const scope = compellingEvidenceScope;
  if (dispute.network !== scope.network || dispute.reason !== scope.reason) return false;
  return (
    dispute.networkReasonCode === null ||
    codeKey(dispute.networkReasonCode) === codeKey(scope.networkReasonCode)
  );
}

/** The verdict, or null where the program does not apply. */
export function compellingEvidenceOf(dispute: CompellingEvidenceInput): CompellingEvidence | null {
  if (!compellingEvidenceApplies(dispute)) return null;
  const disputed = disputedElements(dispute);
  const actions = new Set<CompellingEvidenceAction>();
  if (!dispute.chargedAt) actions.add('missing_disputed_transaction_date');
  const candidates = dispute.chargedAt ? inWindow(dispute, dispute.chargedAt) : [];
  if (candidates.length < 2) actions.add('missing_prior_undisputed_transactions');
  if (!keyElementIn(disputed) || disputed.size < 2) actions.add('missing_customer_identifiers');

  const pair = bestPair(candidates, disputed);
  const qualifying = pair !== null && qualifies(pair.matched);
  if (qualifying) {
    if (!describesDisputed(dispute)) actions.add('missing_disputed_transaction_description');
    if (!merchandiseOrServices(dispute)) actions.add('missing_merchandise_or_services');
    if (pair.payments.some((payment) => !present(payment.item_description)))
      actions.add('missing_prior_undisputed_transaction_description');
  } else if (actions.size === 0) {
    // Two earlier payments in the window, and the disputed payment's elements: they differ (no pair can
    // qualify), or some are only missing on the earlier ones, and adding them may qualify.
    if (!couldQualify(candidates, disputed)) return verdict('not_qualified', [], pair);
    actions.add('missing_customer_identifiers');
  }
  return verdict(actions.size === 0 ? 'qualified' : 'requires_action', [...actions], pair);
}

interface Pair {
  payments: [PastPayment, PastPayment];
  matched: CompellingEvidenceElement[];
}

function verdict(
  status: CompellingEvidenceStatus,
  actions: CompellingEvidenceAction[],
  pair: Pair | null,
): CompellingEvidence {
  return {
    program: 'visa_ce3',
    status,
    required_actions: compellingEvidenceActions.filter((action) => actions.includes(action)),
    matched: pair?.matched ?? [],
    prior_payments: pair ? pair.payments.map((payment) => payment.id) : [],
  };
}

/** Compared without case and with runs of spaces as one: the same address typed twice is the same. */
const normal = (value: unknown): string | null => {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const text = String(value).trim().replace(/\s+/g, ' ').toLowerCase();
  return text === '' ? null : text;
};
const present = (value: unknown) => normal(value) !== null;

type Elements = Map<CompellingEvidenceElement, string[]>;

/**
 * Each element's values on one payment: several where one element has two spellings (an account id and
 * the email used as the login); a match on either counts.
 */
function elements(values: Record<CompellingEvidenceElement, unknown[]>): Elements {
  const found: Elements = new Map();
  for (const element of compellingEvidenceElements) {
    const given = values[element].map(normal).filter((value): value is string => value !== null);
    if (given.length > 0) found.set(element, given);
  }
  return found;
}

/** The disputed payment's elements as given, before they are compared. */
function disputedValues(dispute: CompellingEvidenceInput): Record<CompellingEvidenceElement, unknown[]> {
  const field = (name: string) => own(dispute.fields, name) ?? null;
  const { device, account, email, shippingAddress } = compellingEvidenceFields;
  return {
    ip_address: [dispute.customerPurchaseIp],
    device_id: [field(device)],
    shipping_address: [field(shippingAddress)],
    customer_account_id: [field(account), field(email) ?? dispute.customerEmail],
  };
}

const priorValues = (payment: PastPayment): Record<CompellingEvidenceElement, unknown[]> => ({
  ip_address: [payment.ip_address],
  device_id: [payment.device_id],
  shipping_address: [payment.shipping_address],
  customer_account_id: [payment.user_id, payment.email],
});

const disputedElements = (dispute: CompellingEvidenceInput): Elements => elements(disputedValues(dispute));
const priorElements = (payment: PastPayment): Elements => elements(priorValues(payment));

const keyElementIn = (found: ReadonlyMap<CompellingEvidenceElement, unknown>) =>
  found.has('ip_address') || found.has('device_id');

const qualifies = (matched: readonly CompellingEvidenceElement[]) =>
  matched.length >= 2 && (matched.includes('ip_address') || matched.includes('device_id'));

const day = 86_400_000;
const calendarDay = (date: Date) =>
  Math.floor(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) / day);

/** Whole calendar days (UTC) from an earlier payment to the disputed one, as Visa's window counts them. */
export const daysBefore = (disputed: Date, earlier: Date): number =>
  calendarDay(disputed) - calendarDay(earlier);

/** A past payment's `charged_at`: Unix seconds (a number, or digits), or a date-time as text. */
export function pastPaymentDate(payment: Pick<PastPayment, 'charged_at'>): Date | null {
  const value = payment.charged_at;
  const seconds = typeof value === 'number' ? value : /^\s*\d{1,12}\s*$/.test(value) ? Number(value) : null;
  const date = seconds === null ? new Date(Date.parse(String(value))) : new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The past payments in Visa's window before the disputed payment, newest first; never the disputed one. */
function inWindow(dispute: CompellingEvidenceInput, chargedAt: Date): PastPayment[] {
  const dated = dispute.pastPayments.flatMap((payment) => {
    const date = pastPaymentDate(payment);
    if (!date || payment.id === dispute.charge) return [];
    const days = daysBefore(chargedAt, date);
    const fits = days >= priorPaymentWindowDays.min && days <= priorPaymentWindowDays.max;
    return fits ? [{ payment, at: date.getTime() }] : [];
  });
  return dated.sort((a, b) => b.at - a.at).map(({ payment }) => payment);
}

/** The elements the disputed payment shares with both earlier ones. */
function matchedElements(disputed: Elements, first: Elements, second: Elements): CompellingEvidenceElement[] {
  return compellingEvidenceElements.filter((element) => {
    const values = disputed.get(element) ?? [];
    return values.some(
      (value) => first.get(element)?.includes(value) && second.get(element)?.includes(value),
    );
  });
}

/** The pair with the most elements matched, a qualifying one first, the newer pair on a tie; null under two. */
function bestPair(candidates: readonly PastPayment[], disputed: Elements): Pair | null {
  const prior = candidates.map(priorElements);
  let best: Pair | null = null;
  for (let i = 0; i < candidates.length; i++) {
    for (let j = i + 1; j < candidates.length; j++) {
      const matched = matchedElements(disputed, prior[i] as Elements, prior[j] as Elements);
      const better =
        best === null ||
        Number(qualifies(matched)) - Number(qualifies(best.matched)) > 0 ||
        (qualifies(matched) === qualifies(best.matched) && matched.length > best.matched.length);
      if (better) best = { payments: [candidates[i] as PastPayment, candidates[j] as PastPayment], matched };
    }
  }
  return best;
}

/**
 * Whether some pair could still qualify once missing elements are added: at least two elements, one of
 * them the IP or the device, that no payment of the three contradicts (each value given equal).
 */
function couldQualify(candidates: readonly PastPayment[], disputed: Elements): boolean {
  const prior = candidates.map(priorElements);
  const open = (element: CompellingEvidenceElement, ...payments: Elements[]) => {
    const given = payments.map((found) => found.get(element)).filter((values) => values !== undefined);
    return given.every((values) => values.some((value) => given.every((other) => other.includes(value))));
  };
  for (let i = 0; i < prior.length; i++) {
    for (let j = i + 1; j < prior.length; j++) {
      const possible = compellingEvidenceElements.filter((element) =>
        open(element, disputed, prior[i] as Elements, prior[j] as Elements),
      );
      if (qualifies(possible)) return true;
    }
  }
  return false;
}

function describesDisputed(dispute: CompellingEvidenceInput): boolean {
  const description = own(dispute.fields, compellingEvidenceFields.description);
  return present(description) || dispute.products.length > 0;
}

function merchandiseOrServices(dispute: CompellingEvidenceInput): boolean {
  const value = normal(own(dispute.fields, compellingEvidenceFields.merchandiseOrServices));
  return value === 'merchandise' || value === 'services';
}

/** A matched element as each of the three payments writes it. */
export interface MatchedElementValues {
  element: CompellingEvidenceElement;
  disputed: string;
  prior: [string, string];
}

/**
 * The verdict's matched elements with the value each payment gives, in its own spelling (the response
 * document's table, docs/api.md "Compelling evidence"): for an element with two spellings (an account id
 * and the email used as the login), the one that matched. Empty when the verdict compared no pair.
 */
export function matchedElementValues(
  dispute: CompellingEvidenceInput,
  verdict: Pick<CompellingEvidence, 'matched' | 'prior_payments'>,
): MatchedElementValues[] {
  const [first, second] = verdict.prior_payments;
  const earlier = (id: string | undefined) => dispute.pastPayments.filter((payment) => payment.id === id);
  const disputed = disputedValues(dispute);
  const texts = (values: unknown[]) => values.filter((value) => normal(value) !== null).map(String);
  return verdict.matched.flatMap((element) => {
    const spelled = (payments: PastPayment[], key: string) =>
      payments
        .flatMap((payment) => texts(priorValues(payment)[element]))
        .find((text) => normal(text) === key);
    for (const value of texts(disputed[element])) {
      const key = normal(value);
      const one = key === null ? undefined : spelled(earlier(first), key);
      const other = key === null ? undefined : spelled(earlier(second), key);
      if (one !== undefined && other !== undefined)
        return [{ element, disputed: value, prior: [one, other] }];
    }
    return [];
  });
}
