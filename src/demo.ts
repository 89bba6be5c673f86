import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Config } from './config.js';
import { connectedAccounts, organisations } from './db/schema/index.js';
import { type AccountDeps, connectAccount, updateAccount } from './features/accounts/connected-accounts.js';
import { createOrganisation } from './features/organisations/organisations.js';

/**
 * The demo a first `npm start` sets up, so a newcomer has something to call: an organisation, and a mock
 * processor account in test mode that mirrors a new dispute every MOCK_DISPUTE_SECONDS. DATA_DIR/demo.json
 * remembers which organisation it is (never its keys: those are shown once, as for any organisation, and
 * only their hashes are stored), so later starts reuse it, and mend what an interrupted first start left.
 */
export interface Demo {
  org: string;
  name: string;
  /** The mock account's id (in test mode). */
  account: string;
  /** Set on the start that made the organisation: the only time its keys exist in the clear. */
  keys?: { test_key: string; live_key: string };
}

const demoName = 'Demo merchant';
const demoAccount = 'demo';
/** The mock account's poll interval when MOCK_DISPUTE_SECONDS is 0 (its world then makes nothing new). */
const quietPollSeconds = 60;
const savedDemo = z.object({ org: z.string().min(1) });

export function demoEnabled(config: Pick<Config, 'DEMO' | 'DATABASE_URL'>): boolean {
  return config.DEMO ?? !config.DATABASE_URL;
}

export async function prepareDemo(
  deps: AccountDeps,
  config: Pick<Config, 'DATA_DIR' | 'MOCK_DISPUTE_SECONDS'>,
): Promise<Demo> {
  const file = join(config.DATA_DIR, 'demo.json');
  // Missing or damaged (a crash while it was written): no demo yet, and a new one is made.
  const saved = await readFile(file, 'utf8').then(
    (text) => savedDemo.safeParse(parsedOrNull(text)).data,
    () => undefined,
  );
  const [existing] = saved
    ? await deps.db.select().from(organisations).where(eq(organisations.id, saved.org))
    : [];
  let demo: Demo;
  if (existing) {
    demo = { org: existing.id, name: existing.name, account: demoAccount };
  } else {
    const created = await createOrganisation(deps.db, { name: demoName });
    await mkdir(config.DATA_DIR, { recursive: true, mode: 0o700 });
    await writeFile(file, `${JSON.stringify({ org: created.org })}\n`, { mode: 0o600 });
    demo = {
      org: created.org,
      name: created.name,
      account: demoAccount,
      keys: { test_key: created.test_key, live_key: created.live_key },
    };
  }
  await keepMockAccount(deps, demo.org, config.MOCK_DISPUTE_SECONDS || quietPollSeconds);
  return demo;
}

/** The demo's mock account, connected and polled every `seconds` (a changed setting applies on restart). */
async function keepMockAccount(deps: AccountDeps, org: string, seconds: number): Promise<void> {
  const [account] = await deps.db
    .select()
    .from(connectedAccounts)
    .where(
      and(
        eq(connectedAccounts.orgId, org),
        eq(connectedAccounts.livemode, false),
        eq(connectedAccounts.id, demoAccount),
      ),
    );
  const key = { org, mode: 'test' as const, id: demoAccount };
  if (!account) {
    await connectAccount(deps, { ...key, processor: 'mock', pollIntervalSeconds: seconds });
  } else if (account.pollIntervalSeconds !== seconds) {
    await updateAccount(deps, { ...key, pollIntervalSeconds: seconds });
  }
}

function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
