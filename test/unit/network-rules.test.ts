import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  defaultsProblem,
  defaultTemplatesFor,
  maxNetworkCodeDefaults,
  readDefaultKey,
} from '../../src/domain/default-templates.js';
import { parseSettingsChange } from '../../src/domain/organisation-settings.js';
import {
  type DisputeFacts,
  matchesConditions,
  parseRuleFile,
  RuleFileError,
  ruleToFile,
} from '../../src/domain/rules.js';

/**
 * The card network, its code and the processor's status word in workflow rules (domain/rules.ts) and
 * in default templates (domain/default-templates.ts): docs/api.md, "Workflow rules" and "Organisation
 * settings".
 */

const now = new Date('2030-01-01T00:00:00Z');
const facts: DisputeFacts = {
  reason: 'fraudulent',
  kind: 'chargeback',
  processor: 'paypal',
  account: 'default',
  currency: 'usd',
  amount: 5000,
  dueBy: null,
  customerEmail: null,
  network: 'amex',
  networkReasonCode: 'F29',
  processorStatus: 'WAITING_FOR_SELLER_RESPONSE',
};

const conditionsOf = (when: unknown) => {
  const [rule] = parseRuleFile([{ when, action: 'review' }]);
  if (!rule) throw new Error('no rule');
  return rule.when;
};

function refusal(when: unknown): string {
  try {
    parseRuleFile([{ when, action: 'review' }]);
  } catch (error) {
    expect(error).toBeInstanceOf(RuleFileError);
    return (error as Error).message;
  }
  throw new Error('the rule was accepted');
}

describe('rule conditions on the network', () => {
  it('reads one value or a list; codes in upper case and statuses in lower case, as they are compared', () => {
    expect(
      conditionsOf({
        network: 'amex',
        network_reason_code: ['f29', '10.4'],
        processor_status: 'Response Needed',
      }),
    ).toEqual({
      network: ['amex'],
      network_reason_code: ['F29', '10.4'],
      processor_status: ['response needed'],
    });
  });

  it('prints them as they read back', () => {
    const [rule] = parseRuleFile([
      { when: { network_reason_code: 'c08', processor_status: 'OPEN' }, action: 'accept' },
    ]);
    const printed = JSON.parse(JSON.stringify(ruleToFile(rule as NonNullable<typeof rule>)));
    expect(parseRuleFile([printed])[0]?.when).toEqual(rule?.when);
  });

  it.each([
    [
      { network: 'maestro' },
      'when.network must be a card network (visa, mastercard, amex, discover, jcb, unionpay, diners), not "maestro"',
    ],
    [{ network: [] }, 'when.network must not be an empty list'],
    [
      { network_reason_code: '10 4' },
      'when.network_reason_code must be a network reason code: 1-20 characters of A-Z a-z 0-9 . -',
    ],
    [
      { network_reason_code: 4837 },
      'when.network_reason_code must be a network reason code: 1-20 characters of A-Z a-z 0-9 . -',
    ],
    [{ processor_status: '' }, 'when.processor_status must not be empty'],
    [{ processor_status: 'x'.repeat(101) }, 'when.processor_status must be at most 100 characters'],
  ])('refuses %j', (when, message) => {
    expect(refusal(when)).toBe(`rule 1: ${message}`);
  });

  it('any value of a code condition reads as its upper case or is refused, never an error of another kind', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30, unit: 'binary' }), (code) => {
        try {
          expect(conditionsOf({ network_reason_code: code }).network_reason_code).toEqual([
            code.trim().toUpperCase(),
          ]);
        } catch (error) {
          if (!(error instanceof RuleFileError)) throw error;
        }
      }),
    );
  });

  it.each([
    [{ network: 'amex' }, true],
    [{ network: ['visa', 'mastercard'] }, false],
    [{ network_reason_code: 'f29' }, true],
    [{ network: 'visa', network_reason_code: 'F29' }, false],
    [{ processor_status: 'waiting_for_seller_response' }, true],
    [{ processor_status: ['UNDER_REVIEW'] }, false],
  ])('%j matches an Amex F29 awaiting the seller: %s', (when, matches) => {
    expect(matchesConditions(conditionsOf(when), facts, now)).toBe(matches);
  });

  it('never matches a dispute without the fact', () => {
    const unknown = { ...facts, network: null, networkReasonCode: null, processorStatus: null };
    for (const when of [{ network: 'amex' }, { network_reason_code: 'F29' }, { processor_status: 'open' }]) {
      expect(matchesConditions(conditionsOf(when), unknown, now)).toBe(false);
    }
  });
});

