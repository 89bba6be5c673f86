import { loadConfig } from './config.js';
import { type ProvidedRedis, provideRedis } from './local-redis.js';
import { createLogger } from './logger.js';
import { type RunningService, startService } from './service.js';
import { rootCause, welcome } from './startup.js';

/**
 * The web process: the API and Bull Board, plus the workers named in WORKERS (default all, so
 * `npm start` is the whole service in one process; the Procfile's `web` sets WORKERS=none). With nothing
 * configured it brings what it needs: the embedded database, a local Redis, a demo organisation.
 */
let service: RunningService | undefined;
let redis: ProvidedRedis | undefined;

// From the first moment, so that a stop during start still closes what was opened (a started Redis).
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    // One stop at a time: a SIGINT during a SIGTERM's drain changes nothing.
    if (stopping) return;
    stopping = true;
    await service?.close(signal);
    await redis?.close();
    service?.logger.info('stopped');
    process.exit(0);
  });
}

try {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  // Only the zero-configuration start manages a Redis: a deployment (DATABASE_URL) has its own, and
  // waits for it when it is away rather than starting another.
  if (!config.DATABASE_URL) redis = await provideRedis(config, logger);
  service = await startService({ ...config, REDIS_URL: redis?.url ?? config.REDIS_URL }, logger);
  process.stdout.write(welcome(config, service));
} catch (error) {
  // A misconfiguration or an unreachable database: one line that says what to fix, not a stack trace.
  console.error(`rebuttal could not start: ${rootCause(error)}`);
  await redis?.close();
  process.exit(1);
}
