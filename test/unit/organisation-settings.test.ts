import { describe, expect, it } from 'vitest';
import { parseSettingsChange } from '../../src/domain/organisation-settings.js';

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
