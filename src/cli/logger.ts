import type { Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';

/**
 * The log of a CLI command: warnings and errors only, on stderr, so stdout stays the command's output
 * (JSON for scripts with --json).
 */
export function cliLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return createLogger(config.LOG_LEVEL === 'silent' ? 'silent' : 'warn', process.stderr);
}
