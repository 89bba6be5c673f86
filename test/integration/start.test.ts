import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { get } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageTexts } from '../helpers/pdf-text.js';
import { redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * `npm install && npm start` as a newcomer runs it: in a directory of its own (the repository's sources,
 * a fresh `.data`), with nothing configured but the port and a queue prefix of this file's own. The
 * README's walkthrough is then run as written: its curl commands and its webhook receiver are taken from
 * the README itself, with only the ports and the dispute ids the reader fills in replaced. A restart must
 * find the same organisation, keys and data.
 */

const root = process.cwd();
const prefix = testRedisPrefix();
let work: string;
let receiver: ChildProcess | undefined;
let receiverOutput = '';
let receiverPort: number;
/** Every npm start of this file, stopped at the end whatever happened (a start that timed out included). */
const children: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  output(): string;
  origin: string;
  port: number;
  exited: Promise<number | null>;
}

/** `npm start` in the work directory; resolves once it has printed where it serves. */
async function npmStart(): Promise<Started> {
  const child = spawn('npm', ['start'], {
    cwd: work,
    // Its own process group, so stopping it stops npm and the node process it runs.
    detached: true,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: '0',
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: prefix,
      MOCK_DISPUTE_SECONDS: '10',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  children.push(child);
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 240_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Rebuttal is running at (https:\/\/localhost:\d+)[\s\S]*-u "\$KEY:"\n/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output, origin, port: Number(new URL(origin).port), exited };
}

/**
 * SIGTERM to the service, as a process manager stops it (the pid is the embedded database's lock holder);
 * npm then exits with the service's own exit code.
 */
async function stop(started: Started): Promise<number | null> {
  const pid = Number(await readFile(join(work, '.data', 'pg.lock'), 'utf8'));
  process.kill(pid, 'SIGTERM');
  return started.exited;
}

/** The README's walkthrough: its shell block, as commands (continuation lines joined, comments dropped). */
async function walkthrough(): Promise<string[]> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const block = /<!-- walkthrough:start -->\n```sh\n([\s\S]*?)```\n<!-- walkthrough:end -->/.exec(
    readme,
  )?.[1];
  if (!block) throw new Error('README.md has no walkthrough block');
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('export '));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The command as the reader runs it, pointed at this test's ports. */
function localised(command: string, port: number): string {
  return command
    .replaceAll('localhost:8443', `localhost:${port}`)
    .replaceAll('127.0.0.1:4000', `127.0.0.1:${receiverPort}`)
    .replace('.listen(4000)', `.listen(${receiverPort})`);
}

interface CurlAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Runs one of the README's curl commands in bash, with what the reader has exported. */
async function curl(command: string, port: number, env: Record<string, string>): Promise<CurlAnswer> {
  const { stdout } = await promisify(execFile)(
    'bash',
    ['-c', `${localised(command, port)} --silent --show-error --write-out '\\n%{http_code}'`],
    { env: { PATH: process.env.PATH, ...env }, timeout: 60_000 },
  );
  const lines = stdout.trimEnd().split('\n');
  const status = Number(lines.pop());
  return { status, body: JSON.parse(lines.join('\n')) };
}

function fetchOver(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; type: string; body: Buffer }>((resolve, reject) => {
    get(url, { rejectUnauthorized: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'] ?? '',
          body: Buffer.concat(chunks),
        }),
      );
    }).on('error', reject);
  });
}

async function waitUntil<T>(what: string, check: () => T | undefined, seconds = 30): Promise<T> {
  for (let tries = 0; tries < seconds * 10; tries++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  // A checkout of its own: the sources by link, the package files copied (the build writes dist/ here).
  work = await mkdtemp(join(tmpdir(), 'rebuttal-start-'));
  for (const name of ['src', 'workers', 'drizzle', 'node_modules']) {
    await symlink(join(root, name), join(work, name));
  }
  for (const name of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md']) {
    await copyFile(join(root, name), join(work, name));
  }
  receiverPort = await freePort();
});

