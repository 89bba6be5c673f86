import { describe, expect, it } from 'vitest';
import { applyAlertRefundChanges, parseSettingsChange } from '../../src/domain/organisation-settings.js';

describe('allowed origins (org settings --allowed-origin)', () => {
  it.each([
    ['https://shop.example.com', 'https://shop.example.com'],
    ['https://shop.example.com/', 'https://shop.example.com'],
    ['HTTPS://Shop.Example.com:443', 'https://shop.example.com'],
    ['https://shop.example.com:8443', 'https://shop.example.com:8443'],
    ['http://localhost:3000', 'http://localhost:3000'],
  ])('takes %s as %s', (given, stored) => {
    expect(parseSettingsChange({ allowedOrigins: [given] }).allowedOrigins).toEqual([stored]);
  });

  it.each([
    'shop.example.com',
    'https://shop.example.com/path',
    'https://shop.example.com?x=1',
    'https://user@shop.example.com',
    'ftp://shop.example.com',
    'null',
    '*',
    '',
  ])('refuses %j', (given) => {
    const message = `allowed origin must be a scheme, host and optional port, as https://shop.example.com, not ${JSON.stringify(given)}`;
    expect(() => parseSettingsChange({ allowedOrigins: [given] })).toThrow(message);
    expect(() => parseSettingsChange({ removeAllowedOrigins: [given] })).toThrow(message);
  });
});

describe('alert refund thresholds (org settings --mode <mode> --alert-refund-up-to)', () => {
  it.each([
    ['usd:5000', { currency: 'usd', amount: 5000 }],
    ['USD:5000', { currency: 'usd', amount: 5000 }],
    ['eUr:0', { currency: 'eur', amount: 0 }],
    [' jpy:1000000000000 ', { currency: 'jpy', amount: 1_000_000_000_000 }],
    ['gbp:none', { currency: 'gbp', amount: null }],
    ['GBP:NONE', { currency: 'gbp', amount: null }],
    ['none', { all: 'none' }],
    ['None', { all: 'none' }],
  ])('takes %j as %j', (given, change) => {
    expect(parseSettingsChange({ mode: 'test', alertRefundUpTo: [given] }).alertRefundUpTo).toEqual([change]);
  });

  it.each([
    ['usd', 'must be <currency>:<amount in minor units>, <currency>:none or none, not "usd"'],
    ['5000', 'must be <currency>:<amount in minor units>, <currency>:none or none, not "5000"'],
    ['', 'must be <currency>:<amount in minor units>, <currency>:none or none, not ""'],
    ['dollars:5', 'must be <currency>:<amount in minor units>, <currency>:none or none, not "dollars:5"'],
    ['xyz:5000', '"xyz:5000": "xyz" is not a known currency'],
    ['ZZZ:none', '"ZZZ:none": "ZZZ" is not a known currency'],
    ['usd:-1', '"usd:-1": the amount must be a whole number of minor units from 0 to 1000000000000, or none'],
    [
      'usd:1.5',
      '"usd:1.5": the amount must be a whole number of minor units from 0 to 1000000000000, or none',
    ],
    ['usd:', '"usd:": the amount must be a whole number of minor units from 0 to 1000000000000, or none'],
    [
      'usd:1e3',
      '"usd:1e3": the amount must be a whole number of minor units from 0 to 1000000000000, or none',
    ],
    [
      'usd:1000000000001',
      '"usd:1000000000001": the amount must be a whole number of minor units from 0 to 1000000000000, or none',
    ],
  ])('refuses %j', (given, message) => {
    expect(() => parseSettingsChange({ mode: 'live', alertRefundUpTo: [given] })).toThrow(
      `alert refund threshold ${message}`,
    );
  });

  it('needs a mode', () => {
    expect(() => parseSettingsChange({ alertRefundUpTo: ['usd:5000'] })).toThrow(
      'alert refund thresholds belong to a mode: give --mode test or --mode live',
    );
  });

  it.each([
    [{}, ['usd:5000', 'eur:300'], { usd: 5000, eur: 300 }],
    [{ usd: 5000, eur: 300 }, ['usd:none'], { eur: 300 }],
    [{ usd: 5000, eur: 300 }, ['none'], {}],
    [{ usd: 5000 }, ['none', 'gbp:100'], { gbp: 100 }],
    [{ usd: 5000 }, ['usd:7000', 'usd:none'], {}],
    [{}, ['chf:none'], {}],
  ])('applied to %j, %j gives %j', (current, given, after) => {
    const { alertRefundUpTo } = parseSettingsChange({ mode: 'test', alertRefundUpTo: given });
    expect(applyAlertRefundChanges(current, alertRefundUpTo ?? [])).toEqual(after);
  });
});

describe('visa compliance fee (org settings --visa-compliance-fee)', () => {
  it.each(['accept', 'refuse'] as const)('takes %s', (given) => {
    expect(parseSettingsChange({ visaComplianceFee: given }).visaComplianceFee).toBe(given);
  });
  it.each(['yes', 'ACCEPT', ''])('refuses %j', (given) => {
    expect(() => parseSettingsChange({ visaComplianceFee: given as 'accept' })).toThrow(
      `visa compliance fee must be accept or refuse, not ${JSON.stringify(given)}`,
    );
  });
});
