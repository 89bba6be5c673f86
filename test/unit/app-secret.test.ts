import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generatedSecret, loadAppSecret } from '../../src/secrets.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-secret-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('loadAppSecret', () => {
  it('generates one under DATA_DIR with the embedded database, and the same on every later start', async () => {
    const first = await loadAppSecret({ APP_SECRET: undefined, DATA_DIR: dataDir, DATABASE_URL: undefined });
    expect(first).toMatch(/^[\w-]{43}$/);
    expect((await readFile(join(dataDir, 'app-secret'), 'utf8')).trim()).toBe(first);
    expect(await loadAppSecret({ APP_SECRET: undefined, DATA_DIR: dataDir, DATABASE_URL: undefined })).toBe(
      first,
    );
  });

  it('requires APP_SECRET with DATABASE_URL: processes on other machines must share it', async () => {
    await expect(
      loadAppSecret({ APP_SECRET: undefined, DATA_DIR: dataDir, DATABASE_URL: 'postgres://db/x' }),
    ).rejects.toThrow('APP_SECRET is required with DATABASE_URL');
    const set = 'a-secret-set-by-the-operator-of-32-chars';
    expect(await loadAppSecret({ APP_SECRET: set, DATA_DIR: dataDir, DATABASE_URL: 'postgres://db/x' })).toBe(
      set,
    );
  });
});

describe('generatedSecret', () => {
  it('says whether this call made it, and two at once agree on one value', async () => {
    const [a, b] = await Promise.all([generatedSecret(dataDir, 'x'), generatedSecret(dataDir, 'x')]);
    expect(a.value).toBe(b.value);
    expect([a.created, b.created].filter(Boolean)).toHaveLength(1);
    expect((await generatedSecret(dataDir, 'x')).created).toBe(false);
  });

  it('refuses a file too short to be one it made (left empty by a crash elsewhere)', async () => {
    await writeFile(join(dataDir, 'y'), '');
    await expect(generatedSecret(dataDir, 'y')).rejects.toThrow('does not hold a secret this service made');
  });
});
