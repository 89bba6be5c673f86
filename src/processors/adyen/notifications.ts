import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { NormalizedAlert } from '../alert-types.js';
import { type DisputeAttribute, PushRejectedError } from '../types.js';
import { type DisputeEvent, eventRules, fraudNotificationCode } from './mapping.js';

/**
 * Adyen's Standard webhooks in JSON (docs.adyen.com/development-resources/webhooks): a batch of
 * notification items, each signed on its own with the merchant's HMAC key
 * (docs.adyen.com/development-resources/webhooks/secure-webhooks/verify-hmac-signatures).
 */

/** additionalData values are strings on the wire; booleans and numbers are read as their text. */
const additionalValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

const notificationItemSchema = z.object({
  pspReference: z.string().min(1),
  originalReference: z.string().optional(),
  merchantAccountCode: z.string(),
  merchantReference: z.string().optional(),
  eventCode: z.string().min(1),
  eventDate: z.string().optional(),
  success: z.union([z.string(), z.boolean()]).transform(String),
  amount: z.object({ value: z.number().int(), currency: z.string().length(3) }).optional(),
  paymentMethod: z.string().optional(),
  reason: z.string().optional(),
  additionalData: z.record(z.string(), additionalValue.nullable()).optional(),
});
export type NotificationItem = z.infer<typeof notificationItemSchema>;

export const notificationSchema = z.object({
  live: z.union([z.string(), z.boolean()]).transform(String),
  notificationItems: z.array(z.object({ NotificationRequestItem: notificationItemSchema })),
});

/** The signed fields, in Adyen's order, joined by colons; a missing field is an empty string. */
function signedData(item: NotificationItem): string {
  return [
    item.pspReference,
    item.originalReference ?? '',
    item.merchantAccountCode,
    item.merchantReference ?? '',
    item.amount?.value ?? '',
    item.amount?.currency ?? '',
    item.eventCode,
    item.success,
  ].join(':');
}

/** Whether the item carries Adyen's signature of it under the merchant's key (hex, as Adyen shows it). */
export function verifies(item: NotificationItem, hexKey: string): boolean {
  const given = item.additionalData?.hmacSignature;
  if (!given) return false;
  const expected = createHmac('sha256', Buffer.from(hexKey, 'hex')).update(signedData(item), 'utf8').digest();
  const received = Buffer.from(given, 'base64');
  return received.length === expected.length && timingSafeEqual(received, expected);
}

export const isDisputeEvent = (item: NotificationItem) => Object.hasOwn(eventRules, item.eventCode);

export const isFraudNotification = (item: NotificationItem) => item.eventCode === fraudNotificationCode;

/**
 * A NOTIFICATION_OF_FRAUD item as an alert (docs/api.md, "Alerts"): the issuer's fraud report (Visa
 * TC40, Mastercard SAFE) on the payment `originalReference`, named by its own `pspReference`. Its amount
 * and currency are signed; its date and `reason` (the fraud type, Adyen's words) are not, and say only
 * when and why. Never actionable: the account's Disputes API credential cannot refund (docs/operations.md,
 * "Adyen").
 */
export function alertOf(item: NotificationItem): NormalizedAlert {
  const at = item.eventDate ? new Date(item.eventDate) : null;
  return {
    id: item.pspReference,
    charge: item.originalReference || null,
    amount: item.amount?.value ?? null,
    currency: item.amount?.currency.toLowerCase() ?? null,
    fraudType: item.reason || null,
    actionable: false,
    reportedAt: at && !Number.isNaN(at.getTime()) ? at : null,
  };
}

/**
 * What the HMAC does not cover (additionalData, eventDate, reason, paymentMethod): a forger who holds one
 * validly signed item can send it again with anything there. These attributes of a pushed dispute only
 * fill what is not known yet (features/mirroring/upsert.ts), and its state is read from the signed event
 * code alone (docs/operations.md, "Adyen").
 */
export const unsignedAttributes = [
  'reason',
  'kind',
  'disputedAt',
  'dueBy',
  'closedAt',
  'customer',
  'network',
  'networkReasonCode',
] as const satisfies readonly DisputeAttribute[];

/** A verified dispute item in plain values; an item we cannot read refuses the whole push. */
export function eventOf(item: NotificationItem): DisputeEvent {
  const data = item.additionalData ?? {};
  const text = (key: string) => (data[key] ? data[key] : null);
  const date = (value: string | null | undefined, field: string) => {
    if (!value) return null;
    const at = new Date(value);
    if (Number.isNaN(at.getTime())) {
      throw new PushRejectedError(`notification ${item.pspReference}: ${field} '${value}' is not a date`);
    }
    return at;
  };
  const eventDate = date(item.eventDate, 'eventDate');
  if (!eventDate) throw new PushRejectedError(`notification ${item.pspReference}: eventDate is missing`);
  return {
    pspReference: item.pspReference,
    originalReference: item.originalReference || null,
    eventCode: item.eventCode,
    eventDate,
    amount: item.amount?.value ?? null,
    currency: item.amount?.currency ?? null,
    dueBy: date(text('defensePeriodEndsAt'), 'defensePeriodEndsAt'),
    disputedAt: null,
    chargedAt: null,
    chargeback: { reason: text('chargebackReasonCode'), scheme: text('chargebackSchemeCode') },
    rfi: { reason: text('rfiReasonCode'), scheme: text('rfiSchemeCode') },
    paymentMethod: item.paymentMethod || null,
    shopperReference: text('shopperReference'),
  };
}
