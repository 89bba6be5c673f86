import { z } from 'zod';
import type { DisputeObject } from '../domain/disputes.js';
import { type ErrorType, errorStatus } from '../domain/errors.js';
import type { CorrespondenceItem, PastPayment, Product } from '../domain/evidence.js';
import { type EvidenceFileEntry, evidenceFileCategories, fileTypes } from '../domain/evidence-files.js';
import { networks } from '../domain/networks.js';
import type { personalDataRequestObject } from '../domain/personal-data.js';
import { disputeStates } from '../domain/states.js';
import { fieldTypes, type TemplateField } from '../domain/templates.js';
import { apiVersions } from '../domain/versions.js';
import { checks, disputeResolutions, kinds, processors, reasons } from '../domain/vocabulary.js';
import { eventTypes } from '../domain/webhooks.js';
import type { deletedFileObject, fileObject } from '../features/files/objects.js';
import type { deletedTemplateObject, templateObject } from '../features/templates/objects.js';
import type {
  deletedWebhookEndpointObject,
  eventObject,
  webhookEndpointObject,
} from '../features/webhooks/objects.js';
import type { errorBody } from './middleware/errors.js';
import { compellingEvidenceSchema } from './openapi-compelling-evidence.js';

/**
 * The response objects as zod schemas, for the OpenAPI document only (api/openapi.ts): responses are made by
 * the serializers, not parsed. Each schema is checked against its serializer's return type at compile time
 * (`describing`): a key added to or dropped from a serializer, or a value of another type, fails the
 * typecheck until the schema follows.
 */

type Keys<T> = keyof T & string;
type SameKeys<A, B> = [Keys<A>] extends [Keys<B>] ? ([Keys<B>] extends [Keys<A>] ? true : false) : false;

/**
 * Takes a schema only when its output has exactly the keys of `T` and every value it allows is one `T`
 * allows (the schema may be narrower: an enum where the serializer's type says string).
 */
export function describing<T>() {
  return <S extends z.ZodType>(
    schema: S & (SameKeys<z.output<S>, T> extends true ? (z.output<S> extends T ? unknown : never) : never),
  ): S => schema;
}

/** Response timestamps (docs/api.md, "Conventions"). */
export const timestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
  .meta({ description: 'UTC, `YYYY-MM-DDTHH:MM:SS`, no zone suffix.' });
export const amount = z.number().int().meta({ description: 'Minor units.' });
export const livemode = z
  .boolean()
  .meta({ description: 'Whether the object belongs to live mode (the key decides).' });
export const url = z.string().meta({ description: 'The request path, without query string.' });
const fieldValue = z.union([z.string(), z.number(), z.boolean()]);

const product = describing<Product>()(
  z.object({
    name: z.string(),
    description: z.string().optional(),
    image: z.string().optional(),
    sku: z.string().optional(),
    quantity: z.union([z.string(), z.number().int()]),
    amount,
    url: z.string().optional(),
    shipping_carrier: z.string().optional(),
    shipping_tracking_number: z.string().optional(),
  }),
);

const correspondenceItem = describing<CorrespondenceItem>()(
  z.object({
    to: z.string(),
    from: z.string(),
    subject: z.string(),
    body: z.string(),
    sent: z.union([z.string(), z.number().int()]).optional(),
    caption: z.string().optional(),
  }),
);

const pastPayment = describing<PastPayment>()(
  z.object({
    id: z.string(),
    amount,
    currency: z.string(),
    charged_at: z.union([z.string(), z.number().int()]),
    device_id: z.string().optional(),
    item_description: z.string().optional(),
    user_id: z.string().optional(),
    ip_address: z.string().optional(),
    shipping_address: z.string().optional(),
    email: z
      .string()
      .optional()
      .meta({ description: "The customer's email on that payment, the login Visa CE 3.0 compares." }),
  }),
);

const evidenceFileEntry = describing<EvidenceFileEntry>()(
  z.object({
    file: z.string().meta({ description: 'An uploaded file of the same organisation and mode.' }),
    category: z.enum(evidenceFileCategories),
    description: z.string().nullable(),
  }),
);

const check = z.enum(checks).nullable();

