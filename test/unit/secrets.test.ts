import { describe, expect, it } from 'vitest';
import { type SealedAt, SecretBox } from '../../src/secrets.js';
import { sealedTheOldWay } from '../helpers/sealed.js';

const secretA = 'an-app-secret-of-at-least-32-characters';
const secretB = 'another-app-secret-of-32-characters!';
const here: SealedAt = { table: 'webhook_endpoints', column: 'secret', row: 'we_1' };

describe('SecretBox', () => {
  it('opens what it sealed, and never seals the same way twice', () => {
    const box = new SecretBox(secretA);
    const sealed = box.seal('whsec_abc', here);
    expect(sealed).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.seal('whsec_abc', here)).not.toBe(sealed);
    expect(box.open(sealed, here)).toBe('whsec_abc');
  });

  it('refuses a sealed secret that was altered, or sealed under another APP_SECRET', () => {
    const box = new SecretBox(secretA);
    const sealed = box.seal('credentials', here);
    const [version, iv, tag, body] = sealed.split('.');
    const flipped = `${body?.[0] === 'A' ? 'B' : 'A'}${body?.slice(1)}`;
    expect(() => box.open([version, iv, tag, flipped].join('.'), here)).toThrow('does not open');
    expect(() => new SecretBox(secretB).open(sealed, here)).toThrow('does not open');
    expect(() => box.open('plain text', here)).toThrow('not a sealed secret');
  });

  it.each(['v1', 'v2'])(
    'refuses a %s value whose tag is shorter than 16 bytes, though GCM would check it',
    (version) => {
      const box = new SecretBox(secretA);
      const sealed =
        version === 'v1' ? sealedTheOldWay(secretA, 'credentials') : box.seal('credentials', here);
      const [, iv, tag, body] = sealed.split('.');
      for (const bytes of [4, 8, 12, 15]) {
        const short = Buffer.from(tag ?? '', 'base64url')
          .subarray(0, bytes)
          .toString('base64url');
        expect(() => box.open([version, iv, short, body].join('.'), here)).toThrow(
          'not a sealed secret: its tag must be 16 bytes and its IV 12',
        );
      }
    },
  );

  it('does not open a value moved to another row, column or table', () => {
    const box = new SecretBox(secretA);
    const sealed = box.seal('whsec_abc', here);
    for (const elsewhere of [
      { ...here, row: 'we_2' },
      { ...here, column: 'previous_secret' },
      { ...here, table: 'connected_accounts' },
      // The parts are kept apart: moving a character from one to the next is another place.
      { table: 'webhook_endpoints', column: 'secre', row: 'twe_1' },
    ]) {
      expect(() => box.open(sealed, elsewhere)).toThrow('does not open');
    }
  });

  it('opens values sealed before they were bound to their row, wherever they are, and reseals them bound', () => {
    const box = new SecretBox(secretA);
    const old = sealedTheOldWay(secretA, 'credentials');
    expect(box.open(old, here)).toBe('credentials');
    const resealed = box.reseal(old, here);
    expect(resealed).toMatch(/^v2\./);
    expect(box.open(resealed ?? '', here)).toBe('credentials');
    expect(() => box.open(resealed ?? '', { ...here, row: 'we_2' })).toThrow('does not open');
    expect(box.reseal(resealed ?? '', here)).toBeNull();
  });

  it('rotates APP_SECRET: the previous one opens but never seals; reseal moves every value to the current one', () => {
    const sealedUnderA = new SecretBox(secretA).seal('whsec_abc', here);
    const oldUnderA = sealedTheOldWay(secretA, 'credentials');
    const rotating = new SecretBox(secretB, secretA);
    expect(rotating.open(sealedUnderA, here)).toBe('whsec_abc');
    expect(rotating.open(oldUnderA, here)).toBe('credentials');
    expect(() => new SecretBox(secretA).open(rotating.seal('new', here), here)).toThrow('does not open');

    const resealed = [rotating.reseal(sealedUnderA, here), rotating.reseal(oldUnderA, here)];
    // Twice changes nothing.
    expect(resealed.map((value) => rotating.reseal(value ?? '', here))).toEqual([null, null]);
    const afterRotation = new SecretBox(secretB);
    expect(resealed.map((value) => afterRotation.open(value ?? '', here))).toEqual([
      'whsec_abc',
      'credentials',
    ]);
    expect(() => afterRotation.open(sealedUnderA, here)).toThrow('does not open');
    expect(() => rotating.reseal(new SecretBox(secretB.replace('a', 'b')).seal('x', here), here)).toThrow(
      'does not open',
    );
  });
});
