import { z } from 'zod';
import type { CorrespondenceItem, FieldValue, PastPayment, Product } from './evidence.js';
import { text } from './params.js';
import { containsDeep, isRecord, redactAttributes, replaceDeep } from './redaction.js';

/**
 * Personal data requests (the original interface's `POST /v1/personal-data/retrieve` and `/remove`): who
 * the person is, which stored data concerns them, and what removing them does to it. Pure.
 */

const emailAddress = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be a valid email address'));

const personName = text(1000)
  .trim()
  .min(1, 'must not be empty')
  .refine((name) => /[\p{L}\p{N}]/u.test(name), 'must contain a letter or digit');

export const retrieveInput = z.object({
  email: emailAddress,
  name: personName,
  notification_email: emailAddress,
});
export type RetrieveInput = z.infer<typeof retrieveInput>;

export const removeInput = z.object({
  email: emailAddress,
  name: personName,
  notification_email: emailAddress.optional(),
});
export type RemoveInput = z.infer<typeof removeInput>;

export const requestKinds = ['retrieve', 'remove'] as const;
export type RequestKind = (typeof requestKinds)[number];

const successMessages: Record<RequestKind, string> = {
  retrieve: 'Data retrieval request submitted.',
  remove: 'Data removal request submitted.',
};

/** The answer to either request: the original interface's body, with this API's `object`, `id` and `livemode`. */
export function personalDataRequestObject(
  request: { id: string; kind: RequestKind; livemode: boolean },
  url: string,
) {
  return {
    object: 'personal_data_request' as const,
    id: request.id,
    success: { message: successMessages[request.kind] },
    livemode: request.livemode,
    url,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Who the person is

export interface Person {
  /** Trimmed, lower case. */
  email: string;
  /** Trimmed, runs of whitespace as one space, lower case. */
  name: string;
  /**
   * Every mention of the email or the name in a text, case-insensitive, as whole words: the name with any
   * whitespace between its words, the email not as part of a longer address. Global (for replace).
   */
  mentions: RegExp;
  /**
   * Postgres regular expressions (for case-sensitive `~`) that match every text `mentions` matches in, and
   * some more: the email, and the name's longest run of letters and digits (JSON text may escape other
   * characters), each letter spelled in both cases. Postgres folds case by the database's locale, which
   * under C folds ASCII only; spelled out, the search finds the person whatever the locale.
   */
  searchPatterns: string[];
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function normaliseName(name: string): string {
  return name.trim().replace(/\s+/gu, ' ').toLowerCase();
}

const word = '\\p{L}\\p{M}\\p{N}';
/** Characters that may extend an address on the left (local part) or the right (domain). */
const addressBefore = `[${word}._%+'-]`;
const addressAfter = `[${word}_-]|\\.[${word}]`;

export function personOf(input: { email: string; name: string }): Person {
  const email = input.email.trim();
  const words = input.name.trim().split(/\s+/u);
  const emailPattern = `(?<!${addressBefore})${escapeRegExp(email)}(?!${addressAfter})`;
  const namePattern = `(?<![${word}])${words.map(escapeRegExp).join('\\s+')}(?![${word}])`;
  const runs = input.name.match(/[\p{L}\p{N}]+/gu) ?? [];
  const longest = runs.reduce((best, run) => (run.length > best.length ? run : best), '');
  return {
    email: normaliseEmail(input.email),
    name: normaliseName(input.name),
    mentions: new RegExp(`${emailPattern}|${namePattern}`, 'giu'),
    searchPatterns: [email, longest].filter((token) => token !== '').map(eitherCase),
  };
}

const regExpSyntax = /[\\^$.*+?()[\]{}|/]/g;
const escapeRegExp = (value: string) => value.replace(regExpSyntax, '\\$&');

/** A Postgres (ARE) pattern matching `token` literally, its letters in either case. */
function eitherCase(token: string): string {
  let pattern = '';
  for (const char of token) {
    const cases = new Set(
      [char, char.toLowerCase(), char.toUpperCase()].filter((variant) => [...variant].length === 1),
    );
    if (cases.size > 1) pattern += `[${[...cases].join('')}]`;
    // In an ARE a backslash before anything but a letter or digit stands for that character itself.
    else pattern += /[\p{L}\p{N}]/u.test(char) ? char : `\\${char}`;
  }
  return pattern;
}

// ---------------------------------------------------------------------------------------------------------
// What concerns them

/** The columns of a stored dispute that can identify its customer. */
export interface PersonalColumns {
  customerName: string | null;
  customerEmail: string | null;
  customerPurchaseIp: string | null;
  addressZip: string | null;
  fields: Record<string, FieldValue>;
  products: Product[];
  correspondence: CorrespondenceItem[];
  pastPayments: PastPayment[];
  referenceUrl: string | null;
}

/**
 * A dispute concerns the person when its customer's email or name is theirs, or when the email or the
 * name is mentioned anywhere in its evidence (fields, products, correspondence, past payments), its
 * customer attributes or its reference URL.
 */
export function concernsPerson(dispute: PersonalColumns, person: Person): boolean {
  if (dispute.customerEmail !== null && normaliseEmail(dispute.customerEmail) === person.email) return true;
  if (dispute.customerName !== null && normaliseName(dispute.customerName) === person.name) return true;
  return containsDeep(
    [
      dispute.customerName,
      dispute.customerEmail,
      dispute.referenceUrl,
      dispute.fields,
      dispute.products,
      dispute.correspondence,
      dispute.pastPayments,
    ],
    person.mentions,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Removing them

/** Attributes of the dispute object that identify the customer: null once the person is removed. */
export const customerAttributes = [
  'customer_name',
  'customer_email',
  'customer_purchase_ip',
  'address_zip',
] as const;

/** Past payment attributes that are the customer's personal data whole. */
const paymentAttributes = ['ip_address', 'shipping_address'];

/**
 * Evidence of the person's dispute without them: a letter's `to` or `from` that mentions them becomes
 * `[redacted]` whole, as do the past payments' `ip_address` and `shipping_address` (theirs, on their
 * dispute); every other mention in every string is replaced by `[redacted]`. Takes the stored shape
 * (`pastPayments`) and the API's (`past_payments`) alike, so it serves dispute rows, submission
 * snapshots and event payloads.
 */
export function redactEvidence<T>(evidence: T, person: Person): T {
  if (!isRecord(evidence)) return replaceDeep(evidence, person.mentions);
  const copy: Record<string, unknown> = { ...evidence };
  if (Array.isArray(copy.correspondence)) {
    copy.correspondence = copy.correspondence.map((letter: unknown) => {
      if (!isRecord(letter)) return letter;
      const addresses = ['to', 'from'].filter((key) => containsDeep(letter[key], person.mentions));
      return redactAttributes(letter, addresses);
    });
  }
  for (const key of ['pastPayments', 'past_payments']) {
    const payments = copy[key];
    if (Array.isArray(payments))
      copy[key] = payments.map((payment) => redactAttributes(payment, paymentAttributes));
  }
  return replaceDeep(copy, person.mentions) as T;
}

/**
 * A dispute object (as events keep it) without the person: its customer attributes null, its evidence
 * as `redactEvidence` leaves it, and every other mention replaced.
 */
export function redactDisputeObject<T>(object: T, person: Person): T {
  const redacted = redactEvidence(object, person);
  if (!isRecord(redacted)) return redacted;
  const copy: Record<string, unknown> = { ...redacted };
  for (const key of customerAttributes) {
    if (key in copy) copy[key] = null;
  }
  return copy as T;
}

/** The new values of a dispute row about the person: amounts, ids, states and timestamps are kept. */
export function redactDispute(dispute: PersonalColumns, person: Person): PersonalColumns {
  const { fields, products, correspondence, pastPayments, referenceUrl } = dispute;
  return {
    customerName: null,
    customerEmail: null,
    customerPurchaseIp: null,
    addressZip: null,
    ...redactEvidence({ fields, products, correspondence, pastPayments, referenceUrl }, person),
  };
}