export const disputeObject = describing<DisputeObject>()(
  z
    .object({
      object: z.literal('dispute'),
      id: z.string().meta({ description: "The processor's id (or the client's, for `source: api`)." }),
      state: z.enum(disputeStates),
      reason: z.enum(reasons),
      charged_at: timestamp.nullable(),
      disputed_at: timestamp.nullable(),
      due_by: timestamp.nullable(),
      submitted_at: timestamp.nullable(),
      closed_at: timestamp.nullable(),
      submitted_count: z.number().int(),
      template: z.string().nullable(),
      fields: z.record(z.string(), fieldValue),
      missing_fields: z
        .record(z.string(), z.enum(fieldTypes))
        .meta({ description: 'Required template fields not provided yet, with their types.' }),
      products: z.array(product),
      correspondence: z.array(correspondenceItem),
      past_payments: z.array(pastPayment),
      evidence_files: z.array(evidenceFileEntry),
      charge: z.string().nullable(),
      is_charge_refundable: z.boolean().nullable(),
      amount: amount.nullable(),
      currency: z.string().nullable(),
      fee: amount.nullable(),
      reversal_amount: amount.nullable(),
      reversal_total: amount.nullable(),
      reversal_currency: z.string().nullable(),
      customer: z.string().nullable(),
      customer_name: z.string().nullable(),
      customer_email: z.string().nullable(),
      customer_purchase_ip: z.string().nullable(),
      address_zip: z.string().nullable(),
      address_line1_check: check,
      address_zip_check: check,
      cvc_check: check,
      statement_descriptor: z.string().nullable(),
      account_id: z.string().nullable(),
      created: timestamp,
      updated: timestamp,
      source: z.enum(['mock', 'api', ...processors]),
      processor: z.enum(processors).nullable(),
      kind: z.enum(kinds),
      network: z.enum(networks).nullable().meta({
        description: 'The card network, where the processor tells it (docs/api.md, "The dispute object").',
      }),
      network_reason_code: z
        .string()
        .nullable()
        .meta({ description: "The network's own reason code as the processor reports it (`10.4`, `4837`)." }),
      processor_status: z
        .string()
        .nullable()
        .meta({ description: "The processor's own word for the dispute's status, as it reports it." }),
      resolution: z.enum(disputeResolutions).nullable().meta({
        description:
          "The pre-dispute program that resolved the dispute: `rdr` (Visa's Rapid Dispute Resolution, as the processor reports it) or `alert_refund` (this service refunded its alert); null otherwise.",
      }),
      alert: z.string().nullable().meta({
        description:
          'The id of the alert raised for the same charge, linked whichever came first (docs/api.md, "Alerts"); null when none.',
      }),
      compelling_evidence: compellingEvidenceSchema,
      account: z
        .string()
        .nullable()
        .meta({ description: 'The connected account (`default` for the first).' }),
      reference_url: z.string().nullable(),
      livemode,
      url,
    })
    .meta({
      description:
        'The dispute object (docs/api.md, "The dispute object"): every field present, `null` when absent.',
    }),
);

const templateField = describing<TemplateField>()(
  z.object({
    key: z.string(),
    type: z.enum(fieldTypes),
    required: z.boolean(),
    description: z.string().nullable(),
  }),
);

export const templateObjectSchema = describing<ReturnType<typeof templateObject>>()(
  z.object({
    object: z.literal('template'),
    id: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    fields: z.array(templateField),
    reasons: z.array(z.enum(reasons)).nullable(),
    body: z.string().nullable(),
    created: timestamp,
    updated: timestamp,
    livemode,
    url,
  }),
);

export const deletedTemplateSchema = describing<ReturnType<typeof deletedTemplateObject>>()(
  z.object({ object: z.literal('template'), id: z.string(), deleted: z.literal(true), livemode, url }),
);

export const webhookEndpointSchema = describing<ReturnType<typeof webhookEndpointObject>>()(
  z.object({
    object: z.literal('webhook_endpoint'),
    id: z.string(),
    secret: z.string().optional().meta({
      description:
        'The signing secret (`whsec_…`): only in the answers to the create and `rotate_secret` calls.',
    }),
    endpoint_url: z.string(),
    events: z.array(z.enum(['*', ...eventTypes])),
    api_version: z.enum(apiVersions),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable(),
    failing_since: timestamp.nullable(),
    created: timestamp,
    updated: timestamp,
    livemode,
    url,
  }),
);

export const deletedWebhookEndpointSchema = describing<ReturnType<typeof deletedWebhookEndpointObject>>()(
  z.object({
    object: z.literal('webhook_endpoint'),
    id: z.string(),
    deleted: z.literal(true),
    livemode,
    url,
  }),
);

