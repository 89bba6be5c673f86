import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const base = { DATABASE_URL: 'postgres://localhost/x' };

describe('loadConfig', () => {
  it('fills every default', () => {
    expect(loadConfig(base)).toEqual({
      DATABASE_URL: 'postgres://localhost/x',
      PORT: 8443,
      TRUST_PROXY: false,
      DATA_DIR: './.data',
      LOG_LEVEL: 'info',
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: 'rebuttal',
      RATE_LIMIT_PER_SECOND: 100,
      KEY_CACHE_SECONDS: 30,
    });
  });

  it('reads TRUST_PROXY=true and ports', () => {
    expect(loadConfig({ ...base, TRUST_PROXY: 'true', PORT: '9443', HTTP_PORT: '8080' })).toMatchObject({
      TRUST_PROXY: true,
      PORT: 9443,
      HTTP_PORT: 8080,
    });
  });

  it.each([
    [{}, 'invalid configuration: DATABASE_URL is required: a postgres:// connection string'],
    [{ ...base, PORT: 'https' }, 'invalid configuration: PORT: '],
    [{ ...base, PORT: '70000' }, 'PORT'],
    [{ ...base, TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ ...base, LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ...base, RATE_LIMIT_PER_SECOND: '0' }, 'RATE_LIMIT_PER_SECOND'],
    [{ ...base, TLS_CERT_FILE: '/tmp/cert.pem' }, 'set both TLS_CERT_FILE and TLS_KEY_FILE, or neither'],
  ])('refuses to start half-configured: %j', (env, problem) => {
    expect(() => loadConfig(env)).toThrow(problem);
  });
});
