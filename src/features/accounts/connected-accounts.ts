import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { accountAccess, accountStatuses } from '../../db/schema/connected-accounts.js';
import { connectedAccounts, organisations } from '../../db/schema/index.js';
import { Failure } from '../../domain/failure.js';
import { resourceId } from '../../domain/values.js';
import { type AdapterRegistry, pushingProcessors } from '../../processors/registry.js';
import type { SecretBox } from '../../secrets.js';
import { within } from '../../time-limit.js';
import { sealedAt } from '../secrets/sealed-columns.js';

/**
 * Connected accounts: connect, update, disconnect, list (the operator CLI's `account` commands). Each change
 * commits in Postgres first, then makes the account's mirror job scheduler agree in Redis: created with the
 * account, changed with its interval or status, removed with it. When Redis cannot be reached the change
 * stands, and the workers' schedule sync (src/jobs/schedules.ts) brings Redis in line later.
 */

export type AccountRow = typeof connectedAccounts.$inferSelect;

/**
 * How account changes reach the mirror queue (jobs/account-scheduler.ts implements it over BullMQ): the
 * feature says what the account is, the job layer keeps its poll scheduler.
 */
export interface AccountScheduler {
  /** Makes the account's poll scheduler what the account says: none when paused, gone or unpolled. */
  schedule(account: {
    uid: string;
    status: string;
    pollIntervalSeconds: number;
    polled: boolean;
  }): Promise<void>;
  /** Polls the account once now, besides its schedule; answers the poll job's id. */
  pollNow(accountUid: string): Promise<string>;
}

export interface AccountDeps {
  db: Db;
  adapters: AdapterRegistry;
  /** Seals credentials; needed only to connect with some. */
  secrets?: SecretBox;
  scheduler: AccountScheduler;
}

/**
 * Whether Redis now holds the account's scheduler as Postgres says it should. `unpolled`: the processor
 * publishes no list call; its disputes arrive by its own webhooks or `dispute import`.
 */
export type ScheduleState =
  | { state: 'scheduled'; everySeconds: number }
  | { state: 'removed' }
  | { state: 'unpolled'; reason: string }
  | { state: 'pending'; reason: string };

/** An account request that cannot be carried out as asked (the operator's input, the account's state). */
export class AccountError extends Failure {
  override readonly name = 'AccountError';
  readonly permanent = true;
}

const mode = z.enum(['test', 'live']);
const interval = z.coerce
  .number({ error: 'must be a whole number of seconds' })
  .int('must be a whole number of seconds')
  .min(10, 'must be at least 10 seconds')
  .max(86_400, 'must be at most 86400 seconds (a day)');
const accountKey = { org: z.string().min(1), mode, id: resourceId.default('default') };

/**
 * An account's own host for its processor: a sandbox, a regional host, a fake processor in tests. Never
 * with credentials, a query or a fragment in it (it is shown by `account list`); live accounts only over
 * https, since their credentials travel with every call.
 */
const baseUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2000)
  .refine((url) => {
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '' && parsed.search === '' && parsed.hash === '';
  }, 'must not carry credentials, a query or a fragment')
  // Normalised (scheme and host lower-cased), so `HTTP://` is known for the plain http it is.
  .transform((url) => new URL(url).href.replace(/\/+$/, ''));

const connectInput = z
  .object({
    ...accountKey,
    processor: z.string().min(1),
    baseUrl: baseUrl.optional(),
    pollIntervalSeconds: interval.default(60),
    access: z.enum(accountAccess).default('full'),
    /** The processor's credentials as given (for real processors, a JSON document); sealed before storing. */
    credentials: z.string().min(1).max(65_536).optional(),
  })
  .refine((values) => values.mode === 'test' || !values.baseUrl?.startsWith('http:'), {
    path: ['baseUrl'],
    message: 'must be https for a live account',
  });
export const updateInput = z.object({
  ...accountKey,
  pollIntervalSeconds: interval.optional(),
  status: z.enum(accountStatuses).optional(),
  access: z.enum(accountAccess).optional(),
});
const accountKeyInput = z.object(accountKey);
const listInput = z.object({ org: z.string().min(1), mode: mode.optional() });

