import { eq, type SQL, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { connectDatabase, type Db } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { connectedAccounts, disputes, events } from '../../src/db/schema/index.js';
import { pollAccount } from '../../src/features/mirroring/poll.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { MockDisputeWorld } from '../../src/processors/mock/world.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import type { NormalizedDispute } from '../../src/processors/types.js';
import { SecretBox } from '../../src/secrets.js';
import { noAlertRefunds } from '../helpers/alert-refunds.js';
import { ensurePostgres } from '../helpers/services.js';
import {
  createBenchDatabase,
  describeMachine,
  onCleanup,
  quick,
  resultLine,
  runBench,
} from './lib/harness.js';
import { pageKeys, rawJsonUpsert } from './lib/raw-upsert.js';

/**
 * Mirror write path: the mock processor's fixed dataset (50,000 disputes; 5,000 with --quick) through the
 * real mirror path (features/mirroring/poll.ts lists a page; features/mirroring/write.ts locks the account and the
 * page's rows, runs the one upsert with the ownership and state rules, passes new disputes through the
 * arrival rules, writes the page's events with the full dispute object each, moves the cursor, commits)
 * against raw batched INSERT ... ON CONFLICT DO UPDATE statements of the same pages (one a page, no
 * transaction, events or rules), each into an organisation of its own in the same database:
 * - `raw, one JSON parameter`: the page sent the way the mirror sends it; the RESULT's baseline;
 * - `raw, multi-row VALUES`: the drizzle `insert().values(page).onConflictDoUpdate()` this codebase would
 *   write by default (about 3,000 parameters a page), for reference.
 * The three alternate in rounds, so that each writes into tables of the same size. Target: the mirror at
 * >= 0.5 of the JSON raw upsert's disputes/s.
 */

const disputeCount = quick ? 5_000 : 50_000;
const pageSize = 100;
const rounds = 10;
const pagesPerRound = Math.ceil(disputeCount / pageSize / rounds);
const target = 0.5;

await runBench(async () => {
  console.log(
    `mirror bench${quick ? ' (--quick)' : ''}: ${describeMachine()}; ${disputeCount} disputes in pages of ` +
      `${pageSize}, ${rounds} alternating rounds of ${pagesPerRound} pages`,
  );
  await ensurePostgres();
  const database = await createBenchDatabase();
  const connection = connectDatabase(database.url, { max: 2 });
  onCleanup(() => connection.close());
  const { db } = connection;
  await runMigrations(db);

  const world = new MockDisputeWorld({ seed: 42, initialDisputes: disputeCount, live: false });
  const adapters = createAdapterRegistry({ mock: new MockAdapter({ world }) });
  const deps = {
    db,
    adapters,
    secrets: new SecretBox('bench-secret-of-at-least-32-characters!'),
    alertRefunds: noAlertRefunds,
  };
  const org = async (name: string) => (await createOrganisation(db, { name })).org;
  const [ours, rawJsonOrg, rawValuesOrg] = [
    await org('Mirror'),
    await org('Raw JSON'),
    await org('Raw VALUES'),
  ];
  const [account] = await db
    .insert(connectedAccounts)
    .values({ orgId: ours, livemode: false, id: 'default', processor: 'mock' })
    .returning();
  if (!account) throw new Error('no account');

  // The raw sides write the very pages the adapter lists, listed up front: only their statements are timed.
  const generating = Date.now();
  const pages = listAll(world, account);
  console.log(`mock processor listed ${pages.length} pages in ${Date.now() - generating} ms`);
  const rawJson = rawJsonUpsert(connection.sql, rawJsonOrg, pages[0]?.[0] as NormalizedDispute);
  const rawValues = (page: NormalizedDispute[]) => rawValuesUpsert(db, rawValuesOrg, page);

  const ms = { rawJson: 0, rawValues: 0, ours: 0 };
  for (let round = 0; round < rounds; round++) {
    const share = pages.slice(round * pagesPerRound, (round + 1) * pagesPerRound);
    let started = performance.now();
    for (const page of share) await rawJson(page);
    ms.rawJson += performance.now() - started;
    started = performance.now();
    for (const page of share) await rawValues(page);
    ms.rawValues += performance.now() - started;
    started = performance.now();
    const result = await pollAccount(deps, account.uid, { pageSize, maxPages: pagesPerRound });
    ms.ours += performance.now() - started;
    if (result.outcome !== 'polled') throw new Error(`poll ${result.outcome}`);
  }

  const count = (orgId: string) => db.$count(disputes, eq(disputes.orgId, orgId));
  const stored = [await count(ours), await db.$count(events, eq(events.orgId, ours))];
  const rawStored = [await count(rawJsonOrg), await count(rawValuesOrg)];
  if ([...stored, ...rawStored].some((n) => n !== disputeCount)) {
    throw new Error(`expected ${disputeCount} each; mirror ${stored.join('/')}, raw ${rawStored.join('/')}`);
  }

  // An identical re-poll from the start: every row read, locked and compared; none written, no events.
  await db.update(connectedAccounts).set({ cursor: null }).where(eq(connectedAccounts.uid, account.uid));
  const repolling = performance.now();
  const again = await pollAccount(deps, account.uid, { pageSize, maxPages: Number.POSITIVE_INFINITY });
  const repollMs = performance.now() - repolling;
  if (again.outcome !== 'polled' || again.unchanged !== disputeCount || again.updated !== 0) {
    throw new Error(`re-poll wrote something: ${JSON.stringify({ ...again, foreign: undefined })}`);
  }

  const rate = (elapsed: number) => disputeCount / (elapsed / 1000);
  const line = (label: string, elapsed: number) =>
    `${label.padEnd(46)} ${rate(elapsed).toFixed(0).padStart(7)} disputes/s  (${(elapsed / 1000).toFixed(2)} s, ` +
    `${((elapsed / disputeCount) * pageSize).toFixed(2)} ms a page)`;
  console.log(line('raw upsert, one JSON parameter (baseline)', ms.rawJson));
  console.log(line('raw upsert, multi-row VALUES (reference)', ms.rawValues));
  console.log(line('mirror (list, upsert, diff, events, cursor)', ms.ours));
  console.log(line('mirror, identical re-poll (nothing written)', repollMs));
  const ratio = rate(ms.ours) / rate(ms.rawJson);
  console.log(
    `mirror: ${ratio.toFixed(3)} of the JSON raw upsert (target >= ${target}: ${ratio >= target ? 'met' : 'NOT met'}); ` +
      `${(rate(ms.ours) / rate(ms.rawValues)).toFixed(3)} of the multi-row VALUES one`,
  );
  console.log(resultLine('mirror', rate(ms.ours), 'disputes/s', ratio, target));
});

function listAll(world: MockDisputeWorld, account: { uid: string; id: string; livemode: boolean }) {
  const pages: NormalizedDispute[][] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = world.account(account).list(cursor, pageSize);
    pages.push(page.disputes);
    cursor = page.nextCursor;
    if (!page.hasMore) return pages;
  }
}

/** The same upsert as drizzle builds it from the rows: one parameter a value. */
async function rawValuesUpsert(db: Db, orgId: string, page: NormalizedDispute[]): Promise<void> {
  const set: Record<string, SQL> = {};
  for (const key of pageKeys(page[0] as NormalizedDispute)) {
    if (key !== 'id') set[key] = sql.raw(`excluded.${toSnakeCase(key)}`);
  }
  await db
    .insert(disputes)
    .values(
      page.map((dispute) => ({ ...dispute, orgId, livemode: false, source: 'mock', account: 'default' })),
    )
    .onConflictDoUpdate({ target: [disputes.orgId, disputes.livemode, disputes.id], set });
}
