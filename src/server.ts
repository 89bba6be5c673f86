import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { type RunningService, startService } from './service.js';
import { rootCause } from './startup.js';

/**
 * The web process: the API and Bull Board, plus the workers named in WORKERS (default all, so
 * `npm start` is the whole service in one process; the Procfile's `web` sets WORKERS=none).
 */
let service: RunningService;
try {
  const config = loadConfig();
  service = await startService(config, createLogger(config.LOG_LEVEL));
} catch (error) {
  // A misconfiguration or an unreachable database: one line that says what to fix, not a stack trace.
  console.error(`rebuttal could not start: ${rootCause(error)}`);
  process.exit(1);
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    service.logger.info({ signal }, 'shutting down');
    await service.close();
    service.logger.info('stopped');
    process.exit(0);
  });
}