export async function connectAccount(
  deps: AccountDeps,
  input: z.input<typeof connectInput>,
): Promise<{ account: AccountRow; schedule: ScheduleState }> {
  const values = parse(connectInput, input);
  if (!deps.adapters.canConnect(values.processor)) {
    throw new AccountError(`processor '${values.processor}' cannot be connected: no adapter for it`);
  }
  const adapter = deps.adapters.forProcessor(values.processor);
  const problem = adapter.checkCredentials?.(values.credentials ?? null) ?? null;
  if (problem !== null) throw new AccountError(`invalid credentials for ${values.processor}: ${problem}`);
  if (values.access === 'read_only' && !adapter.capabilities.readOnly) {
    throw new AccountError(`${values.processor} accounts cannot be connected read-only`);
  }
  // Mock disputes are test data: live mode holds only what real processors report.
  if (values.processor === 'mock' && values.mode === 'live') {
    throw new AccountError('the mock processor can be connected in test mode only');
  }
  if (values.credentials !== undefined && !deps.secrets)
    throw new Error('credentials given but no SecretBox');
  // The uid is made here rather than by the database: the credentials are sealed to their row.
  const uid = randomUUID();
  const credentials =
    values.credentials === undefined
      ? null
      : (deps.secrets?.seal(values.credentials, sealedAt('accountCredentials', uid)) ?? null);
  const account = await deps.db.transaction(async (tx) => {
    const [organisation] = await tx
      .select({ id: organisations.id })
      .from(organisations)
      .where(eq(organisations.id, values.org));
    if (!organisation) throw new AccountError(`no organisation ${values.org}`);
    const [created] = await tx
      .insert(connectedAccounts)
      .values({
        uid,
        orgId: values.org,
        livemode: values.mode === 'live',
        id: values.id,
        processor: values.processor,
        access: values.access,
        credentials,
        baseUrl: values.baseUrl ?? null,
        pollIntervalSeconds: values.pollIntervalSeconds,
      })
      .onConflictDoNothing()
      .returning();
    if (!created) {
      throw new AccountError(`${values.org} already has an account '${values.id}' in ${values.mode} mode`);
    }
    return created;
  });
  return { account, schedule: await reschedule(deps, account) };
}

export async function updateAccount(
  deps: AccountDeps,
  input: z.input<typeof updateInput>,
): Promise<{ account: AccountRow; schedule: ScheduleState }> {
  const values = parse(updateInput, input);
  if (values.access === 'read_only') {
    const [current] = await deps.db.select().from(connectedAccounts).where(keyOf(values));
    if (current && !deps.adapters.forProcessor(current.processor).capabilities.readOnly) {
      throw new AccountError(`${current.processor} accounts cannot be connected read-only`);
    }
  }
  const [account] = await deps.db
    .update(connectedAccounts)
    .set({
      ...(values.pollIntervalSeconds !== undefined && { pollIntervalSeconds: values.pollIntervalSeconds }),
      ...(values.status !== undefined && { status: values.status }),
      ...(values.access !== undefined && { access: values.access }),
      updatedAt: sql`now()`,
    })
    .where(keyOf(values))
    .returning();
  if (!account) throw notConnected(values);
  return { account, schedule: await reschedule(deps, account) };
}

/**
 * Polls an account at once, besides its schedule (`account poll-now`: on-call checking a fix, or a
 * merchant who cannot wait for the next interval). The job goes on the mirror queue like any poll.
 */
export async function pollNow(
  deps: AccountDeps,
  input: z.input<typeof accountKeyInput>,
): Promise<{ account: AccountRow; jobId: string }> {
  const values = parse(accountKeyInput, input);
  const [account] = await deps.db.select().from(connectedAccounts).where(keyOf(values));
  if (!account) throw notConnected(values);
  if (!deps.adapters.canPoll(account.processor)) {
    throw new AccountError(`${account.processor} accounts are not polled: ${unpolledReason}`);
  }
  if (account.status !== 'active')
    throw new AccountError(`account '${account.id}' is paused; resume it first`);
  const jobId = await within(deps.scheduler.pollNow(account.uid), redisWaitMs, 'Redis');
  return { account, jobId };
}

