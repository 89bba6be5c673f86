import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { Config } from '../config.js';
import { within } from '../time-limit.js';
import { answered, connectDatabase, type ServerDatabase, type ServerDatabaseOptions } from './client.js';
import { readCaFile, tlsOptionsFor } from './tls.js';

/**
 * A Postgres server, reached as DATABASE_URL and DATABASE_DIRECT_URL say (docs/operations.md "Behind a
 * pooler"). A transaction-mode pooler (PgBouncer, a managed pooler) hands each transaction whichever
 * server connection is free, so what lives in a session does not survive from one statement to the next:
 *
 * - named prepared statements: postgres-js prepares each statement once per connection and later binds
 *   it by name, which then fails on another server connection (26000); worse, postgres-js answers that
 *   failure by sending the statement again, and a COMMIT sent again in the transaction the failure
 *   aborted is answered ROLLBACK, not an error: the write is gone and the caller told it was made. The
 *   pooled client therefore sends none wherever a session is not known to be kept.
 * - LISTEN: notifications reach whichever client holds that server connection at the time, or nobody.
 *
 * With DATABASE_DIRECT_URL, LISTEN and migrations use it and DATABASE_URL sends no named statements.
 * Without it, one notification sent through DATABASE_URL tells: heard, sessions are kept (Postgres
 * itself, or a session-mode pooler); not heard within `probeMs`, statements are unnamed and listeners
 * poll every `pollingMs` instead.
 */
export const pollingMs = 2000;
const probeMs = 2000;

export async function openServerDatabase(
  config: { DATABASE_URL: string } & Partial<Pick<Config, 'DATABASE_DIRECT_URL' | 'DATABASE_CA_FILE'>>,
  { listens = true, ...options }: ServerDatabaseOptions,
): Promise<ServerDatabase> {
  const url = config.DATABASE_URL;
  const caFile = config.DATABASE_CA_FILE;
  const ca = caFile ? await readCaFile(caFile) : undefined;
  // Each address answers once before anything else, so that a TLS mistake is one line (db/tls.ts).
  const pooled = await answered(connectDatabase(url, { ...options, prepare: false, ca }), {
    setting: 'DATABASE_URL',
    url,
    caFile,
  });
  const directUrl = config.DATABASE_DIRECT_URL;
  if (directUrl) {
    const direct = await answered(connectDatabase(directUrl, { max: 1, ca }), {
      setting: 'DATABASE_DIRECT_URL',
      url: directUrl,
      caFile,
    }).catch(async (error: unknown) => {
      await pooled.close();
      throw error;
    });
    return withSessions(pooled, direct);
  }
  if (!listens) return pooled;
  if (await notificationsArrive(url, ca)) {
    await pooled.close();
    return connectDatabase(url, { ...options, ca });
  }
  return polling(pooled);
}

/** LISTEN and migrations on the direct address. */
function withSessions(pooled: ServerDatabase, direct: ServerDatabase): ServerDatabase {
  return {
    ...pooled,
    sessionDb: direct.db,
    listen: direct.listen,
    close: async () => {
      await Promise.all([pooled.close(), direct.close()]);
    },
  };
}

/**
 * Notifications cannot be heard: a listener is told every `pollingMs` that it may have missed some, as
 * when listening restarts (Database.listen). The outbox relay then runs that often and the API key cache
 * empties that often (src/jobs/workers/webhook.ts, src/features/organisations/authenticate.ts).
 */
function polling(database: ServerDatabase): ServerDatabase {
  return {
    ...database,
    pollMs: pollingMs,
    async listen(_channel, _onPayload, onListening) {
      onListening?.();
      const timer = setInterval(() => onListening?.(), pollingMs);
      timer.unref();
      return async () => clearInterval(timer);
    },
  };
}

/** Whether a notification sent through `url` reaches a listener on `url` within `probeMs`. */
async function notificationsArrive(url: string, ca: string | undefined): Promise<boolean> {
  const probe = postgres(url, {
    max: 1,
    prepare: false,
    ssl: tlsOptionsFor(url, ca),
    onnotice: () => {},
    connect_timeout: 2,
  });
  const channel = `rebuttal_probe_${randomBytes(6).toString('hex')}`;
  try {
    let heard = () => {};
    const arrived = new Promise<boolean>((resolve) => {
      heard = () => resolve(true);
    });
    await within(
      (async () => {
        await probe.listen(channel, heard);
        await probe.notify(channel, 'probe');
      })(),
      10_000,
      'Postgres',
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), probeMs);
    });
    const answer = await Promise.race([arrived, late]);
    clearTimeout(timer);
    return answer;
  } finally {
    await probe.end({ timeout: 1 });
  }
}
