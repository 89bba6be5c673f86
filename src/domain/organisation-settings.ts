import { z } from 'zod';
import { readDefaultKey } from './default-templates.js';
import { show } from './values.js';
import { apiVersions, isApiVersion } from './versions.js';

/**
 * A change of an organisation's settings as `org settings` gives it (features/organisations/organisations.ts applies
 * it): values as numbers or as command-line text, each refused with a message that names the setting.
 */

/** Whole hours, as numbers or as the text a command line gives. */
export function wholeHours(what: string, min: number, max: number, orDefault = false) {
  const message = (issue: { input?: unknown }) =>
    `${what} must be a whole number of hours from ${min} to ${max}${orDefault ? ', or "default"' : ''}, not ${show(issue.input)}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\s*\d{1,9}\s*$/.test(value) ? Number(value) : value),
    z
      .number({ error: message })
      .int({ error: message })
      .min(min, { error: message })
      .max(max, { error: message }),
  );
}

/**
 * `<reason>=<templateId>` or `<network>:<code>=<templateId>` (domain/default-templates.ts); an empty id
 * removes that default.
 */
const defaultTemplate = z.string().transform((value, context) => {
  const at = value.indexOf('=');
  if (at < 0) {
    context.addIssue({
      code: 'custom',
      message: `default template must be <reason>=<templateId> or <network>:<code>=<templateId>, not ${show(value)}`,
    });
    return z.NEVER;
  }
  const read = readDefaultKey(value.slice(0, at), value);
  if ('problem' in read) {
    context.addIssue({ code: 'custom', message: read.problem });
    return z.NEVER;
  }
  return { key: read.key, template: value.slice(at + 1) || null };
});

/**
 * A site whose pages may call the API from a browser: an origin as browsers send it in `Origin`
 * (`https://shop.example.com`, a port when not the default), stored as the URL standard writes it.
 */
const allowedOrigin = z.string().transform((value, context) => {
  const url = URL.parse(value.trim());
  const bare =
    url !== null &&
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '';
  if (!bare) {
    context.addIssue({
      code: 'custom',
      message: `allowed origin must be a scheme, host and optional port, as https://shop.example.com, not ${show(value)}`,
    });
    return z.NEVER;
  }
  return url.origin;
});

/** The largest threshold taken: ten billion in a two-decimal currency, far above any one charge. */
export const maxAlertRefundUpTo = 1_000_000_000_000;

/** The currencies this runtime knows (ISO 4217), lower-case as thresholds are stored. */
const knownCurrencies = new Set(Intl.supportedValuesOf('currency').map((code) => code.toLowerCase()));

/**
 * One `--alert-refund-up-to` value: `<currency>:<amount in minor units>` sets that currency's threshold,
 * `<currency>:none` removes it, `none` removes every threshold of the mode (docs/api.md, "Organisation
 * settings"). The currency is a known ISO 4217 code in any case, stored lower-case.
 */
export type AlertRefundChange = { currency: string; amount: number | null } | { all: 'none' };

const alertRefundUpTo = z.string().transform((value, context): AlertRefundChange => {
  const fail = (message: string) => {
    context.addIssue({ code: 'custom', message: `alert refund threshold ${message}` });
    return z.NEVER;
  };
  const given = value.trim();
  if (given.toLowerCase() === 'none') return { all: 'none' };
  const match = /^([A-Za-z]{3}):(.*)$/.exec(given);
  if (!match)
    return fail(`must be <currency>:<amount in minor units>, <currency>:none or none, not ${show(value)}`);
  const currency = (match[1] as string).toLowerCase();
  const amount = (match[2] as string).trim();
  if (!knownCurrencies.has(currency))
    return fail(`${show(value)}: ${show(match[1])} is not a known currency`);
  if (amount.toLowerCase() === 'none') return { currency, amount: null };
  const whole = /^\d{1,13}$/.test(amount) ? Number(amount) : Number.NaN;
  if (!(whole <= maxAlertRefundUpTo)) {
    return fail(
      `${show(value)}: the amount must be a whole number of minor units from 0 to ${maxAlertRefundUpTo}, or none`,
    );
  }
  return { currency, amount: whole };
});

export const settingsChange = z
  .object({
    apiVersion: z
      .string()
      .refine(isApiVersion, {
        error: (issue) => `api version must be one of ${apiVersions.join(', ')}, not ${show(issue.input)}`,
      })
      .optional(),
    /** At most 30 days: past that a queued dispute would go out as soon as it is queued anyway. */
    queueLeadHours: wholeHours('queue lead', 0, 720).optional(),
    /** `default` (or null) returns to the DUE_SOON_HOURS setting. */
    dueSoonHours: z
      .union([
        z.literal('default').transform(() => null),
        z.null(),
        wholeHours('due-soon window', 1, 720, true),
      ])
      .optional(),
    mode: z.enum(['test', 'live'], { error: 'mode must be test or live' }).optional(),
    defaultTemplates: z.array(defaultTemplate).optional(),
    allowedOrigins: z.array(allowedOrigin).optional(),
    removeAllowedOrigins: z.array(allowedOrigin).optional(),
    visaComplianceFee: z
      .enum(['accept', 'refuse'], {
        error: (issue) => `visa compliance fee must be accept or refuse, not ${show(issue.input)}`,
      })
      .optional(),
    alertRefundUpTo: z.array(alertRefundUpTo).optional(),
  })
  .refine((change) => !change.defaultTemplates?.length || change.mode !== undefined, {
    error: 'default templates belong to a mode: give --mode test or --mode live',
  })
  .refine((change) => !change.alertRefundUpTo?.length || change.mode !== undefined, {
    error: 'alert refund thresholds belong to a mode: give --mode test or --mode live',
  });
export type SettingsChange = z.input<typeof settingsChange>;

/** A mode's thresholds after the changes, applied in the order given. */
export function applyAlertRefundChanges(
  current: Readonly<Record<string, number>>,
  changes: readonly AlertRefundChange[],
): Record<string, number> {
  let next: Record<string, number> = { ...current };
  for (const change of changes) {
    if ('all' in change) next = {};
    else if (change.amount === null) delete next[change.currency];
    else next[change.currency] = change.amount;
  }
  return next;
}

/** The change, checked whole; a bad value throws with the first problem's message. */
export function parseSettingsChange(input: SettingsChange): z.output<typeof settingsChange> {
  const parsed = settingsChange.safeParse(input);
  if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid settings');
  return parsed.data;
}
