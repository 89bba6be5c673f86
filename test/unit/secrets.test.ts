import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/secrets.js';

describe('SecretBox', () => {
  it('opens what it sealed, and never seals the same way twice', () => {
    const box = new SecretBox('an-app-secret-of-at-least-32-characters');
    const sealed = box.seal('whsec_abc');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed);
    expect(box.open(sealed)).toBe('whsec_abc');
  });

  it('refuses a sealed secret that was altered, or sealed under another APP_SECRET', () => {
    const box = new SecretBox('an-app-secret-of-at-least-32-characters');
    const sealed = box.seal('credentials');
    const [version, iv, tag, body] = sealed.split('.');
    const flipped = `${body?.[0] === 'A' ? 'B' : 'A'}${body?.slice(1)}`;
    expect(() => box.open([version, iv, tag, flipped].join('.'))).toThrow();
    expect(() => new SecretBox('another-app-secret-of-32-characters!').open(sealed)).toThrow();
    expect(() => box.open('plain text')).toThrow('not a sealed secret');
  });
});
