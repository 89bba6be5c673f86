import { z } from 'zod';
import { alertOutcomes, toAlertObject } from '../../domain/alerts.js';
import { text } from '../../domain/values.js';
import { processors } from '../../domain/vocabulary.js';
import { listAlerts, retrieveAlert } from '../../features/alerts/list.js';
import { defineEndpoint } from '../endpoint.js';
import { anyOf, listOf } from '../inputs/one-or-many.js';
import { alertIdParameter, pageParams, toPageQuery } from '../inputs/params.js';
import { listJson } from '../serialize.js';

/** GET /v1/alerts and GET /v1/alerts/:id (docs/api.md, "Alerts"). */

export const listAlertsQuery = pageParams.and(
  z.object({
    charge: anyOf(text(255), 'Alerts of this charge.'),
    processor: anyOf(z.enum([...processors, 'mock']), 'Alerts of this processor.'),
    outcome: anyOf(z.enum(alertOutcomes), 'Alerts with this outcome.'),
  }),
);

export const listAlertsEndpoint = defineEndpoint({
  method: 'get',
  path: '/alerts',
  input: { query: listAlertsQuery },
  docs: {
    operationId: 'listAlerts',
    summary: 'List alerts, newest first',
    description:
      'Filters combine: an alert is listed when it passes every filter given. Unknown parameters are ignored.',
    success: { 200: 'A page of alerts.' },
    returns: 'alertList',
    errors: [],
  },
  async handle({ caller, input: query, url, deps }) {
    const page = await listAlerts(deps.db, caller, {
      ...toPageQuery(query),
      filters: {
        charges: listOf(query.charge),
        processors: listOf(query.processor),
        outcomes: listOf(query.outcome),
      },
    });
    const data = page.data.map((alert) => JSON.stringify(toAlertObject(alert)));
    return { status: 200, json: listJson({ data, hasMore: page.hasMore }, caller.livemode, url) };
  },
});

export const retrieveAlertEndpoint = defineEndpoint({
  method: 'get',
  path: '/alerts/:id',
  params: { id: alertIdParameter },
  docs: {
    operationId: 'retrieveAlert',
    summary: 'Retrieve an alert',
    success: { 200: 'The alert.' },
    returns: 'alert',
    errors: ['alert_not_found'],
  },
  async handle({ caller, params, deps }) {
    return { status: 200, body: toAlertObject(await retrieveAlert(deps.db, caller, params.id)) };
  },
});
