import { composeProcess } from '../src/composition.js';
import { loadConfig } from '../src/config.js';
import { startWorkers } from '../src/jobs/workers/engine.js';
import { createLogger } from '../src/logger.js';
import { rootCause } from '../src/startup.js';

/**
 * The worker process (Procfile `worker`): runs the workers named in WORKERS, and nothing else. Scale it
 * out freely; workers coordinate only through Redis and Postgres. Migrations are the release phase's
 * and the web process's: a worker never changes the schema.
 */
const config = (() => {
  try {
    const loaded = loadConfig();
    if (!loaded.DATABASE_URL) {
      throw new Error(
        'DATABASE_URL is required: the embedded database is for `npm start`, which runs the workers itself',
      );
    }
    return loaded;
  } catch (error) {
    console.error(`rebuttal workers could not start: ${rootCause(error)}`);
    process.exit(1);
  }
})();
const logger = createLogger(config.LOG_LEVEL);

try {
  const system = await composeProcess(config, logger);
  const running = await startWorkers(system.engine, config.WORKERS);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, async () => {
      logger.info({ signal }, 'stopping: finishing in-flight jobs');
      await running.close(config.SHUTDOWN_GRACE_SECONDS * 1000);
      await system.close();
      logger.info('stopped');
      process.exit(0);
    });
  }
} catch (error) {
  console.error(`rebuttal workers could not start: ${rootCause(error)}`);
  process.exit(1);
}
