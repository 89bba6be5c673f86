import { isRecord } from '../domain/redaction.js';
import { type ApiVersion, isOn } from '../domain/versions.js';

/**
 * Request parameter names from before 2017-10-30 (docs/api.md, "Versions"), renamed to today's before an
 * endpoint parses its input (`requestReader` in endpoint.ts). They are names on the wire only: the
 * features never see them.
 */

/**
 * Parameter names from before 2017-10-30, as `legacy name -> current name`. Requests on older versions
 * have them renamed before validation; from 2017-10-30 they are unknown parameters, ignored like any other.
 * A current name sent alongside wins.
 */
const legacyParameters = {
  evidence: { user_id: 'account_id' },
  create: {
    external_identifier: 'id',
    external_charge: 'charge',
    external_customer: 'customer',
    user_id: 'account_id',
  },
} as const;

/** Before 2017-10-30, submit and update took these top-level; they are kept as keys of `fields`. */
const legacyFieldParameters = ['customer_name', 'customer_email'] as const;

export function renameLegacyParameters(
  version: ApiVersion,
  endpoint: keyof typeof legacyParameters,
  input: Record<string, unknown>,
): Record<string, unknown> {
  if (isOn(version, 'modernNames')) return input;
  const renamed: Record<string, unknown> = { ...input };
  for (const [legacy, current] of Object.entries(legacyParameters[endpoint])) {
    if (legacy in input && !(current in input)) renamed[current] = input[legacy];
    delete renamed[legacy];
  }
  if (endpoint === 'evidence') {
    const lifted = legacyFieldParameters.filter((name) => name in input);
    if (lifted.length > 0) {
      const fields = isRecord(input.fields)
        ? { ...input.fields }
        : input.fields === undefined
          ? {}
          : input.fields;
      if (isRecord(fields)) {
        for (const name of lifted) if (!(name in fields)) fields[name] = input[name];
      }
      renamed.fields = fields;
      for (const name of lifted) delete renamed[name];
    }
  }
  return renamed;
}
