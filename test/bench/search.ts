import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type postgres from 'postgres';
import { connectDatabase } from '../../src/db/client.js';
import { rotateApiKey } from '../../src/features/organisations/organisations.js';
import { loadTls } from '../../src/tls.js';
import { ensurePostgres, postgresAdminUrl, withDatabase } from '../helpers/services.js';
import {
  type ChildServer,
  databaseBackends,
  describeMachine,
  disturbance,
  formatMeasurement,
  freePort,
  getJson,
  load,
  type Measurement,
  onCleanup,
  quick,
  resultLine,
  runBench,
  startServer,
  startWebService,
} from './lib/harness.js';
import { type PostgresTap, startPostgresTap } from './lib/postgres-tap.js';
import { keptSearchDatabase } from './lib/search-database.js';
import {
  type DisputeJson,
  type Search,
  sampleValues,
  searchVariants,
  type Variant,
} from './lib/search-queries.js';

/**
 * Search on GET /v1/disputes over 1,000,000 disputes of one organisation (100,000 with --quick), kept in
 * a database of their own between runs (lib/search-database.ts). Through the real HTTPS API of the
 * service in its own process (as the api bench runs it), one request at a time on one keep-alive
 * connection: a page of 10 and of 100 for each filter alone, the common pairs, and
 * `include[]=total_count` with a few filters. For each request the bench also takes the time the
 * service's statements spent in Postgres, measured on the wire by a relay in front of the database
 * (lib/postgres-tap.ts). Then load: the searches of 10 through autocannon, against the read bench's
 * second baseline (a bare Express handler doing one prepared select).
 *
 * Targets: every page's p95 under 20 ms (issue 19), through the API and in the database alike; a count
 * by state at 0.8 of Postgres counting the whole tenant by state itself (one pass); search under load at
 * 0.5 of the one-select baseline, as the list of 100 in the api bench (a search page reads at least the
 * page and the disputes not cached, two statements where the baseline runs one).
 */

const disputeCount = quick ? 100_000 : 1_000_000;
const limits = [10, 100];
/** Measured requests per variant, and a time bound per variant so that a slow search cannot stall the run. */
const perVariant = quick
  ? { requests: 12, warmups: 1, seconds: 0.25 }
  : { requests: 200, warmups: 10, seconds: 3 };
const connections = 32;
// --quick keeps the whole `npm run bench -- --quick` near a minute: its p95s are about the slowest of 12.
const seconds = quick ? 1.5 : 10;
const warmupSeconds = quick ? 0.5 : 2;
const pageBudgetMs = 20;
const target = { page: 1, count: 0.8, searchDb: 0.5 };

interface Figures {
  variant: Variant;
  api: number[];
  db: number[];
  /** Requests answered 503: a statement passed the service's bound on database waits (1.5 s). */
  unavailable: number;
  /** Some page held a dispute the search excludes: the service ignored the filter. */
  ignored: boolean;
  slowest: { sql: string; ms: number };
}

