import type { Config } from './config.js';
import { generatedSecret } from './secrets.js';

export interface OperatorCredentials {
  user: string;
  password: string;
  /** Made by this service and kept under DATA_DIR, rather than set by the operator. */
  generated: boolean;
  /** Made on this very start: the one time it is printed. */
  created: boolean;
}

/**
 * Who may open Bull Board and /metrics. ADMIN_PASSWORD when set (user ADMIN_USER, default `admin`). With
 * the embedded database, the single-machine start, a password is generated once under DATA_DIR so the
 * board works with nothing configured; with DATABASE_URL, a deployment, nothing is guessed: no password,
 * no board.
 */
export async function operatorCredentials(
  config: Pick<Config, 'ADMIN_USER' | 'ADMIN_PASSWORD' | 'DATABASE_URL' | 'DATA_DIR'>,
): Promise<OperatorCredentials | undefined> {
  const user = config.ADMIN_USER ?? 'admin';
  if (config.ADMIN_PASSWORD)
    return { user, password: config.ADMIN_PASSWORD, generated: false, created: false };
  if (config.DATABASE_URL) return undefined;
  const { value, created } = await generatedSecret(config.DATA_DIR, 'admin-password');
  return { user, password: value, generated: true, created };
}
