import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { connectedAccounts } from '../../db/schema/index.js';
import { Failure } from '../../domain/failure.js';
import type { ProcessorConnection } from '../../processors/types.js';
import type { SecretBox } from '../../secrets.js';
import { sealedAt } from '../secrets/sealed-columns.js';

/**
 * Connected accounts as adapters receive them (processors/types.ts, ProcessorConnection): credentials
 * opened from their sealed form only here, at the moment of a call, and never kept, logged or queued.
 */

export type AccountRow = typeof connectedAccounts.$inferSelect;

/** The account cannot be used until an operator changes something (no adapter, unreadable credentials). */
export class AccountUnusableError extends Failure {
  override readonly name = 'AccountUnusableError';
  /** Retrying cannot help: the job fails at once. */
  readonly permanent = true;
}

export function connectionOf(secrets: SecretBox, account: AccountRow): ProcessorConnection {
  return {
    account: { uid: account.uid, id: account.id, livemode: account.livemode },
    credentials: openCredentials(secrets, account),
    baseUrl: account.baseUrl,
    readOnly: account.access === 'read_only',
  };
}

/**
 * The account answering a dispute (by its `account` name and its processor), or null when it names none
 * or it is gone.
 */
export async function accountOfDispute(
  db: Db,
  dispute: { orgId: string; livemode: boolean; account: string | null; source: string },
): Promise<AccountRow | null> {
  if (dispute.account === null) return null;
  const [account] = await db
    .select()
    .from(connectedAccounts)
    .where(
      and(
        eq(connectedAccounts.orgId, dispute.orgId),
        eq(connectedAccounts.livemode, dispute.livemode),
        eq(connectedAccounts.id, dispute.account),
        // An account reconnected under the same name for another processor does not answer this dispute.
        eq(connectedAccounts.processor, dispute.source),
      ),
    );
  return account ?? null;
}

/** For disputes no connected account answers (standalone, mock): nothing to authenticate with. */
export function bareConnection(dispute: { orgId: string; livemode: boolean; account: string | null }) {
  return {
    account: { uid: dispute.orgId, id: dispute.account ?? 'none', livemode: dispute.livemode },
    credentials: null,
    baseUrl: null,
    readOnly: false,
  } satisfies ProcessorConnection;
}

function openCredentials(secrets: SecretBox, account: AccountRow): string | null {
  if (account.credentials === null) return null;
  try {
    return secrets.open(account.credentials, sealedAt('accountCredentials', account.uid));
  } catch {
    throw new AccountUnusableError(
      'the credentials cannot be opened with this APP_SECRET (was it changed?); connect the account again',
    );
  }
}
