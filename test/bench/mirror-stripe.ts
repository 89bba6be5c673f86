import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { connectDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { connectedAccounts, disputes, events } from '../../src/db/schema/index.js';
import { pollAccount } from '../../src/features/mirroring/poll.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { sealedAt } from '../../src/features/secrets/sealed-columns.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import type { NormalizedDispute, ProcessorConnection } from '../../src/processors/types.js';
import { SecretBox } from '../../src/secrets.js';
import { stripeFakeCredentials } from '../fakes/stripe.js';
import { noAlertRefunds } from '../helpers/alert-refunds.js';
import { ensurePostgres } from '../helpers/services.js';
import {
  createBenchDatabase,
  describeMachine,
  onCleanup,
  quick,
  resultLine,
  root,
  runBench,
} from './lib/harness.js';
import { rawJsonUpsert } from './lib/raw-upsert.js';

/** Starts lib/stripe-fake-process.ts holding `count` disputes; its URL once it listens. */
function startFakeStripe(count: number): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'test/bench/lib/stripe-fake-process.ts'), String(count)],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  onCleanup(async () => {
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the fake Stripe exited (${code})`)));
    child.stdout.setEncoding('utf8');
    child.stdout.once('data', (line: string) => resolve(line.trim()));
  });
}

/**
 * Mirroring a Stripe account end to end: 50,000 disputes (5,000 with --quick) held by the fake Stripe
 * (test/fakes/stripe.ts, a real HTTP server on loopback, in a process of its own as a processor is) and
 * listed 100 a page by the real adapter (HTTP,
 * JSON, zod, mapping), through the mirror job's service (features/mirroring/poll.ts: each page locked,
 * upserted with the ownership and state rules, passed through the arrival rules, its events written, the
 * cursor moved, committed), against the raw batched upsert of the same pages (one JSON parameter a page,
 * no transaction, events or rules: the job-engine mirror bench's baseline), in the same process and the
 * same database. The two alternate in rounds so each writes into tables of the same size. The per-account
 * rate limit is left out (no guards): it would measure the limit, not the mirror. Target: >= 0.3 of the
 * raw upsert's disputes/s.
 */

const disputeCount = quick ? 5_000 : 50_000;
const pageSize = 100;
const rounds = 10;
const pagesPerRound = Math.ceil(disputeCount / pageSize / rounds);
const target = 0.3;

await runBench(async () => {
  console.log(
    `mirror-stripe bench${quick ? ' (--quick)' : ''}: ${describeMachine()}; ${disputeCount} disputes from the ` +
      `fake Stripe in pages of ${pageSize}, ${rounds} alternating rounds of ${pagesPerRound} pages`,
  );
  await ensurePostgres();
  const database = await createBenchDatabase();
  const connection = connectDatabase(database.url, { max: 2 });
  onCleanup(() => connection.close());
  const { db } = connection;
  await runMigrations(db);

  const seeding = Date.now();
  const stripeUrl = await startFakeStripe(disputeCount);
  console.log(
    `fake Stripe (own process) holds ${disputeCount} disputes (${Date.now() - seeding} ms to start)`,
  );

  const secrets = new SecretBox('bench-secret-of-at-least-32-characters!');
  const adapters = createAdapterRegistry();
  const deps = { db, adapters, secrets, alertRefunds: noAlertRefunds };
  const org = async (name: string) => (await createOrganisation(db, { name })).org;
  const [ours, rawOrg] = [await org('Mirror'), await org('Raw JSON')];
  const uid = randomUUID();
  const [account] = await db
    .insert(connectedAccounts)
    .values({
      uid,
      orgId: ours,
      livemode: false,
      id: 'default',
      processor: 'stripe',
      credentials: secrets.seal(JSON.stringify(stripeFakeCredentials), sealedAt('accountCredentials', uid)),
      baseUrl: stripeUrl,
    })
    .returning();
  if (!account) throw new Error('no account');

  // The raw side writes the very pages the adapter lists, listed up front: only its statements are timed.
  const listing = performance.now();
  const pages = await listAll({
    account: { uid: account.uid, id: account.id, livemode: false },
    credentials: JSON.stringify(stripeFakeCredentials),
    baseUrl: stripeUrl,
    readOnly: false,
  });
  const listMs = performance.now() - listing;
  const raw = rawJsonUpsert(connection.sql, rawOrg, pages[0]?.[0] as NormalizedDispute);

  const ms = { raw: 0, mirror: 0 };
  for (let round = 0; round < rounds; round++) {
    let started = performance.now();
    for (const page of pages.slice(round * pagesPerRound, (round + 1) * pagesPerRound)) await raw(page);
    ms.raw += performance.now() - started;
    started = performance.now();
    const result = await pollAccount(deps, account.uid, { pageSize, maxPages: pagesPerRound });
    ms.mirror += performance.now() - started;
    if (result.outcome !== 'polled') throw new Error(`poll ${result.outcome}`);
  }

  const stored = await db.$count(disputes, eq(disputes.orgId, ours));
  const recorded = await db.$count(events, eq(events.orgId, ours));
  const rawStored = await db.$count(disputes, eq(disputes.orgId, rawOrg));
  if (stored !== disputeCount || recorded !== disputeCount || rawStored !== disputeCount) {
    throw new Error(`expected ${disputeCount} each; mirror ${stored}/${recorded} events, raw ${rawStored}`);
  }

  const rate = (elapsed: number) => disputeCount / (elapsed / 1000);
  const line = (label: string, elapsed: number) =>
    `${label.padEnd(48)} ${rate(elapsed).toFixed(0).padStart(7)} disputes/s  (${(elapsed / 1000).toFixed(2)} s)`;
  console.log(line('adapter listing alone (HTTP, JSON, zod, mapping)', listMs));
  console.log(line('raw upsert, one JSON parameter a page (baseline)', ms.raw));
  console.log(line('mirror job (list from Stripe, upsert, events)', ms.mirror));
  const ratio = rate(ms.mirror) / rate(ms.raw);
  console.log(
    `mirror-stripe: ${ratio.toFixed(3)} of the raw upsert (target >= ${target}: ${ratio >= target ? 'met' : 'NOT met'})`,
  );
  console.log(resultLine('mirror-stripe', rate(ms.mirror), 'disputes/s', ratio, target));

  async function listAll(connected: ProcessorConnection): Promise<NormalizedDispute[][]> {
    const adapter = adapters.forAccount({ processor: 'stripe' });
    const all: NormalizedDispute[][] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = await adapter.listDisputes({ connection: connected, cursor, limit: pageSize });
      if (page.disputes.length > 0) all.push(page.disputes);
      cursor = page.nextCursor;
      if (!page.hasMore) return all;
    }
  }
});