describe('default templates per network code', () => {
  it('keys a code by its network, the code in upper case', () => {
    expect(readDefaultKey('amex:f29', 'amex:f29=t')).toEqual({ key: 'amex:F29' });
    expect(readDefaultKey('visa:12.6.1', 'visa:12.6.1=t')).toEqual({ key: 'visa:12.6.1' });
    expect(readDefaultKey('fraudulent', 'fraudulent=t')).toEqual({ key: 'fraudulent' });
  });

  it.each([
    ['Visa:10.4=t', '"Visa" is not a card network (visa, mastercard, amex, discover, jcb, unionpay, diners)'],
    ['visa:=t', '"" must be a network reason code: 1-20 characters of A-Z a-z 0-9 . -'],
    ['visa:10 4=t', '"10 4" must be a network reason code: 1-20 characters of A-Z a-z 0-9 . -'],
    [
      `visa:${'1'.repeat(21)}=t`,
      `"${'1'.repeat(21)}" must be a network reason code: 1-20 characters of A-Z a-z 0-9 . -`,
    ],
    ['visa:10.4:x=t', '"10.4:x" must be a network reason code: 1-20 characters of A-Z a-z 0-9 . -'],
  ])('refuses %j, naming what is wrong', (given, problem) => {
    expect(() => parseSettingsChange({ mode: 'test', defaultTemplates: [given] })).toThrow(
      `default template ${JSON.stringify(given)}: ${problem}`,
    );
  });

  it('reads `<key>=` as removing that default', () => {
    expect(
      parseSettingsChange({ mode: 'live', defaultTemplates: ['mastercard:4837='] }).defaultTemplates,
    ).toEqual([{ key: 'mastercard:4837', template: null }]);
  });

  it(`holds at most ${maxNetworkCodeDefaults} network codes a mode, besides the reasons`, () => {
    const codes = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, index) => [`visa:${index}`, 't']));
    expect(
      defaultsProblem({ ...codes(maxNetworkCodeDefaults), fraudulent: 't', general: 't' }, 'test'),
    ).toBeNull();
    expect(defaultsProblem(codes(maxNetworkCodeDefaults + 1), 'live')).toBe(
      `default templates: at most ${maxNetworkCodeDefaults} network codes a mode (live mode would have ${maxNetworkCodeDefaults + 1})`,
    );
  });

  it("tries the network code's default first, then the reason's; none without a network or a code", () => {
    const defaults = { fraudulent: 'tpl_fraud', 'amex:F29': 'tpl_amex_f29', 'visa:F29': 'tpl_other' };
    const dispute = { reason: 'fraudulent', network: 'amex', networkReasonCode: 'f29' };
    expect(defaultTemplatesFor(defaults, dispute)).toEqual([
      { key: 'amex:F29', template: 'tpl_amex_f29' },
      { key: 'fraudulent', template: 'tpl_fraud' },
    ]);
    expect(defaultTemplatesFor(defaults, { ...dispute, network: null })).toEqual([
      { key: 'fraudulent', template: 'tpl_fraud' },
    ]);
    expect(defaultTemplatesFor(defaults, { ...dispute, networkReasonCode: 'C08' })).toEqual([
      { key: 'fraudulent', template: 'tpl_fraud' },
    ]);
    expect(defaultTemplatesFor({}, dispute)).toEqual([]);
  });
});
