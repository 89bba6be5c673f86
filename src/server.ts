import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
const service = await startService(config, logger);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    logger.info({ signal }, 'shutting down');
    await service.close();
    process.exit(0);
  });
}
