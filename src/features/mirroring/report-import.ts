import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { connectedAccounts } from '../../db/schema/index.js';
import type { Logger } from '../../logger.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import { ReportError } from '../../processors/types.js';
import { AccountError } from '../accounts/connected-accounts.js';
import { type MirrorResult, mirrorDisputes } from './write.js';

/**
 * `dispute import`: the dispute report a processor without a list call lets the merchant download (Amex's
 * Disputes tool, Adyen's and Worldpay's dispute reports), read by the account's adapter and written like a
 * polled page: the same ownership and state rules, the same events. The whole file is read before anything
 * is written, so a file with a bad row changes nothing; importing the same file again writes nothing.
 */
export async function importDisputeReport(
  deps: { db: Db; adapters: AdapterRegistry; logger?: Logger },
  input: { org: string; mode: 'test' | 'live'; account: string; csv: string },
): Promise<Extract<MirrorResult, { outcome: 'mirrored' }> & { rows: number }> {
  const [account] = await deps.db
    .select()
    .from(connectedAccounts)
    .where(
      and(
        eq(connectedAccounts.orgId, input.org),
        eq(connectedAccounts.livemode, input.mode === 'live'),
        eq(connectedAccounts.id, input.account),
      ),
    );
  if (!account) {
    throw new AccountError(`${input.org} has no account '${input.account}' in ${input.mode} mode`);
  }
  const adapter = deps.adapters.forProcessor(account.processor);
  if (!adapter.readReport) {
    throw new AccountError(
      `${account.processor} reports cannot be imported: its disputes are mirrored through its API`,
    );
  }
  let disputes: ReturnType<NonNullable<typeof adapter.readReport>>;
  try {
    disputes = adapter.readReport(input.csv);
  } catch (error) {
    if (error instanceof ReportError) throw new AccountError(`nothing imported: ${error.message}`);
    throw error;
  }
  const result = await mirrorDisputes(deps.db, account, disputes, { logger: deps.logger });
  if (result.outcome === 'stale') {
    throw new AccountError(`account '${account.id}' is paused; resume it before importing`);
  }
  return { ...result, rows: disputes.length };
}
