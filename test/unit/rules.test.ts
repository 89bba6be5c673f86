import { describe, expect, it } from 'vitest';
import {
  type DisputeFacts,
  disputeFacts,
  evaluateRules,
  matchesConditions,
  maxRules,
  parseRuleFile,
  type Rule,
  RuleFileError,
  readRuleFile,
  ruleToFile,
} from '../../src/domain/rules.js';

/** Workflow rules (domain/rules.ts): the file format, each condition, and which rule decides. */

const now = new Date('2030-01-01T00:00:00Z');
const hour = 3_600_000;

const facts: DisputeFacts = {
  reason: 'fraudulent',
  kind: 'chargeback',
  processor: 'stripe',
  account: 'default',
  currency: 'usd',
  amount: 5000,
  dueBy: new Date(now.getTime() + 72 * hour),
  customerEmail: 'Ada@Example.COM',
  network: 'visa',
  networkReasonCode: '10.4',
  processorStatus: 'needs_response',
};

function refusal(file: unknown): string {
  try {
    parseRuleFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(RuleFileError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

const rule = (fields: Partial<Rule> & Pick<Rule, 'action'>): Rule => ({
  order: 1,
  name: null,
  when: {},
  template: null,
  ...fields,
});

describe('reading a rule file', () => {
  it('takes {"rules": [...]} or a bare list, defaults order to the position, and sorts by order', () => {
    const rules = [
      { name: 'Big', order: 10, when: { amount: { min: 10_000 } }, action: 'review' },
      { when: {}, action: 'accept' },
    ];
    expect(parseRuleFile({ rules })).toEqual(parseRuleFile(rules));
    expect(parseRuleFile(rules).map((r) => [r.order, r.name, r.action, r.label])).toEqual([
      [2, null, 'accept', 'rule 2'],
      [10, 'Big', 'review', 'rule 1 ("Big")'],
    ]);
  });

  it('normalises single values to lists and lower-cases currencies and email domains', () => {
    const [read] = parseRuleFile([
      {
        when: {
          reason: 'fraudulent',
          kind: ['chargeback', 'retrieval'],
          processor: 'mock',
          account: 'default',
          currency: 'USD',
          amount: { max: 100 },
          due_within_hours: 48,
          customer_email_domain: 'Example.COM',
        },
        action: 'template',
        template: 'tpl_fraud',
      },
    ]);
    expect(read?.when).toEqual({
      reason: ['fraudulent'],
      kind: ['chargeback', 'retrieval'],
      processor: ['mock'],
      account: ['default'],
      currency: ['usd'],
      amount: { max: 100 },
      due_within_hours: 48,
      customer_email_domain: ['example.com'],
    });
    expect(read?.template).toBe('tpl_fraud');
  });

  it('reads an empty list (no rules) and refuses text that is not JSON', () => {
    expect(readRuleFile('[]')).toEqual([]);
    expect(() => readRuleFile('{"rules": [')).toThrow(/^rule file: not valid JSON/);
  });

  it('round-trips: what ruleToFile prints reads back as the same rules', () => {
    const rules = parseRuleFile([
      { name: 'A', when: { currency: 'EUR' }, action: 'accept' },
      { order: 7, when: {}, action: 'template', template: 't' },
    ]);
    const printed = JSON.parse(JSON.stringify(rules.map(ruleToFile)));
    expect(parseRuleFile(printed).map(ruleToFile)).toEqual(printed);
  });

  it.each([
    ['not a list', 'rules', 'rule file: must be a list of rules, or {"rules": [...]}'],
    ['an object with other keys', { rules: [], version: 2 }, 'rule file: unknown key "version"'],
    ['rules that is not a list', { rules: {} }, 'rule file: must be a list of rules'],
    ['a rule that is not an object', [5], 'rule 1: must be an object'],
    ['a missing action', [{ when: {} }], 'rule 1: action is required'],
    ['a missing when', [{ action: 'accept' }], 'rule 1: when is required'],
    [
      'an unknown action',
      [{ when: {}, action: 'refund' }],
      'rule 1: action must be an action (review, accept, template), not "refund"',
    ],
    [
      'an unknown rule key',
      [{ when: {}, action: 'accept', priority: 1 }],
      'rule 1: has an unknown key "priority"',
    ],
    [
      'an unknown condition',
      [{ name: 'X', when: { colour: 'red' }, action: 'accept' }],
      'rule 1 ("X"): when has an unknown key "colour"',
    ],
    [
      'a non-integer amount',
      [
        { when: {}, action: 'accept' },
        { when: {}, action: 'accept' },
        { name: 'High value review', when: { amount: { min: 1.5 } }, action: 'review' },
      ],
      'rule 3 ("High value review"): when.amount.min must be an integer',
    ],
    [
      'a text amount',
      [{ when: { amount: { max: '100' } }, action: 'review' }],
      'rule 1: when.amount.max must be an integer',
    ],
    [
      'a negative amount',
      [{ when: { amount: { min: -1 } }, action: 'review' }],
      'rule 1: when.amount.min must not be negative',
    ],
    [
      'an empty amount range',
      [{ when: { amount: {} }, action: 'review' }],
      'rule 1: when.amount must have a min or a max',
    ],
    [
      'an inverted amount range',
      [{ when: { amount: { min: 10, max: 5 } }, action: 'review' }],
      'rule 1: when.amount min must not be greater than max',
    ],
    [
      'an unknown amount key',
      [{ when: { amount: { min: 1, currency: 'usd' } }, action: 'review' }],
      'rule 1: when.amount has an unknown key "currency"',
    ],
    [
      'an unknown reason',
      [{ when: { reason: ['general', 'fradulent'] }, action: 'accept' }],
      'rule 1: when.reason must be a dispute reason',
    ],
    [
      'an unknown kind',
      [{ when: { kind: 'inquiry' }, action: 'accept' }],
      'rule 1: when.kind must be a dispute kind (chargeback, pre_arbitration, retrieval), not "inquiry"',
    ],
    [
      'an unknown processor',
      [{ when: { processor: 'square' }, action: 'accept' }],
      'rule 1: when.processor must be a processor',
    ],
    [
      'an empty list',
      [{ when: { reason: [] }, action: 'accept' }],
      'rule 1: when.reason must not be an empty list',
    ],
    [
      'a bad currency',
      [{ when: { currency: 'dollars' }, action: 'accept' }],
      'rule 1: when.currency must be a 3-letter currency code',
    ],
    [
      'a zero due window',
      [{ when: { due_within_hours: 0 }, action: 'review' }],
      'rule 1: when.due_within_hours must be a positive integer',
    ],
    [
      'a fractional due window',
      [{ when: { due_within_hours: 1.5 }, action: 'review' }],
      'rule 1: when.due_within_hours must be a positive integer',
    ],
    [
      'an email address for a domain',
      [{ when: { customer_email_domain: 'a@b.com' }, action: 'review' }],
      'rule 1: when.customer_email_domain must be a domain name',
    ],
    [
      'a template rule without template',
      [{ name: 'T', when: {}, action: 'template' }],
      'rule 1 ("T"): template is required when action is "template"',
    ],
    [
      'a template on a state rule',
      [{ when: {}, action: 'accept', template: 't' }],
      'rule 1: template must not be set when action is "accept"',
    ],
    [
      'a bad template id',
      [{ when: {}, action: 'template', template: 'has space' }],
      'rule 1: template must be a template id',
    ],
    ['a fractional order', [{ order: 1.5, when: {}, action: 'accept' }], 'rule 1: order must be an integer'],
    ['a zero order', [{ order: 0, when: {}, action: 'accept' }], 'rule 1: order must be at least 1'],
    [
      'a repeated order',
      [
        { order: 2, name: 'A', when: {}, action: 'accept' },
        { when: {}, action: 'review' },
      ],
      'rule 2: order 2 is also the order of rule 1 ("A")',
    ],
    ['an empty name', [{ name: '', when: {}, action: 'accept' }], 'rule 1: name must not be empty'],
  ])('refuses %s, naming the rule', (_, file, message) => {
    expect(refusal(file)).toContain(message);
  });

  it(`refuses more than ${maxRules} rules`, () => {
    const many = Array.from({ length: maxRules + 1 }, () => ({ when: {}, action: 'accept' }));
    expect(refusal(many)).toBe(`rule file: at most ${maxRules} rules are allowed (it has ${maxRules + 1})`);
    expect(parseRuleFile(many.slice(1))).toHaveLength(maxRules);
  });

  it('reports every bad rule (the first problem of each), not only the first', () => {
    const message = refusal([
      { when: { reason: 'nope' }, action: 'accept' },
      { when: {}, action: 'accept' },
      { when: {}, action: 'nope' },
    ]);
    expect(message).toMatch(/^rule 1: when\.reason .*; rule 3: action /);
  });
});

describe('matching one condition', () => {
  const cases: [string, Rule['when'], boolean][] = [
    ['no conditions', {}, true],
    ['reason, listed', { reason: ['general', 'fraudulent'] }, true],
    ['reason, not listed', { reason: ['general'] }, false],
    ['kind', { kind: ['chargeback'] }, true],
    ['kind, not listed', { kind: ['retrieval'] }, false],
    ['processor', { processor: ['stripe', 'adyen'] }, true],
    ['processor, not listed', { processor: ['mock'] }, false],
    ['account', { account: ['default'] }, true],
    ['account, not listed', { account: ['eu'] }, false],
    ['currency', { currency: ['eur', 'usd'] }, true],
    ['currency, not listed', { currency: ['eur'] }, false],
    ['amount at min (inclusive)', { amount: { min: 5000 } }, true],
    ['amount below min', { amount: { min: 5001 } }, false],
    ['amount at max (inclusive)', { amount: { max: 5000 } }, true],
    ['amount above max', { amount: { max: 4999 } }, false],
    ['amount within both', { amount: { min: 1, max: 10_000 } }, true],
    ['due within, at the bound', { due_within_hours: 72 }, true],
    ['due within, beyond it', { due_within_hours: 71 }, false],
    ['email domain, any case', { customer_email_domain: ['example.com'] }, true],
    ['email domain, a subdomain is another domain', { customer_email_domain: ['mail.example.com'] }, false],
    ['email domain, a parent domain is another domain', { customer_email_domain: ['com'] }, false],
    ['all of several', { reason: ['fraudulent'], currency: ['usd'], amount: { min: 1000 } }, true],
    [
      'all of several, one failing',
      { reason: ['fraudulent'], currency: ['eur'], amount: { min: 1000 } },
      false,
    ],
  ];
  it.each(cases)('%s', (_, when, expected) => {
    expect(matchesConditions(when, facts, now)).toBe(expected);
  });

  it('an overdue dispute is due within any window', () => {
    const overdue = { ...facts, dueBy: new Date(now.getTime() - hour) };
    expect(matchesConditions({ due_within_hours: 1 }, overdue, now)).toBe(true);
  });

  it.each([
    ['amount', { amount: null }, { amount: { min: 0 } }],
    ['due_by', { dueBy: null }, { due_within_hours: 1000 }],
    ['customer email', { customerEmail: null }, { customer_email_domain: ['example.com'] }],
    ['processor', { processor: null }, { processor: ['stripe'] }],
    ['account', { account: null }, { account: ['default'] }],
    ['currency', { currency: null }, { currency: ['usd'] }],
  ] as const)('a condition on a missing %s does not match', (_, missing, when) => {
    expect(matchesConditions(when as Rule['when'], { ...facts, ...missing }, now)).toBe(false);
  });
});

describe('dispute facts', () => {
  const row = {
    reason: 'general',
    kind: 'chargeback',
    processor: null,
    source: 'mock',
    account: 'default',
    currency: 'usd',
    amount: 100,
    dueBy: null,
    customerEmail: null,
    fields: {},
    network: null,
    networkReasonCode: null,
    processorStatus: null,
  };
  it('counts the test processor as `mock`, and standalone disputes as their processor or none', () => {
    expect(disputeFacts(row).processor).toBe('mock');
    expect(disputeFacts({ ...row, source: 'api' }).processor).toBeNull();
    expect(disputeFacts({ ...row, source: 'api', processor: 'adyen' }).processor).toBe('adyen');
  });

  it("takes the customer's email from the processor, else from the customer_email field", () => {
    expect(disputeFacts({ ...row, fields: { customer_email: 'a@b.org' } }).customerEmail).toBe('a@b.org');
    expect(
      disputeFacts({ ...row, customerEmail: 'x@y.net', fields: { customer_email: 'a@b.org' } }).customerEmail,
    ).toBe('x@y.net');
  });
});

describe('evaluating rules', () => {
  const review = (order: number, when: Rule['when'] = {}) => rule({ order, when, action: 'review' });
  const accept = (order: number, when: Rule['when'] = {}) => rule({ order, when, action: 'accept' });
  const template = (order: number, id: string, when: Rule['when'] = {}) =>
    rule({ order, when, action: 'template', template: id });

  it('no rules decide nothing', () => {
    expect(evaluateRules([], facts, now, 'arrival')).toEqual({});
  });

  it('on arrival, the first matching state rule decides, in order, whatever the list order', () => {
    expect(evaluateRules([accept(2), review(1)], facts, now, 'arrival')).toEqual({
      state: 'requires_review',
    });
    expect(evaluateRules([accept(1), review(2)], facts, now, 'arrival')).toEqual({ state: 'accepted' });
  });

  it('skips state rules that do not match', () => {
    const rules = [review(1, { currency: ['eur'] }), accept(2, { reason: ['fraudulent'] }), review(3)];
    expect(evaluateRules(rules, facts, now, 'arrival')).toEqual({ state: 'accepted' });
  });

  it('the first matching template rule names the template, whatever the state rules say', () => {
    const rules = [template(1, 'a', { reason: ['general'] }), review(2), template(3, 'b'), template(4, 'c')];
    expect(evaluateRules(rules, facts, now, 'arrival')).toEqual({ state: 'requires_review', template: 'b' });
  });

  it('on a change, a matching accept rule accepts and templates do not count', () => {
    expect(evaluateRules([template(1, 'a'), accept(2)], facts, now, 'change')).toEqual({ state: 'accepted' });
  });

  it('on a change, review rules decide nothing, and a review rule first keeps a later accept rule out', () => {
    expect(evaluateRules([review(1)], facts, now, 'change')).toEqual({});
    expect(evaluateRules([review(1), accept(2)], facts, now, 'change')).toEqual({});
    expect(evaluateRules([review(1, { currency: ['eur'] }), accept(2)], facts, now, 'change')).toEqual({
      state: 'accepted',
    });
  });
});