/** Removes the account and its scheduler. Its disputes stay, still naming it as their `account`. */
export async function disconnectAccount(
  deps: AccountDeps,
  input: z.input<typeof accountKeyInput>,
): Promise<{ account: AccountRow; schedule: ScheduleState }> {
  const values = parse(accountKeyInput, input);
  const [account] = await deps.db.delete(connectedAccounts).where(keyOf(values)).returning();
  if (!account) throw notConnected(values);
  return { account, schedule: await reschedule(deps, { ...account, status: 'disabled' }) };
}

export async function listAccounts(db: Db, input: z.input<typeof listInput>): Promise<AccountRow[]> {
  const values = parse(listInput, input);
  return db
    .select()
    .from(connectedAccounts)
    .where(
      and(
        eq(connectedAccounts.orgId, values.org),
        values.mode === undefined ? undefined : eq(connectedAccounts.livemode, values.mode === 'live'),
      ),
    )
    .orderBy(connectedAccounts.livemode, connectedAccounts.createdAt);
}

/** The account as operators see it (`account list --json`): everything but the credentials. */
export function describeAccount(account: AccountRow) {
  return {
    org: account.orgId,
    mode: account.livemode ? 'live' : 'test',
    account: account.id,
    uid: account.uid,
    processor: account.processor,
    /** Where the processor's own webhooks go (docs/operations.md, "Processors"), for processors that push. */
    hook_path: pushingProcessors.has(account.processor)
      ? `/processor-hooks/${account.processor}/${account.uid}`
      : null,
    access: account.access,
    base_url: account.baseUrl,
    poll_interval_seconds: account.pollIntervalSeconds,
    status: account.status,
    has_credentials: account.credentials !== null,
    cursor: account.cursor,
    last_polled_at: account.lastPolledAt?.toISOString() ?? null,
    last_error: account.lastError,
    created: account.createdAt.toISOString(),
  };
}

/** Long enough for a healthy Redis; short enough that an operator is not left waiting on a dead one. */
const redisWaitMs = 3000;

const unpolledReason =
  "the processor publishes no list call; disputes arrive by its webhooks (POST /processor-hooks/:processor/:account) or 'dispute import'";

async function reschedule(
  deps: AccountDeps,
  account: { uid: string; processor: string; status: string; pollIntervalSeconds: number },
): Promise<ScheduleState> {
  const polled = deps.adapters.canPoll(account.processor);
  try {
    await within(deps.scheduler.schedule({ ...account, polled }), redisWaitMs, 'Redis');
  } catch (error) {
    return { state: 'pending', reason: error instanceof Error ? error.message : String(error) };
  }
  if (!polled) return { state: 'unpolled', reason: unpolledReason };
  return account.status === 'active'
    ? { state: 'scheduled', everySeconds: account.pollIntervalSeconds }
    : { state: 'removed' };
}

function keyOf(values: { org: string; mode: 'test' | 'live'; id: string }) {
  return and(
    eq(connectedAccounts.orgId, values.org),
    eq(connectedAccounts.livemode, values.mode === 'live'),
    eq(connectedAccounts.id, values.id),
  );
}

const notConnected = (values: { org: string; mode: string; id: string }) =>
  new AccountError(`${values.org} has no account '${values.id}' in ${values.mode} mode`);

/** What a refusal calls each input, in words an operator recognises (the CLI's flags). */
const inputNames: Record<string, string> = {
  org: 'organisation',
  baseUrl: 'base URL',
  id: 'account name',
  pollIntervalSeconds: 'interval',
};

function parse<Schema extends z.ZodType>(schema: Schema, input: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = String(issue?.path[0] ?? 'input');
  throw new AccountError(`invalid ${inputNames[key] ?? key}: ${issue?.message ?? 'invalid'}`);
}
