import { codeKey, isNetwork, networkReasonCodePattern, networkReasonCodeRule, networks } from './networks.js';
import { show } from './values.js';
import { reasons } from './vocabulary.js';

/**
 * An organisation's default templates (docs/api.md, "Organisation settings"): per mode, the template a new
 * dispute gets when no template rule gives one, for its reason (`fraudulent`) or for its card network's
 * own reason code (`visa:10.4`). Both kinds live in the one map per mode of `organisations.default_templates`:
 * a reason never holds a `:`, so the key says which it is. A network code's default says more than its
 * reason's, so it is tried first.
 */

/** A mode holds at most this many network-code defaults: more than the codes the networks publish. */
export const maxNetworkCodeDefaults = 200;

/** The key of a network code's default: the network, `:`, and the code as codes are compared (`amex:F29`). */
export const networkCodeKey = (network: string, code: string): string => `${network}:${codeKey(code)}`;

const isNetworkCodeKey = (key: string) => key.includes(':');

/** `<reason>` or `<network>:<code>` as stored, or what is wrong with it (the message names `given`). */
export function readDefaultKey(key: string, given: string): { key: string } | { problem: string } {
  const at = key.indexOf(':');
  if (at < 0) {
    return (reasons as readonly string[]).includes(key)
      ? { key }
      : {
          problem: `default template ${show(given)}: ${show(key)} is not a dispute reason (${reasons.join(', ')})`,
        };
  }
  const [network, code] = [key.slice(0, at), key.slice(at + 1)];
  if (!isNetwork(network)) {
    return {
      problem: `default template ${show(given)}: ${show(network)} is not a card network (${networks.join(', ')})`,
    };
  }
  if (!networkReasonCodePattern.test(code)) {
    return { problem: `default template ${show(given)}: ${show(code)} ${networkReasonCodeRule}` };
  }
  return { key: networkCodeKey(network, code) };
}

/** What is wrong with a mode's defaults as a whole (too many network codes), or null. */
export function defaultsProblem(defaults: Readonly<Record<string, string>>, mode: string): string | null {
  const codes = Object.keys(defaults).filter(isNetworkCodeKey).length;
  return codes > maxNetworkCodeDefaults
    ? `default templates: at most ${maxNetworkCodeDefaults} network codes a mode (${mode} mode would have ${codes})`
    : null;
}

/**
 * The defaults that apply to a dispute, in the order they are tried: its network code's, then its
 * reason's. The caller takes the first whose template still exists.
 */
export function defaultTemplatesFor(
  defaults: Readonly<Record<string, string>>,
  dispute: { reason: string; network: string | null; networkReasonCode: string | null },
): { key: string; template: string }[] {
  const keys = [
    ...(dispute.network && dispute.networkReasonCode
      ? [networkCodeKey(dispute.network, dispute.networkReasonCode)]
      : []),
    dispute.reason,
  ];
  return keys.flatMap((key) => {
    const template = Object.hasOwn(defaults, key) ? defaults[key] : undefined;
    return template ? [{ key, template }] : [];
  });
}