await runBench(async () => {
  console.log(
    `search bench${quick ? ' (--quick)' : ''}: ${describeMachine()}; ${disputeCount} disputes; ` +
      `up to ${perVariant.requests} requests a search, one at a time, then ${connections} connections`,
  );
  await ensurePostgres();
  const database = await keptSearchDatabase(disputeCount);
  const prepared = database.reused
    ? `reused ${database.name} (${database.migrationsApplied} new migrations applied)`
    : `seeded ${database.name}`;
  console.log(`${prepared} in ${database.seconds.toFixed(1)} s`);

  const db = connectDatabase(database.url, { max: 1 });
  let key: string;
  let samples: Awaited<ReturnType<typeof sampleValues>>;
  let countBaselineMs: number;
  try {
    // Keys are kept only hashed: each run makes its own.
    const rotated = await rotateApiKey(db.db, { org: database.org, mode: 'test' });
    if (!rotated) throw new Error(`${database.name} has no organisation ${database.org}`);
    key = rotated.key;
    samples = await sampleValues(db.sql, database.org);
    countBaselineMs = await countByState(db.sql, database.org);
  } finally {
    await db.close();
  }

  const dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-bench-'));
  onCleanup(() => rm(dataDir, { recursive: true, force: true }));
  await loadTls({ DATA_DIR: dataDir });
  const postgresAt = new URL(postgresAdminUrl);
  const tap = await startPostgresTap({ host: postgresAt.hostname, port: Number(postgresAt.port || 5432) });
  onCleanup(tap.close);
  const tapUrl = new URL(withDatabase(postgresAdminUrl, database.name));
  tapUrl.port = String(tap.port);
  tapUrl.searchParams.set('sslmode', 'disable');

  const started = Date.now();
  // One behind the relay, timed one request at a time; one direct, for load (the relay would be in its
  // path); the baseline. Started together: on two cores, one after another would double the wait.
  const [tapped, direct, bareDb] = await Promise.all([
    startWebService('service (timed)', tapUrl.toString(), dataDir),
    startWebService('service', database.url, dataDir),
    freePort().then((port) =>
      startServer('bare express + select', 'test/bench/lib/bare-db-server.ts', {
        PORT: String(port),
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        ORG_ID: database.org,
      }),
    ),
  ]);
  console.log(`services up in ${Date.now() - started} ms`);

  const headers = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
  const variants = searchVariants(samples, limits, perVariant.requests + perVariant.warmups);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  onCleanup(async () => agent.destroy());
  // Warm-up (statements prepared, code compiled) with the last searches of each list, which the measured
  // requests do not use first: their pages stay out of the service's object cache until measured.
  const searching = Date.now();
  const ignored = new Set<string>();
  for (const variant of variants) {
    for (const search of variant.searches.slice(perVariant.requests)) {
      const answer = await ask(tapped, headers, agent, search, variant.counts);
      if (!answer.applied) ignored.add(variant.name);
      if (answer.unavailable) await settle(tap);
    }
  }
  const figures: Figures[] = [];
  for (const variant of variants) {
    const measured = await measure(tapped, headers, variant, agent, tap);
    if (measured.ignored) ignored.add(variant.name);
    figures.push(measured);
  }
  printTable(figures);
  console.log(`searches warmed up and measured in ${Date.now() - searching} ms`);
  if (ignored.size > 0) {
    console.log(
      `WARNING: the service ignored ${[...ignored].join(', ')}: its pages held disputes the search excludes ` +
        "(or lacked total_count); those figures are the unfiltered list's",
    );
  }

  // Load: every page-of-10 search in turn, against one prepared select on the same database.
  const searchPaths = variants
    .filter((variant) => variant.limit === limits[0] && !variant.counts)
    .flatMap((variant) => variant.searches.map((search) => search.path));
  const loadWith = async (label: string, server: ChildServer, paths: string[]) => {
    const options = { paths, headers, connections, backends: () => databaseBackends(database.name) };
    await load(`${label} (warm-up)`, server, { ...options, seconds: warmupSeconds });
    const measurement = await load(label, server, { ...options, seconds });
    console.log(formatMeasurement(measurement));
    return measurement;
  };
  const ids = samples.ids.map((id) => `/v1/disputes/${id}`);
  const selectBaseline = await loadWith('bare express (one prepared select)', bareDb, ids);
  let search: Measurement | null = null;
  try {
    search = await loadWith('GET /v1/disputes?<search>&limit=10', direct, searchPaths);
  } catch (error) {
    // Searches too slow for the load (the service bounds each request's wait for the database: 503) are
    // a finding, not a broken bench: reported as 0, with the other figures.
    console.log(`search under load failed: ${error instanceof Error ? error.message : error}`);
  }
  const warning = disturbance(search ? [selectBaseline, search] : [selectBaseline]);
  if (warning) console.log(warning);
  report(figures, countBaselineMs);
  const searchRate = search?.requestsPerSecond ?? 0;
  console.log(
    resultLine(
      'api_search_db',
      searchRate,
      'req/s',
      searchRate / selectBaseline.requestsPerSecond,
      target.searchDb,
    ),
  );
});

/** The worst searches, and the RESULT lines of the one-at-a-time figures. */
function report(figures: Figures[], countBaselineMs: number): void {
  const p95 = (values: number[]) => percentile(values, 0.95);
  const worst = (list: Figures[], pick: (f: Figures) => number[]) =>
    list.reduce((a, b) => (p95(pick(a)) >= p95(pick(b)) ? a : b));
  const pages = figures.filter((f) => !f.variant.counts);
  const worstApi = worst(pages, (f) => f.api);
  const worstDb = worst(pages, (f) => f.db);
  const worstCount = worst(
    figures.filter((f) => f.variant.counts),
    (f) => f.api,
  );
  console.log(
    `worst page through the API: ${describe(worstApi)}, p95 ${p95(worstApi.api).toFixed(1)} ms; ` +
      `in the database: ${describe(worstDb)}, p95 ${p95(worstDb.db).toFixed(1)} ms; its slowest statement ` +
      `(${worstDb.slowest.ms.toFixed(1)} ms): ${worstDb.slowest.sql.replace(/\s+/g, ' ')}`,
  );
  console.log(
    `counts: worst ${describe(worstCount)}, p95 ${p95(worstCount.api).toFixed(1)} ms; Postgres counting ` +
      `the tenant by state itself: ${countBaselineMs.toFixed(1)} ms`,
  );
  const unavailable = figures.reduce((sum, f) => sum + f.unavailable, 0);
  if (unavailable > 0) {
    console.log(
      `${unavailable} requests answered 503: a statement passed the service's 1.5 s bound on database ` +
        "waits; their API times stop at the bound, their database times are the statements' own",
    );
  }
  const [page, db, count] = [p95(worstApi.api), p95(worstDb.db), p95(worstCount.api)];
  console.log(resultLine('search_page_p95', page, 'ms', pageBudgetMs / page, target.page));
  console.log(resultLine('search_db_p95', db, 'ms', pageBudgetMs / db, target.page));
  console.log(resultLine('search_count_p95', count, 'ms', countBaselineMs / count, target.count));
}

