import { and, eq } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { connectedAccounts, disputes } from '../../src/db/schema/index.js';
import { connectAccount } from '../../src/features/accounts/connected-accounts.js';
import { pollAccount } from '../../src/features/mirroring/poll.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { createQueueAccountScheduler } from '../../src/jobs/account-scheduler.js';
import { normalizedDispute } from '../../src/processors/normalized.js';
import type { NormalizedDispute } from '../../src/processors/types.js';
import { type StripeFake, stripeFakeCredentials } from '../fakes/stripe.js';
import type { TestApi } from './api.js';

/**
 * News for mirroring's writes (features/mirroring/write.ts) as the tests of unordered news and of the
 * network facts make it: an organisation with one connected account, a processor's dispute, and the row
 * it became. And an account connected to the Stripe fake, for the tests that mirror from it.
 */

/** A new organisation's test-mode account of `processor`, as mirroring's writes take it. */
export async function mirroredAccount(db: Db, processor = 'adyen') {
  const { org } = await createOrganisation(db, { name: 'Mirrored' });
  const [row] = await db
    .insert(connectedAccounts)
    .values({ orgId: org, livemode: false, id: 'default', processor })
    .returning();
  if (!row) throw new Error('no account');
  return row;
}

let sequence = 0;

/** An open chargeback as a processor tells it, under an id no other test uses. */
export function news(overrides: Partial<NormalizedDispute> = {}): NormalizedDispute {
  sequence += 1;
  return normalizedDispute({
    id: `psp_${sequence}`,
    state: 'needs_response',
    reason: 'fraudulent',
    kind: 'chargeback',
    disputedAt: new Date('2026-11-01T00:00:00Z'),
    dueBy: new Date(Date.now() + 10 * 86_400_000),
    charge: 'pay_1',
    amount: 2500,
    currency: 'eur',
    ...overrides,
  });
}

export async function storedDispute(db: Db, orgId: string, id: string) {
  const [row] = await db
    .select()
    .from(disputes)
    .where(and(eq(disputes.orgId, orgId), eq(disputes.id, id)));
  return row;
}

/**
 * The organisation's test-mode account `stripe`, connected to the Stripe fake as `accounts connect` does,
 * and its poll as the service runs it. Its schedule is hourly: the test mirrors when it calls `poll()`.
 */
export async function connectStripeFake(api: TestApi, org: string, fake: StripeFake) {
  const { account } = await connectAccount(
    {
      db: api.db.db,
      adapters: api.engine.adapters,
      secrets: api.engine.secrets,
      scheduler: createQueueAccountScheduler(api.queues),
    },
    {
      org,
      mode: 'test',
      id: 'stripe',
      processor: 'stripe',
      credentials: JSON.stringify(stripeFakeCredentials),
      baseUrl: fake.server.url,
      pollIntervalSeconds: 3600,
    },
  );
  return {
    uid: account.uid,
    poll: () => pollAccount({ ...api.engine, alertRefunds: api.deps.alertRefunds }, account.uid),
  };
}

export type StripeAccount = Awaited<ReturnType<typeof connectStripeFake>>;