export const fileObjectSchema = describing<ReturnType<typeof fileObject>>()(
  z.object({
    object: z.literal('file'),
    id: z.string(),
    filename: z.string(),
    type: z.enum(fileTypes).meta({ description: 'Judged by the bytes, never the name or declared type.' }),
    purpose: z.enum(['dispute_evidence', 'product_image']),
    size: z.number().int().meta({ description: 'Bytes.' }),
    pages: z.number().int().nullable().meta({ description: "A PDF's page count; null for images." }),
    created: timestamp.nullable(),
    livemode,
    url: z.string().meta({ description: "The file's own path, `/v1/files/<id>`." }),
  }),
);

export const deletedFileSchema = describing<ReturnType<typeof deletedFileObject>>()(
  z.object({ object: z.literal('file'), id: z.string(), deleted: z.literal(true), livemode, url }),
);

type EventObject = ReturnType<typeof eventObject>;

const delivery = describing<EventObject['deliveries'][number]>()(
  z.object({
    id: z.string().meta({ description: 'The `webhook-id` of every attempt (`wh_…`).' }),
    endpoint: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    last_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
  }),
);

export const eventObjectSchema = describing<EventObject>()(
  z.object({
    object: z.literal('event'),
    id: z.string(),
    type: z.enum(eventTypes),
    dispute: z.string().nullable().meta({
      description:
        "The dispute's id; for an alert event, the alert's linked dispute (null until one arrives).",
    }),
    alert: z.string().nullable().meta({ description: "An alert event's alert id; null for other events." }),
    created: timestamp,
    deliveries: z.array(delivery),
    livemode,
    url,
  }),
);

export const personalDataRequestSchema = describing<ReturnType<typeof personalDataRequestObject>>()(
  z.object({
    object: z.literal('personal_data_request'),
    id: z.string(),
    success: z.object({ message: z.string() }),
    livemode,
    url,
  }),
);

/**
 * GET /v1/disputes/:id/response (routes/disputes/response.ts builds it inline, so there is no serializer
 * type to check against). The names are those of 2017-10-30 on.
 */
export const responsePackageSchema = z
  .object({
    object: z.literal('response'),
    dispute: z.string().nullable(),
    charge: z.string().nullable(),
    account_id: z.string().nullable(),
    evidence: z
      .record(z.string(), fieldValue)
      .meta({ description: 'The evidence dictionary the processor received.' }),
    response_url: z
      .string()
      .meta({ description: 'A signed link to the PDF, valid for DOCUMENT_LINK_SECONDS; needs no key.' }),
    files: z
      .array(
        z.object({
          file: z.string(),
          filename: z.string(),
          category: z.enum(evidenceFileCategories),
          description: z.string().nullable(),
          type: z.enum(fileTypes),
          size: z.number().int(),
          url: z.string().meta({
            description: 'A signed link to the file, valid for DOCUMENT_LINK_SECONDS; needs no key.',
          }),
        }),
      )
      .meta({
        description: "The submission's evidence files that still exist, in the order it carried them.",
      }),
    livemode,
    url,
  })
  .meta({
    description:
      'Before `2017-10-30`, the answer also names `dispute`, `charge` and `account_id` `dispute_id`, `external_charge` and `user_id`, with the same values.',
  });

/** The list object of docs/api.md, "Conventions" around items of one kind. */
export function listOf(item: z.ZodType) {
  return z.object({
    object: z.literal('list'),
    data: z.array(item),
    has_more: z.boolean().meta({ description: 'Whether more exist in the direction of travel.' }),
    livemode,
    url,
  });
}

/** The dispute list, with the counts `include[]=total_count` adds (docs/api.md, "Disputes"). */
export function disputeListOf(dispute: z.ZodType) {
  const count = z.number().int().min(0);
  return listOf(dispute).extend({
    total_count: count.optional().meta({
      description: 'With `include[]=total_count`: the disputes the filters match, all pages together.',
    }),
    count_by_state: z.record(z.enum(disputeStates), count).optional().meta({
      description: 'With `include[]=total_count`: the same by state, every state named (0 when none).',
    }),
  });
}

export const errorObjectSchema = describing<ReturnType<typeof errorBody>>()(
  z
    .object({
      url: z.string().nullable(),
      livemode,
      error: z.object({
        status: z.number().int(),
        message: z.string(),
        type: z.enum(Object.keys(errorStatus) as [ErrorType, ...ErrorType[]]),
      }),
    })
    .meta({ description: 'Every error answer (docs/api.md, "Errors").' }),
);
