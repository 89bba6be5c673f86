import { and, eq } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { connectedAccounts, disputes } from '../../src/db/schema/index.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { normalizedDispute } from '../../src/processors/normalized.js';
import type { NormalizedDispute } from '../../src/processors/types.js';

/**
 * News for mirroring's writes (features/mirroring/write.ts) as the tests of unordered news and of the
 * network facts make it: an organisation with one connected account, a processor's dispute, and the row
 * it became.
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
