import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { type RunningService, startService } from './service.js';

let service: RunningService;
try {
  const config = loadConfig();
  service = await startService(config, createLogger(config.LOG_LEVEL));
} catch (error) {
  // A misconfiguration or an unreachable database: one line that says what to fix, not a stack trace.
  console.error(`rebuttal could not start: ${rootCause(error)}`);
  process.exit(1);
}

/** The innermost cause's message: "database "x" does not exist", not drizzle's "Failed query: ...". */
function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (!(current instanceof Error)) return String(current);
  const code = (current as { code?: unknown }).code;
  return current.message || (typeof code === 'string' ? code : current.name);
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    service.logger.info({ signal }, 'shutting down');
    await service.close();
    process.exit(0);
  });
}
