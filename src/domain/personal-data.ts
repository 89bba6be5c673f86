import type { CorrespondenceItem, FieldValue, PastPayment, Product } from './evidence.js';
import type { EvidenceDocumentInput, EvidenceTemplate } from './evidence-document.js';
import type { EvidenceFileEntry } from './evidence-files.js';
import { redactFilename } from './personal-data-files.js';
import {
  containsDeep,
  isRecord,
  redactAttributes,
  redactedText,
  replaceDeep,
  sameJson,
} from './redaction.js';

/**
 * Personal data requests (the original interface's `POST /v1/personal-data/retrieve` and `/remove`): who
 * the person is, which stored data concerns them, and what removing them does to it. Pure.
 */

/** Who a request is about, and where its answer goes: what the personal data use cases are asked. */
export interface RetrieveInput {
  email: string;
  name: string;
  notification_email: string;
}

export interface RemoveInput {
  email: string;
  name: string;
  notification_email?: string | undefined;
}

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
  /** Their descriptions are text like any other evidence (absent from rows read before evidence files). */
  evidenceFiles?: EvidenceFileEntry[];
}

/** Who a dispute's customer is, as its row (or a stored render input) holds it. */
export type Customer = Pick<PersonalColumns, 'customerName' | 'customerEmail'>;

/**
 * Whether the dispute's customer is the person: its customer_email is their email, or it has none and
 * its customer_name is their name. Only then are its customer attributes theirs: someone who shares the
 * name but has an email of their own is another customer, whose attributes a removal leaves alone.
 */
export function isPersonsCustomer(customer: Customer, person: Person): boolean {
  const email = customer.customerEmail?.trim();
  if (email) return normaliseEmail(email) === person.email;
  return customer.customerName !== null && normaliseName(customer.customerName) === person.name;
}

/** The customer of a dispute object (API names), as event payloads hold it. */
export function customerOfObject(object: unknown): Customer {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return isRecord(object)
    ? { customerName: text(object.customer_name), customerEmail: text(object.customer_email) }
    : { customerName: null, customerEmail: null };
}

const evidenceOf = (dispute: PersonalColumns) => [
  dispute.fields,
  dispute.products,
  dispute.correspondence,
  dispute.pastPayments,
  dispute.referenceUrl,
  dispute.evidenceFiles ?? [],
];

/**
 * A dispute concerns the person when its customer is them (`isPersonsCustomer`), or when their email or
 * name is mentioned in its evidence (fields, products, correspondence, past payments, the descriptions of
 * its evidence files) or its reference URL. Another customer's own attributes do not count, even where they mention the name.
 */
export function concernsPerson(dispute: PersonalColumns, person: Person): boolean {
  return isPersonsCustomer(dispute, person) || containsDeep(evidenceOf(dispute), person.mentions);
}

/**
 * Whether a dispute object (an event payload) is about the person: its customer is them, or they are
 * mentioned outside its customer attributes and its `evidence` (which copies its response document's).
 */
export function objectConcernsPerson(object: unknown, person: Person): boolean {
  if (isPersonsCustomer(customerOfObject(object), person)) return true;
  if (!isRecord(object)) return containsDeep(object, person.mentions);
  return containsDeep(omit(object, [...customerAttributes, 'evidence']), person.mentions);
}

