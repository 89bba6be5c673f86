import { z } from 'zod';
import { createInput, submitInput, testDisputeInput, updateInput } from '../domain/dispute-input.js';
import type { ErrorType } from '../domain/errors.js';
import { resourceId } from '../domain/params.js';
import { removeInput, retrieveInput } from '../domain/personal-data.js';
import { createTemplateInput, templateInput } from '../domain/templates.js';
import { createEndpointInput, updateEndpointInput } from '../domain/webhooks.js';
import { listDisputesQuery } from './routes/disputes/list.js';
import { listEventsQuery } from './routes/events/list.js';
import { pageParams } from './routes/params.js';

/**
 * What each endpoint of app.ts takes and answers, for the OpenAPI document (api/openapi.ts): the validators
 * its handler parses with, its success statuses, the object it returns and the errors it can answer.
 */

export type SuccessStatus = 200 | 201 | 202;
/** An error type, or a type and the status it has here where the catalogue gives it two (template_not_found). */
export type ErrorAnswer = ErrorType | readonly [ErrorType, number];

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  /** Path parameters by name; one not given is a plain string. */
  params?: Record<string, z.ZodType>;
  query?: z.ZodType;
  body?: z.ZodObject;
  success: Partial<Record<SuccessStatus, string>>;
  /** The schema of every success answer, or a description of what has none (a PDF, this document). */
  returns: z.ZodType | { description: string; mediaType: string };
  /** Error types beyond those every operation of its kind can answer (`keyedErrors`, `keylessErrors`). */
  errors: readonly ErrorAnswer[];
}

/** What any call with a key can meet: a bad key, plain HTTP, a bad version header or body, limits, a bug. */
export const keyedErrors: readonly ErrorType[] = [
  'authentication',
  'insecure_connection',
  'invalid_request',
  'request_too_large',
  'rate_limited',
  'server_error',
];
export const keylessErrors: readonly ErrorType[] = ['insecure_connection', 'rate_limited', 'server_error'];

const evidenceErrors: readonly ErrorAnswer[] = [
  'invalid_fields',
  'invalid_products',
  'invalid_correspondence',
  'invalid_past_payments',
  ['template_not_found', 400],
];
const submitErrors: readonly ErrorAnswer[] = [
  'missing_template',
  'missing_fields',
  'dispute_overdue',
  'processor_error',
];
const stateErrors: readonly ErrorAnswer[] = ['dispute_closed', 'dispute_submitted', 'dispute_uneditable'];
const templateNotFound: ErrorAnswer = ['template_not_found', 404];

const clientId = resourceId.meta({ description: 'Client- or processor-chosen id.' });
const disputeParams = { id: clientId };
const templateParams = { id: clientId };
const webhookEndpointParams = { id: z.string().meta({ description: 'A `we_…` id.' }) };
const eventParams = { id: z.string().meta({ description: 'An `evt_…` id.' }) };

const legacyNames =
  'Before `2017-10-30` the request may also carry the parameters of that version (`Service-Version`).';

/** The response objects, named as components by the document's builder so that they are shared by reference. */
export type ResponseObjects = Record<
  | 'dispute'
  | 'disputeList'
  | 'template'
  | 'templateList'
  | 'deletedTemplate'
  | 'webhookEndpoint'
  | 'webhookEndpointList'
  | 'deletedWebhookEndpoint'
  | 'event'
  | 'eventList'
  | 'response'
  | 'personalDataRequest',
  z.ZodType
>;

