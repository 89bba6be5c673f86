import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectDatabase } from '../../src/db/client.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { loadTls } from '../../src/tls.js';
import { ensurePostgres } from '../helpers/services.js';
import {
  type ChildServer,
  createBenchDatabase,
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
import { seedDisputes } from './lib/seed.js';

/**
 * API read path: the service (its own process, production log level, migrated on start) with 10,000
 * seeded disputes (3,000 with --quick, whose budget the seeding would otherwise take a tenth of), against a bare Express HTTPS handler returning a fixed dispute body (the service's own
 * answer for one dispute; also its own process, same certificate). autocannon drives each in turn from this process with 32 keep-alive
 * connections. Targets: retrieve at >= 0.5 of the bare handler's requests/s with p99 under 25 ms; a list of
 * 100 at >= 0.15.
 */

const disputeCount = quick ? 3_000 : 10_000;
const connections = 32;
const seconds = quick ? 2 : 10;
const warmupSeconds = quick ? 1 : 2;
const target = {
  retrieveRatio: 0.5,
  retrieveP99Ms: 25,
  listRatio: 0.15,
  retrieveDbRatio: 1,
  listDbRatio: 0.5,
};

await runBench(async () => {
  console.log(
    `api bench${quick ? ' (--quick)' : ''}: ${describeMachine()}; ${connections} connections, ` +
      `${warmupSeconds} s warm-up then ${seconds} s per target, one target at a time`,
  );
  await ensurePostgres();

  const dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-bench-'));
  onCleanup(() => rm(dataDir, { recursive: true, force: true }));
  // One self-signed certificate under DATA_DIR/tls, which the service and the bare handler both serve.
  await loadTls({ DATA_DIR: dataDir });
  const database = await createBenchDatabase();

  const started = Date.now();
  const service = await startWebService('service', database.url, dataDir);
  console.log(`service up in ${Date.now() - started} ms (migrated ${database.name})`);

  const seeding = Date.now();
  const db = connectDatabase(database.url, { max: 1 });
  let key: string;
  let org: string;
  let ids: string[];
  try {
    const organisation = await createOrganisation(db.db, { name: 'Bench Ltd' });
    key = organisation.test_key;
    org = organisation.org;
    ids = await seedDisputes(db.db, organisation.org, disputeCount);
    // Fresh planner statistics, as autovacuum would leave them; otherwise it may analyze mid-measurement.
    await db.sql.unsafe('vacuum analyze');
  } finally {
    await db.close();
  }
  console.log(`seeded ${ids.length} disputes in ${Date.now() - seeding} ms`);

  const headers = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
  const retrievePaths = shuffle(ids).map((id) => `/v1/disputes/${id}`);
  const listPath = '/v1/disputes?limit=100';
  const sample = await checkService(service, headers, ids[0] ?? '', listPath);

  // The baseline sends the very body the service sends for one dispute.
  const bodyFile = join(dataDir, 'bare-body.json');
  await writeFile(bodyFile, JSON.stringify(sample));
  const bare = await startServer('bare express', 'test/bench/lib/bare-server.ts', {
    PORT: String(await freePort()),
    DATA_DIR: dataDir,
    BODY_FILE: bodyFile,
  });
  const fixed = await getJson(bare, `/v1/disputes/${ids[0]}`, headers);
  if (fixed.status !== 200) throw new Error(`bare handler answered ${fixed.status}`);
  const bareDb = await startServer('bare express + select', 'test/bench/lib/bare-db-server.ts', {
    PORT: String(await freePort()),
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    ORG_ID: org,
  });
  const selected = await getJson(bareDb, `/v1/disputes/${ids[0]}`, headers);
  if (selected.status !== 200) throw new Error(`bare handler with a select answered ${selected.status}`);

  const targets = [
    { label: 'bare express (fixed JSON)', server: bare, paths: retrievePaths },
    { label: 'bare express (one prepared select)', server: bareDb, paths: retrievePaths },
    { label: 'GET /v1/disputes/:id', server: service, paths: retrievePaths },
    { label: 'GET /v1/disputes?limit=100', server: service, paths: [listPath] },
  ];
  const measured: Measurement[] = [];
  for (const { label, server, paths } of targets) {
    const options = {
      paths,
      headers,
      connections,
      ...(server === service && { backends: () => databaseBackends(database.name) }),
    };
    await load(`${label} (warm-up)`, server, { ...options, seconds: warmupSeconds });
    const measurement = await load(label, server, { ...options, seconds });
    console.log(formatMeasurement(measurement));
    measured.push(measurement);
  }
  const [baseline, selectBaseline, retrieve, list] = measured as [
    Measurement,
    Measurement,
    Measurement,
    Measurement,
  ];

  const warning = disturbance(measured);
  if (warning) console.log(warning);
  const retrieveRatio = retrieve.requestsPerSecond / baseline.requestsPerSecond;
  const listRatio = list.requestsPerSecond / baseline.requestsPerSecond;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  console.log(
    `retrieve: ${retrieveRatio.toFixed(3)} of bare (target >= ${target.retrieveRatio}: ` +
      `${verdict(retrieveRatio >= target.retrieveRatio)}), p99 ${retrieve.p99} ms ` +
      `(target < ${target.retrieveP99Ms} ms: ${verdict(retrieve.p99 < target.retrieveP99Ms)})`,
  );
  console.log(
    `list of 100: ${listRatio.toFixed(3)} of bare (target >= ${target.listRatio}: ` +
      `${verdict(listRatio >= target.listRatio)}), p50 ${list.p50} ms, p99 ${list.p99} ms`,
  );
  console.log(
    resultLine('api_retrieve', retrieve.requestsPerSecond, 'req/s', retrieveRatio, target.retrieveRatio),
  );
  console.log(resultLine('api_list_100', list.requestsPerSecond, 'req/s', listRatio, target.listRatio));
  // Against what any read that reaches Postgres costs here (issue 19's second baseline).
  const retrieveDbRatio = retrieve.requestsPerSecond / selectBaseline.requestsPerSecond;
  const listDbRatio = list.requestsPerSecond / selectBaseline.requestsPerSecond;
  console.log(
    resultLine(
      'api_retrieve_db',
      retrieve.requestsPerSecond,
      'req/s',
      retrieveDbRatio,
      target.retrieveDbRatio,
    ),
  );
  console.log(
    resultLine('api_list_100_db', list.requestsPerSecond, 'req/s', listDbRatio, target.listDbRatio),
  );
});

/** The service answers 200 with what it should, before any load: a bench of 401s or 404s is worthless. */
async function checkService(
  service: ChildServer,
  headers: Record<string, string>,
  id: string,
  listPath: string,
): Promise<unknown> {
  const one = await getJson(service, `/v1/disputes/${id}`, headers);
  if (one.status !== 200 || (one.body as { id?: unknown }).id !== id) {
    throw new Error(`retrieve answered ${one.status}: ${JSON.stringify(one.body)}`);
  }
  const page = await getJson(service, listPath, headers);
  const data = (page.body as { data?: unknown[] }).data;
  if (page.status !== 200 || data?.length !== 100) {
    throw new Error(`list answered ${page.status} with ${data?.length} items: ${JSON.stringify(page.body)}`);
  }
  const size = (body: unknown) => Buffer.byteLength(JSON.stringify(body));
  console.log(`response bodies: retrieve ${size(one.body)} B, list of 100 ${size(page.body)} B`);
  return one.body;
}

/** A fixed-seed Fisher-Yates shuffle, so retrieves hit rows all over the table in the same order each run. */
function shuffle<T>(values: readonly T[]): T[] {
  const out = [...values];
  let state = 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