/** Whether a response document's render input is about the person: its dispute, its template text or its files. */
export function documentConcernsPerson(input: EvidenceDocumentInput, person: Person): boolean {
  return (
    concernsPerson(input.dispute, person) ||
    containsDeep(input.files ?? [], person.mentions) ||
    (input.template !== null && !sameTemplate(redactTemplate(input.template, person), input.template))
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
const paymentAttributes = ['ip_address', 'shipping_address', 'email'];

/** Whether the record redacted is of the person's own dispute (`isPersonsCustomer`). */
export interface Whose {
  theirs: boolean;
}

/**
 * Evidence without the person: a letter's `to` or `from` that mentions them becomes `[redacted]` whole,
 * and on their own dispute (`theirs`) so do the past payments' `ip_address`, `shipping_address` and `email`;
 * every other mention in every string is replaced by `[redacted]`. Takes the stored shape
 * (`pastPayments`) and the API's (`past_payments`) alike, so it serves dispute rows, submission
 * snapshots and event payloads.
 */
export function redactEvidence<T>(evidence: T, person: Person, { theirs }: Whose): T {
  if (!isRecord(evidence)) return replaceDeep(evidence, person.mentions);
  const copy: Record<string, unknown> = { ...evidence };
  if (Array.isArray(copy.correspondence)) {
    copy.correspondence = copy.correspondence.map((letter: unknown) => {
      if (!isRecord(letter)) return letter;
      const addresses = ['to', 'from'].filter((key) => containsDeep(letter[key], person.mentions));
      return redactAttributes(letter, addresses);
    });
  }
  for (const key of theirs ? ['pastPayments', 'past_payments'] : []) {
    const payments = copy[key];
    if (Array.isArray(payments))
      copy[key] = payments.map((payment) => redactAttributes(payment, paymentAttributes));
  }
  return replaceDeep(copy, person.mentions) as T;
}

/**
 * A dispute object (as events keep it) without the person. On their own dispute its customer attributes
 * become null; on another's they stay as they are. Everything else is redacted as `redactEvidence` does,
 * but `evidence`: the dictionary of a `dispute.response.generated` event is a copy of its response
 * document's, which the document, rendered again from its redacted input, replaces (rerenderDocuments).
 */
export function redactDisputeObject<T>(object: T, person: Person, { theirs }: Whose): T {
  if (!isRecord(object)) return redactEvidence(object, person, { theirs });
  const kept = new Set<string>(['evidence', ...(theirs ? [] : customerAttributes)]);
  const nulled = new Set<string>(theirs ? customerAttributes : []);
  const redacted = redactEvidence(omit(object, [...kept, ...nulled]), person, { theirs });
  // In the object's own key order, so that an object redaction leaves unchanged compares equal.
  return Object.fromEntries(
    Object.keys(object).map((key) => [
      key,
      kept.has(key) ? object[key] : nulled.has(key) ? null : redacted[key],
    ]),
  ) as T;
}

/**
 * The new values of a dispute row about the person: on their own dispute (by default, when
 * `isPersonsCustomer`) the customer columns become null, on another's they stay; the evidence is
 * redacted either way. Amounts, ids, states and timestamps are kept.
 */
export function redactDispute(
  dispute: PersonalColumns,
  person: Person,
  whose: Whose = { theirs: isPersonsCustomer(dispute, person) },
): PersonalColumns {
  const { customerName, customerEmail, customerPurchaseIp, addressZip } = dispute;
  const { fields, products, correspondence, pastPayments, referenceUrl, evidenceFiles } = dispute;
  const customer = whose.theirs
    ? { customerName: null, customerEmail: null, customerPurchaseIp: null, addressZip: null }
    : { customerName, customerEmail, customerPurchaseIp, addressZip };
  const evidence = { fields, products, correspondence, pastPayments, referenceUrl };
  return {
    ...customer,
    ...redactEvidence(evidenceFiles ? { ...evidence, evidenceFiles } : evidence, person, whose),
  };
}

/**
 * A response document's render input without the person, for rendering it again: its dispute as
 * `redactDispute` leaves a row (their own dispute by default when its customer, as submitted, is them),
 * every mention in the template's name, body and field descriptions and in its files' descriptions
 * replaced, and a file's name that mentions them replaced whole (`redactFilename`). The template is the
 * merchant's text, but a merchant may have written the customer's name into it; its `{{…}}` placeholders
 * are kept as they are, so the body still fills from the redacted dispute. The date and every other
 * attribute stay, so the document stays the record of what was sent, less the person.
 */
export function redactDocumentInput(
  input: EvidenceDocumentInput,
  person: Person,
  whose: Whose = { theirs: isPersonsCustomer(input.dispute, person) },
): EvidenceDocumentInput {
  return {
    ...input,
    dispute: { ...input.dispute, ...redactDispute(input.dispute, person, whose) },
    template: input.template && redactTemplate(input.template, person),
    files: input.files?.map((file) => ({
      ...file,
      filename: redactFilename(file.filename, person.mentions),
      description: file.description?.replace(person.mentions, redactedText) ?? null,
    })),
  };
}

/** A `{{key}}` placeholder of a template body (domain/template-body.ts, renderTemplateBody). */
const placeholders = /(\{\{[^{}]*\}\})/;

function redactTemplate(template: EvidenceTemplate, person: Person): EvidenceTemplate {
  const replace = (text: string) => text.replace(person.mentions, redactedText);
  return {
    ...template,
    name: template.name === null ? null : replace(template.name),
    // split with a capturing group: the placeholders are the odd parts.
    body:
      template.body === null
        ? null
        : template.body
            .split(placeholders)
            .map((part, index) => (index % 2 === 1 ? part : replace(part)))
            .join(''),
    fields: template.fields.map((field) =>
      typeof field.description === 'string' ? { ...field, description: replace(field.description) } : field,
    ),
  };
}

const sameTemplate = (a: EvidenceTemplate, b: EvidenceTemplate) =>
  a.name === b.name && a.body === b.body && sameJson(a.fields, b.fields);

/** `record` without `keys`, in its own key order (and keeping a stored `__proto__` key a key). */
function omit(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const dropped = new Set(keys);
  return Object.fromEntries(Object.entries(record).filter(([key]) => !dropped.has(key)));
}
