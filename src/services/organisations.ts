import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { apiKeys, organisations } from '../db/schema/index.js';
import { latestVersion } from '../domain/versions.js';
import { newId } from '../ids.js';
import {
  authInvalidationChannel,
  generateApiKey,
  hashApiKey,
  keyInvalidation,
  type Mode,
} from './api-keys.js';
import { invalidateLocally } from './authenticate.js';

export interface CreatedOrganisation {
  org: string;
  name: string;
  test_key: string;
  live_key: string;
}

/** Creates an organisation with its test and live keys; the keys are returned here and never again. */
export async function createOrganisation(db: Db, input: { name: string }): Promise<CreatedOrganisation> {
  const org = newId('organisation');
  const testKey = generateApiKey('test');
  const liveKey = generateApiKey('live');
  await db.transaction(async (tx) => {
    await tx.insert(organisations).values({ id: org, name: input.name, apiVersion: latestVersion });
    await tx.insert(apiKeys).values([keyRow(org, 'test', testKey), keyRow(org, 'live', liveKey)]);
  });
  return { org, name: input.name, test_key: testKey, live_key: liveKey };
}

/**
 * Replaces the organisation's key for one mode. The old key stops working at once: this process and
 * every other one listening on the invalidation channel drop it from their caches when this commits.
 */
export async function rotateApiKey(db: Db, input: { org: string; mode: Mode }): Promise<string | null> {
  const key = generateApiKey(input.mode);
  const revoked = await db.transaction(async (tx) => {
    const [organisation] = await tx
      .select({ id: organisations.id })
      .from(organisations)
      .where(eq(organisations.id, input.org))
      .for('update');
    if (!organisation) return null;
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(apiKeys.orgId, input.org),
          eq(apiKeys.livemode, input.mode === 'live'),
          isNull(apiKeys.revokedAt),
        ),
      )
      .returning({ hash: apiKeys.hash });
    await tx.insert(apiKeys).values(keyRow(input.org, input.mode, key));
    // Delivered to every listening process when the transaction commits, not before.
    for (const { hash } of rows) {
      await tx.execute(sql`select pg_notify(${authInvalidationChannel}, ${keyInvalidation(hash)})`);
    }
    return rows;
  });
  if (revoked === null) return null;
  for (const { hash } of revoked) invalidateLocally(keyInvalidation(hash));
  return key;
}

export async function listOrganisations(db: Db) {
  return db
    .select({
      org: organisations.id,
      name: organisations.name,
      api_version: organisations.apiVersion,
      created: organisations.createdAt,
    })
    .from(organisations)
    .orderBy(organisations.createdAt);
}

function keyRow(orgId: string, mode: Mode, key: string) {
  return {
    id: newId('apiKey'),
    orgId,
    livemode: mode === 'live',
    hash: hashApiKey(key),
    lastFour: key.slice(-4),
  };
}
