import { isRecord } from '../domain/redaction.js';

/**
 * What a processor said when it refused a call, read from its answer: the one sentence the merchant and
 * on-call need ("The processor answered 400: No such file."), rather than only a status. Each processor
 * has its own error shape; the common ones are read here, in one place:
 * - Stripe `{ error: { message } }`; OAuth `{ error_description }`;
 * - PayPal `{ message, details: [{ issue, description }] }`; Adyen `{ message }`;
 * - Checkout.com `{ error_type, error_codes: [...] }`; problem+json `{ title, detail }`;
 * - XML answers (Braintree, Vantiv) `<message>…</message>`.
 */
const longest = 200;

export function refusalText(body: string): string | undefined {
  const text = fromJson(body) ?? fromXml(body);
  if (text === undefined) return undefined;
  const line = text.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > longest ? `${line.slice(0, longest - 1)}…` : line;
}

function fromJson(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const error = parsed.error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  if (typeof parsed.error_description === 'string') return parsed.error_description;
  const detail = Array.isArray(parsed.details) && isRecord(parsed.details[0]) ? parsed.details[0] : {};
  const said = [parsed.message, detail.description ?? detail.issue, parsed.title, parsed.detail].filter(
    (part): part is string => typeof part === 'string' && part.length > 0,
  );
  if (said.length > 0) return said.join(': ');
  if (typeof parsed.error_type === 'string') {
    const codes = Array.isArray(parsed.error_codes) ? parsed.error_codes.filter(isString) : [];
    return codes.length > 0 ? `${parsed.error_type} (${codes.join(', ')})` : parsed.error_type;
  }
  return typeof error === 'string' ? error : undefined;
}

function fromXml(body: string): string | undefined {
  const found = /<message>([^<]{1,1000})<\/message>/i.exec(body)?.[1];
  return found
    ?.replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** The kind of refusal a JSON answer names (Stripe's `error.type`: `idempotency_error`, …), if any. */
export function refusalCode(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    const error = isRecord(parsed) ? parsed.error : undefined;
    return isRecord(error) && typeof error.type === 'string' ? error.type : undefined;
  } catch {
    return undefined;
  }
}
