import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { listenerOrigin, loadConfig, settingNames } from '../../src/config.js';

const base = { DATABASE_URL: 'postgres://localhost/x' };

describe('loadConfig', () => {
  it('fills every default', () => {
    expect(loadConfig(base)).toEqual({
      DATABASE_URL: 'postgres://localhost/x',
      PORT: 8443,
      TRUST_PROXY: false,
      ADMIN_READONLY: false,
      DATA_DIR: './.data',
      LOG_LEVEL: 'info',
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: 'rebuttal',
      queuePrefixTagged: false,
      REDIS_TLS: false,
      RATE_LIMIT_PER_SECOND: 100,
      RATE_LIMIT_RESPONSE_KIB: 32,
      RATE_LIMIT_PERSONAL_DATA_PER_MINUTE: 10,
      RATE_LIMIT_TEST_DISPUTES_PER_MINUTE: 60,
      RATE_LIMIT_STATS_PER_MINUTE: 30,
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 60,
      RATE_LIMIT_READYZ_PER_SECOND: 20,
      KEY_CACHE_SECONDS: 30,
      WORKERS: ['mirror', 'submission', 'deadline', 'webhook'],
      SUBMISSION_CONCURRENCY: 100,
      WEBHOOK_CONCURRENCY: 50,
      MIRROR_CONCURRENCY: 4,
      JOB_LOCK_SECONDS: 30,
      SHUTDOWN_GRACE_SECONDS: 25,
      SHUTDOWN_DRAIN_SECONDS: 5,
      HTTP_KEEP_ALIVE_SECONDS: 5,
      SUBMIT_WAIT_MS: 15_000,
      DEADLINE_SWEEP_SECONDS: 300,
      DUE_SOON_HOURS: 48,
      RENDER_TIMEOUT_MS: 30_000,
      DOCUMENT_LINK_SECONDS: 3600,
      DOCUMENT_MAX_CHARACTERS: 200_000,
      DOCUMENT_MAX_PAGES: 60,
      MOCK_DISPUTE_SECONDS: 30,
      WEBHOOK_ALLOW_PRIVATE: false,
      WEBHOOK_ENDPOINTS_MAX: 16,
      FILES_MAX_BYTES: 1024 ** 3,
    });
  });

  it('defaults to the single-machine start with nothing set: embedded database, loopback only', () => {
    const config = loadConfig({});
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.DEMO).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });

  // Private webhook addresses only while no one but this machine can reach the service and hold a key.
  it.each([
    [{}, '127.0.0.1', true],
    [{ HOST: '' }, '127.0.0.1', true],
    [{ HOST: '::1' }, '::1', true],
    [{ HOST: 'localhost' }, 'localhost', true],
    [{ HOST: '0.0.0.0' }, '0.0.0.0', false],
    [{ HOST: '::' }, '::', false],
    [{ HOST: '192.168.1.20' }, '192.168.1.20', false],
    [{ HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE: 'true' }, '0.0.0.0', true],
    [{ WEBHOOK_ALLOW_PRIVATE: 'false' }, '127.0.0.1', false],
    [base, undefined, false],
    [{ ...base, HOST: '127.0.0.1' }, '127.0.0.1', false],
    [{ ...base, WEBHOOK_ALLOW_PRIVATE: 'true' }, undefined, true],
  ])('with %j listens on HOST %s, private webhook addresses %s', (env, host, allowPrivate) => {
    const config = loadConfig(env);
    expect(config.HOST).toBe(host);
    expect(config.WEBHOOK_ALLOW_PRIVATE).toBe(allowPrivate);
  });

  it.each([
    [undefined, 8443, 'https://localhost:8443'],
    ['127.0.0.1', 8443, 'https://localhost:8443'],
    ['0.0.0.0', 9443, 'https://localhost:9443'],
    ['::', 8443, 'https://localhost:8443'],
    ['10.0.0.5', 8443, 'https://10.0.0.5:8443'],
    ['fd00::5', 8443, 'https://[fd00::5]:8443'],
    ['disputes.internal', 8443, 'https://disputes.internal:8443'],
  ])('names the listener on HOST %s, port %i, as %s for links', (host, port, origin) => {
    expect(listenerOrigin({ HOST: host }, port)).toBe(origin);
  });

  it.each([
    ['0', 0],
    ['10', 10],
  ])('reads MOCK_DISPUTE_SECONDS=%s', (value, expected) => {
    expect(loadConfig({ MOCK_DISPUTE_SECONDS: value }).MOCK_DISPUTE_SECONDS).toBe(expected);
  });

  // The drain is the first part of the grace; without a load balancer (no DATABASE_URL) there is none.
  it.each([
    [{ ...base }, 5],
    [{}, 0],
    [{ ...base, SHUTDOWN_GRACE_SECONDS: '3' }, 1],
    [{ ...base, SHUTDOWN_GRACE_SECONDS: '1' }, 0],
    [{ ...base, SHUTDOWN_GRACE_SECONDS: '0' }, 0],
    [{ ...base, SHUTDOWN_DRAIN_SECONDS: '0' }, 0],
    [{ ...base, SHUTDOWN_GRACE_SECONDS: '10', SHUTDOWN_DRAIN_SECONDS: '9' }, 9],
    [{ SHUTDOWN_DRAIN_SECONDS: '2' }, 2],
  ])('reads SHUTDOWN_DRAIN_SECONDS from %j: %d', (env, expected) => {
    expect(loadConfig(env).SHUTDOWN_DRAIN_SECONDS).toBe(expected);
  });

  it('reads PUBLIC_URL without its trailing slash', () => {
    expect(loadConfig({ ...base, PUBLIC_URL: 'https://disputes.example.com/' }).PUBLIC_URL).toBe(
      'https://disputes.example.com',
    );
  });

  it.each([
    ['all', ['mirror', 'submission', 'deadline', 'webhook']],
    ['none', []],
    ['submission, webhook', ['submission', 'webhook']],
  ])('reads WORKERS=%s', (workers, expected) => {
    expect(loadConfig({ ...base, WORKERS: workers }).WORKERS).toEqual(expected);
  });

  it('takes an ADMIN_PASSWORD of 16 characters', () => {
    expect(loadConfig({ ...base, ADMIN_PASSWORD: '16 characters...' }).ADMIN_PASSWORD).toBe(
      '16 characters...',
    );
  });

  it.each([
    ['false', false],
    ['0', false],
    ['true', true],
    ['1', 1],
    ['2', 2],
    ['10.0.0.7', ['10.0.0.7']],
    ['10.0.0.0/8, 2001:db8::/32,loopback', ['10.0.0.0/8', '2001:db8::/32', 'loopback']],
  ])('reads TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ ...base, TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it('reads TRUST_PROXY=true and ports', () => {
    expect(loadConfig({ ...base, TRUST_PROXY: 'true', PORT: '9443', HTTP_PORT: '8080' })).toMatchObject({
      TRUST_PROXY: true,
      PORT: 9443,
      HTTP_PORT: 8080,
    });
  });

  it.each([
    [
      { MOCK_DISPUTE_SECONDS: '5' },
      'invalid configuration: MOCK_DISPUTE_SECONDS: must be 0 (off) or at least 10',
    ],
    [{ DEMO: 'yes' }, 'DEMO'],
    [{ WORKERS: 'none' }, 'invalid configuration: WORKERS other than all needs DATABASE_URL'],
    [
      { DATABASE_DIRECT_URL: 'postgres://db.internal/rebuttal' },
      'invalid configuration: DATABASE_DIRECT_URL needs DATABASE_URL (the pooled address)',
    ],
    [{ ...base, PORT: 'https' }, 'invalid configuration: PORT: '],
    [{ ...base, PORT: '70000' }, 'PORT'],
    [
      { ...base, TRUST_PROXY: 'yes' },
      "TRUST_PROXY: expected true, false, a number of hops, or addresses and CIDR blocks separated by commas; got 'yes'",
    ],
    [{ ...base, TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ ...base, TRUST_PROXY: '10.0.0.7,' }, 'TRUST_PROXY'],
    [{ ...base, TRUST_PROXY: 'balancer.internal' }, 'TRUST_PROXY'],
    [{ ...base, TRUST_PROXY: '-1' }, 'TRUST_PROXY'],
    [{ ...base, LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ...base, RATE_LIMIT_PER_SECOND: '0' }, 'RATE_LIMIT_PER_SECOND'],
    [{ ...base, RATE_LIMIT_RESPONSE_KIB: '0' }, 'RATE_LIMIT_RESPONSE_KIB'],
    [{ ...base, RATE_LIMIT_PERSONAL_DATA_PER_MINUTE: '0.5' }, 'RATE_LIMIT_PERSONAL_DATA_PER_MINUTE'],
    [{ ...base, RATE_LIMIT_TEST_DISPUTES_PER_MINUTE: '0' }, 'RATE_LIMIT_TEST_DISPUTES_PER_MINUTE'],
    [{ ...base, RATE_LIMIT_STATS_PER_MINUTE: '0' }, 'RATE_LIMIT_STATS_PER_MINUTE'],
    [{ ...base, RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: 'many' }, 'RATE_LIMIT_AUTH_FAILURES_PER_MINUTE'],
    [{ ...base, RATE_LIMIT_READYZ_PER_SECOND: '-1' }, 'RATE_LIMIT_READYZ_PER_SECOND'],
    [{ ...base, TLS_CERT_FILE: '/tmp/cert.pem' }, 'set both TLS_CERT_FILE and TLS_KEY_FILE, or neither'],
    [
      { ...base, WORKERS: 'submissions' },
      "WORKERS: expected all, none, or some of mirror, submission, deadline, webhook; got 'submissions'",
    ],
    [{ ...base, WORKERS: ',' }, 'WORKERS: expected all, none'],
    [{ ...base, APP_SECRET: 'short' }, 'APP_SECRET must be at least 32 characters'],
    [
      { ...base, ADMIN_PASSWORD: 'x' },
      'invalid configuration: ADMIN_PASSWORD must be at least 16 characters',
    ],
    [{ ...base, ADMIN_PASSWORD: '15 characters..' }, 'ADMIN_PASSWORD must be at least 16 characters'],
    [{ ...base, JOB_LOCK_SECONDS: '0' }, 'JOB_LOCK_SECONDS'],
    [
      { ...base, SHUTDOWN_GRACE_SECONDS: '10', SHUTDOWN_DRAIN_SECONDS: '11' },
      'invalid configuration: SHUTDOWN_DRAIN_SECONDS (11) must be less than SHUTDOWN_GRACE_SECONDS (10): the drain is part of the grace, and the rest answers the requests in flight',
    ],
    [
      { ...base, SHUTDOWN_GRACE_SECONDS: '10', SHUTDOWN_DRAIN_SECONDS: '10' },
      'invalid configuration: SHUTDOWN_DRAIN_SECONDS (10) must be less than SHUTDOWN_GRACE_SECONDS (10): the drain is part of the grace, and the rest answers the requests in flight',
    ],
    [{ ...base, SHUTDOWN_DRAIN_SECONDS: '-1' }, 'SHUTDOWN_DRAIN_SECONDS'],
    [{ ...base, MOCK_PROCESSOR_URL: 'ftp://x' }, 'MOCK_PROCESSOR_URL'],
    [{ ...base, PUBLIC_URL: 'disputes.example.com' }, 'PUBLIC_URL'],
    [{ ...base, DOCUMENT_LINK_SECONDS: '10' }, 'DOCUMENT_LINK_SECONDS'],
    [{ ...base, DOCUMENT_MAX_CHARACTERS: '0' }, 'DOCUMENT_MAX_CHARACTERS'],
    [{ ...base, DOCUMENT_MAX_PAGES: 'many' }, 'DOCUMENT_MAX_PAGES'],
    [{ ...base, WEBHOOK_ENDPOINTS_MAX: '0' }, 'WEBHOOK_ENDPOINTS_MAX'],
    [
      { DATABASE_URL: 'postgres://db/x?sslmode=verify' },
      "invalid configuration: DATABASE_URL: sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full; got 'verify'",
    ],
    [
      { DATABASE_URL: 'postgres://db/x?sslmode=verify-full&sslrootcert=/etc/ca.pem' },
      'invalid configuration: DATABASE_URL: the parameter sslrootcert is not taken: give sslmode (require, verify-ca or verify-full) in the URL and a private CA in DATABASE_CA_FILE',
    ],
    [{ DATABASE_URL: 'postgres://db/x?ssl=true' }, 'DATABASE_URL: the parameter ssl is not taken'],
    ...['', 'postgres://db/x', 'postgres://db/x?sslmode=disable', 'postgres://db/x?sslmode=prefer'].map(
      (url): [Record<string, string>, string] => [
        { DATABASE_URL: url, DATABASE_CA_FILE: '/etc/ca.pem' },
        'invalid configuration: DATABASE_CA_FILE is set, but DATABASE_URL has no sslmode that verifies the server: add sslmode=verify-full (or verify-ca) to it',
      ],
    ),
    [
      { DATABASE_URL: 'postgres://pooler/x', DATABASE_DIRECT_URL: 'postgres://db/x?sslmode=full' },
      "invalid configuration: DATABASE_DIRECT_URL: sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full; got 'full'",
    ],
    [
      {
        DATABASE_URL: 'postgres://pooler/x?sslmode=verify-full',
        DATABASE_DIRECT_URL: 'postgres://db/x',
        DATABASE_CA_FILE: '/etc/ca.pem',
      },
      'invalid configuration: DATABASE_CA_FILE is set, but DATABASE_DIRECT_URL has no sslmode that verifies the server: add sslmode=verify-full (or verify-ca) to it',
    ],
  ])('refuses to start half-configured: %j', (env, problem) => {
    expect(() => loadConfig(env)).toThrow(problem);
  });

  it('takes libpq sslmodes and a CA file for a mode that verifies, and never shows the URL in a refusal', () => {
    for (const mode of ['require', 'verify-ca', 'verify-full']) {
      const url = `postgres://app:pw@h1:5432,h2:5433/x?sslmode=${mode}&sslnegotiation=direct`;
      expect(loadConfig({ DATABASE_URL: url, DATABASE_CA_FILE: '/etc/ca.pem' })).toMatchObject({
        DATABASE_URL: url,
        DATABASE_CA_FILE: '/etc/ca.pem',
      });
    }
    expect(() => loadConfig({ DATABASE_URL: 'postgres://app:s3cret@db/x?sslmode=on' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('s3cret') }),
    );
  });

  it("has every setting in docs/operations.md's configuration table, and nothing else there", async () => {
    const manual = await readFile('docs/operations.md', 'utf8');
    const start = manual.indexOf('\n## Configuration\n');
    expect(start).toBeGreaterThanOrEqual(0);
    const end = manual.indexOf('\n## ', start + 1);
    const section = manual.slice(start, end === -1 ? undefined : end);
    // Table cells, split on the pipes that are not escaped (`a\|b` inside a cell is one cell).
    const cells = (row: string) =>
      row
        .replace(/^\|/, '')
        .replace(/\|\s*$/, '')
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim());
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    const documented = rows.flatMap((row) =>
      [...(cells(row)[0] ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]),
    );
    expect(documented.toSorted()).toEqual([...settingNames].sort());
    // Each setting with its default and its meaning.
    for (const row of rows) {
      expect(cells(row), row).toHaveLength(3);
      expect(
        cells(row).every((cell) => cell !== ''),
        row,
      ).toBe(true);
    }
  });
});