interface Answer {
  ms: number;
  /** 503: the service gave up on a statement (its bound on database waits). */
  unavailable: boolean;
  /** Whether the page satisfies the search, and carries the counts when asked (true for a 503). */
  applied: boolean;
}

async function ask(
  server: ChildServer,
  headers: Record<string, string>,
  agent: Agent,
  search: Search,
  counts: boolean,
): Promise<Answer> {
  const { status, body, ms } = await getJson(server, search.path, headers, agent);
  if (status === 503) return { ms, unavailable: true, applied: true };
  const page = body as { data?: DisputeJson[]; total_count?: unknown; count_by_state?: unknown };
  if (status !== 200 || !Array.isArray(page.data)) {
    throw new Error(`${search.path} answered ${status}: ${JSON.stringify(body).slice(0, 500)}`);
  }
  const counted = typeof page.total_count === 'number' && typeof page.count_by_state === 'object';
  return { ms, unavailable: false, applied: page.data.every(search.matches) && (counted || !counts) };
}

/** Each search of the variant in turn, with the database time of the statements it caused. */
async function measure(
  server: ChildServer,
  headers: Record<string, string>,
  variant: Variant,
  agent: Agent,
  tap: PostgresTap,
): Promise<Figures> {
  const figures: Figures = {
    variant,
    api: [],
    db: [],
    unavailable: 0,
    ignored: false,
    slowest: { sql: '', ms: 0 },
  };
  const deadline = performance.now() + perVariant.seconds * 1000;
  for (const search of variant.searches.slice(0, perVariant.requests)) {
    if (figures.api.length >= 5 && performance.now() > deadline) break;
    const from = tap.timings.length;
    const started = performance.now();
    const answer = await ask(server, headers, agent, search, variant.counts);
    // A 503's time stands, as a lower bound. The statement it gave up on runs on in Postgres: its time
    // is this request's, and the next request waits for it, as it would wait for an idle database.
    if (answer.unavailable) {
      figures.unavailable++;
      await settle(tap);
    }
    if (!answer.applied) figures.ignored = true;
    // The relay records a statement's time before it passes the answer on: all of them are in by now.
    const statements = tap.timings.slice(from).filter((statement) => statement.started >= started);
    figures.api.push(answer.ms);
    figures.db.push(statements.reduce((sum, statement) => sum + statement.ms, 0));
    for (const statement of statements) if (statement.ms > figures.slowest.ms) figures.slowest = statement;
  }
  return figures;
}

/** Until every statement sent has been answered (at most a minute). */
async function settle(tap: PostgresTap): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (tap.pending() > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Postgres counting the organisation's disputes by state, as a client sees it: the median of three. */
async function countByState(sql: postgres.Sql, org: string): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < 4; run++) {
    const started = performance.now();
    await sql`select state, count(*) from disputes where org_id = ${org} and livemode = false group by state`;
    // The first run reads the pages into memory; the searches find them there too.
    if (run > 0) times.push(performance.now() - started);
  }
  return percentile(times, 0.5);
}

/** The value below which a share `q` of the values lie (nearest rank). */
function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

function describe(figures: Figures): string {
  return `${figures.variant.name} (limit ${figures.variant.limit})`;
}

function printTable(figures: Figures[]): void {
  const cell = (value: number) => value.toFixed(1).padStart(8);
  console.log(`${'search'.padEnd(26)} limit  requests  503s   api p50  api p95   db p50   db p95  (ms)`);
  for (const { variant, api, db, unavailable } of figures) {
    console.log(
      `${variant.name.padEnd(26)} ${String(variant.limit).padStart(5)} ${String(api.length).padStart(9)} ` +
        `${String(unavailable).padStart(5)} ${cell(percentile(api, 0.5))} ${cell(percentile(api, 0.95))} ` +
        `${cell(percentile(db, 0.5))} ${cell(percentile(db, 0.95))}`,
    );
  }
}
