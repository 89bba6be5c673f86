import { describe, expect, it } from 'vitest';
import { refusalCode, refusalText } from '../../../src/processors/refusal-text.js';

/** What each processor's error shape says, as the failure reason and the 502's message repeat it. */
const cases: [string, string, string | undefined][] = [
  [
    'Stripe',
    '{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters."}}',
    'Keys for idempotent requests can only be used with the same parameters.',
  ],
  [
    'OAuth',
    '{"error":"invalid_client","error_description":"Client Authentication failed"}',
    'Client Authentication failed',
  ],
  [
    'PayPal',
    '{"name":"UNPROCESSABLE_ENTITY","message":"The requested action could not be performed.","details":[{"issue":"NOT_ALLOWED","description":"Evidence cannot be provided now."}]}',
    'The requested action could not be performed.: Evidence cannot be provided now.',
  ],
  [
    'PayPal, issue only',
    '{"message":"Invalid request.","details":[{"issue":"MISSING_FIELD"}]}',
    'Invalid request.: MISSING_FIELD',
  ],
  [
    'Adyen',
    '{"status":422,"errorCode":"000","message":"Dispute not found","errorType":"validation"}',
    'Dispute not found',
  ],
  [
    'Checkout.com',
    '{"request_id":"0HL80RJLS76I7","error_type":"request_invalid","error_codes":["file_required","purpose_invalid"]}',
    'request_invalid (file_required, purpose_invalid)',
  ],
  ['Checkout.com, no codes', '{"error_type":"not_found"}', 'not_found'],
  ['problem+json', '{"title":"Conflict","detail":"The case is closed."}', 'Conflict: The case is closed.'],
  [
    'Braintree XML',
    '<api-error-response><errors/><message>Evidence &amp; documents can only be added to open disputes</message></api-error-response>',
    'Evidence & documents can only be added to open disputes',
  ],
  ['a bare error string', '{"error":"unauthorized"}', 'unauthorized'],
  ['spaces and line breaks folded', '{"message":"  two\\n  lines  "}', 'two lines'],
  ['an HTML page', '<html><body>Bad gateway</body></html>', undefined],
  ['plain text', 'Service Unavailable', undefined],
  ['an empty body', '', undefined],
  ['JSON without a message', '{"ok":false}', undefined],
  ['a JSON array', '[1,2]', undefined],
  ['an empty message', '{"message":"   "}', undefined],
];

describe('what a processor said in a refusal', () => {
  it.each(cases)('%s', (_, body, said) => {
    expect(refusalText(body)).toBe(said);
  });

  it('cuts a long message to 200 characters', () => {
    const said = refusalText(JSON.stringify({ message: 'x'.repeat(500) }));
    expect(said).toBe(`${'x'.repeat(199)}…`);
  });

  it.each([
    ['{"error":{"type":"idempotency_error","message":"…"}}', 'idempotency_error'],
    ['{"error":{"message":"no type"}}', undefined],
    ['{"error":"unauthorized"}', undefined],
    ['<message>x</message>', undefined],
  ])('names the kind of refusal in %s', (body, code) => {
    expect(refusalCode(body)).toBe(code);
  });
});