/** Documentation of each endpoint of app.ts, by `<method> <path>` as the endpoint declares them. */
export function operationsOf(objects: ResponseObjects): Record<string, Operation> {
  const update: Omit<Operation, 'operationId' | 'summary'> = {
    description: `Evidence and template; \`fields\` merge (\`null\` or \`""\` removes a key), arrays replace. ${legacyNames}`,
    params: disputeParams,
    body: updateInput,
    success: {
      200: 'Updated (with `queue=true`: queued).',
      201: 'With `submit=true`: submitted.',
      202: 'With `submit=true`: held by a rule or the state, or the processor call still under way.',
    },
    returns: objects.dispute,
    errors: ['dispute_not_found', ...evidenceErrors, ...stateErrors, ...submitErrors],
  };
  return {
    'get /disputes': {
      operationId: 'listDisputes',
      summary: 'List disputes, newest first',
      query: listDisputesQuery,
      success: { 200: 'A page of disputes.' },
      returns: objects.disputeList,
      errors: [],
    },
    'post /disputes': {
      operationId: 'createDispute',
      summary: 'Create a standalone dispute (`source: api`)',
      description: legacyNames,
      body: createInput,
      success: {
        201: 'Created (submitted or queued when asked, unless a rule holds it).',
        202: 'Created with `submit=true`; the processor call is still under way.',
      },
      returns: objects.dispute,
      errors: [...evidenceErrors, ...submitErrors],
    },
    'get /disputes/:id': {
      operationId: 'retrieveDispute',
      summary: 'Retrieve a dispute',
      params: disputeParams,
      success: { 200: 'The dispute.' },
      returns: objects.dispute,
      errors: ['dispute_not_found'],
    },
    'put /disputes/:id': { operationId: 'updateDispute', summary: 'Update a dispute', ...update },
    'post /disputes/:id': {
      operationId: 'updateDisputeByPost',
      summary: 'Update a dispute (POST, as some client libraries send it)',
      ...update,
    },
    'post /disputes/:id/submit': {
      ...update,
      operationId: 'submitDispute',
      summary: 'Submit the evidence, or queue it (`queue=true`)',
      body: submitInput,
      success: {
        200: 'With `queue=true`: queued.',
        201: 'Submitted.',
        202: 'Held by a rule or the state, or the processor call still under way.',
      },
    },
    'post /disputes/:id/accept': {
      operationId: 'acceptDispute',
      summary: 'Accept a dispute (bookkeeping: nothing is sent to the processor)',
      params: disputeParams,
      success: { 200: 'Accepted.' },
      returns: objects.dispute,
      errors: ['dispute_not_found', ...stateErrors],
    },
    'get /disputes/:id/response': {
      operationId: 'retrieveDisputeResponse',
      summary: "The latest submission's evidence and a signed link to its PDF",
      params: disputeParams,
      success: { 200: 'The response package.' },
      returns: objects.response,
      errors: ['dispute_not_found', 'response_not_found'],
    },
    'post /test/disputes': {
      operationId: 'createTestDispute',
      summary: 'Test keys only: a realistic random dispute from the mock processor',
      body: testDisputeInput,
      success: { 201: 'Created.' },
      returns: objects.dispute,
      errors: [],
    },
    'get /templates': {
      operationId: 'listTemplates',
      summary: 'List templates, newest first',
      query: pageParams,
      success: { 200: 'A page of templates.' },
      returns: objects.templateList,
      errors: [],
    },
    'post /templates': {
      operationId: 'createTemplate',
      summary: 'Create a template',
      body: createTemplateInput,
      success: { 201: 'Created.' },
      returns: objects.template,
      errors: [],
    },
    'get /templates/:id': {
      operationId: 'retrieveTemplate',
      summary: 'Retrieve a template',
      params: templateParams,
      success: { 200: 'The template.' },
      returns: objects.template,
      errors: [templateNotFound],
    },
    'put /templates/:id': {
      operationId: 'updateTemplate',
      summary: 'Update a template',
      params: templateParams,
      body: templateInput,
      success: { 200: 'Updated.' },
      returns: objects.template,
      errors: [templateNotFound],
    },
    'delete /templates/:id': {
      operationId: 'deleteTemplate',
      summary: 'Delete a template (disputes naming it keep the name)',
      params: templateParams,
      success: { 200: 'Deleted.' },
      returns: objects.deletedTemplate,
      errors: [templateNotFound],
    },
    'get /webhook_endpoints': {
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints, newest first',
      query: pageParams,
      success: { 200: 'A page of webhook endpoints.' },
      returns: objects.webhookEndpointList,
      errors: [],
    },
    'post /webhook_endpoints': {
      operationId: 'createWebhookEndpoint',
      summary: 'Create a webhook endpoint; the answer carries its signing secret, shown this once',
      // The schema is the same with WEBHOOK_ALLOW_PRIVATE: it only relaxes a refinement (http URLs).
      body: createEndpointInput(false),
      success: { 201: 'Created, with `secret`.' },
      returns: objects.webhookEndpoint,
      errors: [],
    },
    'get /webhook_endpoints/:id': {
      operationId: 'retrieveWebhookEndpoint',
      summary: 'Retrieve a webhook endpoint',
      params: webhookEndpointParams,
      success: { 200: 'The webhook endpoint.' },
      returns: objects.webhookEndpoint,
      errors: ['webhook_endpoint_not_found'],
    },
    'put /webhook_endpoints/:id': {
      operationId: 'updateWebhookEndpoint',
      summary: 'Update a webhook endpoint',
      params: webhookEndpointParams,
      body: updateEndpointInput(false),
      success: { 200: 'Updated.' },
      returns: objects.webhookEndpoint,
      errors: ['webhook_endpoint_not_found'],
    },
    'delete /webhook_endpoints/:id': {
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint and its deliveries (its events stay in the log)',
      params: webhookEndpointParams,
      success: { 200: 'Deleted.' },
      returns: objects.deletedWebhookEndpoint,
      errors: ['webhook_endpoint_not_found'],
    },
    'post /webhook_endpoints/:id/test': {
      operationId: 'testWebhookEndpoint',
      summary: 'Record a `test` event and send it to this endpoint only',
      params: webhookEndpointParams,
      success: { 202: 'The test event, its delivery on its way.' },
      returns: objects.event,
      errors: ['webhook_endpoint_not_found'],
    },
    'get /events': {
      operationId: 'listEvents',
      summary: 'The event log, newest first',
      query: listEventsQuery,
      success: { 200: 'A page of events.' },
      returns: objects.eventList,
      errors: [],
    },
    'get /events/:id': {
      operationId: 'retrieveEvent',
      summary: 'Retrieve an event with its deliveries',
      params: eventParams,
      success: { 200: 'The event.' },
      returns: objects.event,
      errors: ['event_not_found'],
    },
    'post /events/:id/redeliver': {
      operationId: 'redeliverEvent',
      summary: 'Send an event again: its deliveries restart',
      params: eventParams,
      success: { 202: 'The event, its deliveries restarted.' },
      returns: objects.event,
      errors: ['event_not_found'],
    },
    'post /personal-data/retrieve': {
      operationId: 'retrievePersonalData',
      summary: 'Export everything held about a person',
      body: retrieveInput,
      success: { 200: 'Recorded.' },
      returns: objects.personalDataRequest,
      errors: [],
    },
    'post /personal-data/remove': {
      operationId: 'removePersonalData',
      summary: 'Redact a person everywhere, by a job',
      body: removeInput,
      success: { 200: 'Recorded; a job carries it out.' },
      returns: objects.personalDataRequest,
      errors: [],
    },
  };
}