afterAll(async () => {
  receiver?.kill();
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
  }
  await rm(work, { recursive: true, force: true });
});

describe('npm start with nothing configured', () => {
  let first: Started;
  let key: string;
  let org: string;
  let password: string;
  let dispute: string;

  it('starts with the embedded database and prints the demo organisation, its keys and the board', async () => {
    first = await npmStart();
    const output = first.output();
    expect(output).toContain(`database    embedded Postgres (PGlite) in .data/pg`);
    key = /test key (test_[\w-]+)/.exec(output)?.[1] ?? '';
    org = /organisation (org_\w+) \(Demo merchant\)/.exec(output)?.[1] ?? '';
    password =
      /user admin, password (\S+) \(generated, kept in \.data\/admin-password\)/.exec(output)?.[1] ?? '';
    expect(key).toMatch(/^test_/);
    expect(output).toMatch(/live key live_[\w-]+/);
    expect(org).toMatch(/^org_/);
    expect(password).toBe((await readFile(join(work, '.data', 'admin-password'), 'utf8')).trim());
    expect(output).toContain(`curl -k "${first.origin}/v1/disputes?limit=3" -u "$KEY:"`);
    expect(existsSync(join(work, '.data', 'pg', 'PG_VERSION'))).toBe(true);
  }, 300_000);

  it('goes through the README walkthrough as written', async () => {
    const commands = await walkthrough();
    const curls = commands.filter((command) => command.startsWith('curl '));
    const receiverCommand = commands.find((command) => command.startsWith('node -e '));
    expect(curls).toHaveLength(12);
    expect(receiverCommand).toBeDefined();
    const env: Record<string, string> = { KEY: key };

    // 1. Two disputes that need a response, mirrored from the mock processor.
    let list: CurlAnswer = { status: 0, body: {} };
    for (let tries = 0; tries < 60; tries++) {
      list = await curl(curls[0] as string, first.port, env);
      if (((list.body.data as unknown[]) ?? []).length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(list.status).toBe(200);
    const disputes = list.body.data as { id: string; state: string; source: string; account: string }[];
    expect(disputes.map(({ state, source, account }) => ({ state, source, account }))).toEqual([
      { state: 'needs_response', source: 'mock', account: 'demo' },
      { state: 'needs_response', source: 'mock', account: 'demo' },
    ]);
    dispute = disputes[0]?.id as string;
    env.DISPUTE = dispute;
    env.OTHER = disputes[1]?.id as string;

    // 2. The receiver, run as the README says, and its subscription.
    receiver = spawn('bash', ['-c', localised(receiverCommand as string, first.port)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    receiver.stdout?.on('data', (chunk: Buffer) => {
      receiverOutput += chunk.toString('utf8');
    });
    const subscribed = await curl(curls[1] as string, first.port, env);
    expect(subscribed.status).toBe(201);
    expect(subscribed.body).toMatchObject({
      object: 'webhook_endpoint',
      endpoint_url: `http://127.0.0.1:${receiverPort}/`,
      events: ['*'],
      enabled: true,
    });
    expect(subscribed.body.secret).toMatch(/^whsec_/);

    // 3. The template.
    const template = await curl(curls[2] as string, first.port, env);
    expect(template.status).toBe(201);
    expect(template.body).toMatchObject({ object: 'template', id: 'fraud', name: 'Fraud' });

    // 4. The receipt, uploaded.
    const uploaded = await curl(curls[3] as string, first.port, env);
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({
      object: 'file',
      filename: 'receipt.png',
      type: 'png',
      pages: null,
    });
    env.FILE = uploaded.body.id as string;

    // 5. Attach, with the receipt, and preview.
    const attached = await curl(curls[4] as string, first.port, env);
    expect(attached.status).toBe(200);
    expect(attached.body).toMatchObject({
      id: dispute,
      template: 'fraud',
      fields: { order_id: 'A-1001' },
      missing_fields: {},
      evidence_files: [
        { file: env.FILE, category: 'receipt', description: 'Receipt e-mailed with the order' },
      ],
    });
    const preview = await curl(curls[5] as string, first.port, env);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ object: 'preview', warnings: [], livemode: false });

    // 6. Submit; the response, its PDF through the signed link, and the receipt through its own.
    const submitted = await curl(curls[6] as string, first.port, env);
    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({ id: dispute, state: 'submitted', submitted_count: 1 });
    // Sent again under its key: the same answer, not 400 dispute_submitted, and nothing submitted twice.
    const repeated = await curl(curls[7] as string, first.port, env);
    expect(repeated).toEqual(submitted);
    const response = await curl(curls[8] as string, first.port, env);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ object: 'response', dispute });
    const pdf = await fetchOver(response.body.response_url as string);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await pageTexts(pdf.body)).join('\n')).toContain('Receipt e-mailed with the order');
    const [receipt] = response.body.files as { file: string; url: string }[];
    expect(receipt?.file).toBe(env.FILE);
    const image = await fetchOver(receipt?.url as string);
    expect(image.status).toBe(200);
    expect(image.body.equals(await readFile(join(root, 'docs', 'examples', 'receipt.png')))).toBe(true);

    // 7. Queue the other.
    const queued = await curl(curls[9] as string, first.port, env);
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({ id: env.OTHER, template: 'fraud' });
    expect(queued.body.state).toBe('queued');

    // 8. The receiver printed the signed dispute.submitted; the event log holds it.
    const delivered = await waitUntil('dispute.submitted at the receiver', () =>
      receiverOutput
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string; dispute: string })
        .find((event) => event.type === 'dispute.submitted' && event.dispute === dispute),
    );
    expect(delivered).toMatchObject({ object: 'webhook', type: 'dispute.submitted', livemode: false });
    const events = await curl(curls[10] as string, first.port, env);
    expect(events.status).toBe(200);
    expect(events.body.object).toBe('list');

    // 9. The statistics by reason count the submitted dispute among those awaiting a decision.
    const stats = await curl(curls[11] as string, first.port, env);
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ object: 'dispute_stats', livemode: false, group_by: ['reason'] });
    const groups = stats.body.groups as { count: number; submitted: number }[];
    expect(groups.reduce((sum, group) => sum + group.submitted, 0)).toBeGreaterThanOrEqual(1);
  }, 180_000);

  it('serves Bull Board and /metrics with the printed credentials, and neither without them', async () => {
    const operator = { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` };
    const board = await fetchOver(`${first.origin}/admin/queues`, operator);
    expect(board.status).toBe(200);
    expect(board.type).toContain('text/html');
    expect((await fetchOver(`${first.origin}/admin/queues`)).status).toBe(401);
    const metrics = await fetchOver(`${first.origin}/metrics`, operator);
    expect(metrics.status).toBe(200);
    const lines = metrics.body.toString().split('\n');
    for (const queue of ['submission', 'webhook', 'mirror', 'deadline']) {
      expect(
        lines.some((line) => line.startsWith(`rebuttal_queue_jobs{queue="${queue}",state="waiting"} `)),
      ).toBe(true);
    }
    expect((await fetchOver(`${first.origin}/metrics`)).status).toBe(401);
  });

  it('restarts on the same data: same organisation, same keys, same disputes, no new keys printed', async () => {
    expect(await stop(first)).toBe(0);
    expect(existsSync(join(work, '.data', 'pg.lock'))).toBe(false);
    const second = await npmStart();
    try {
      const output = second.output();
      expect(output).toContain(`organisation ${org} (Demo merchant)`);
      expect(output).not.toMatch(/test key test_/);
      // The generated password is printed on the start that made it only; later, where it is kept.
      expect(output).toContain('user admin, password in .data/admin-password');
      expect(output).not.toContain(password);
      const again = await fetchOver(`${second.origin}/v1/disputes/${dispute}`, {
        authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      });
      expect(again.status).toBe(200);
      expect(JSON.parse(again.body.toString())).toMatchObject({
        id: dispute,
        state: 'submitted',
        template: 'fraud',
      });
    } finally {
      expect(await stop(second)).toBe(0);
    }
  }, 300_000);
});
