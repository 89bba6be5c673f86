import { readFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { loadSecrets, queuePorts } from '../composition.js';
import { loadConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { processors } from '../domain/vocabulary.js';
import {
  type AccountDeps,
  type AccountRow,
  connectAccount,
  describeAccount,
  disconnectAccount,
  listAccounts,
  pollNow,
  type ScheduleState,
  updateAccount,
} from '../features/accounts/connected-accounts.js';
import { openQueues } from '../jobs/catalog.js';
import { redisTargetFor } from '../local-redis.js';
import { createAdapterRegistry } from '../processors/registry.js';
import { cliLogger } from './logger.js';
import { modeOption } from './options.js';

/**
 * `account connect|list|update|pause|resume|poll-now|disconnect`: the processor accounts whose disputes
 * are mirrored.
 */

export interface CliIo {
  withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T>;
  print(json: boolean, value: unknown, human: string): void;
}

/** A change to an account, with the queues open for its scheduler and closed (even on a dead Redis) after. */
async function change<T>(io: CliIo, work: (deps: AccountDeps) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = cliLogger(config);
  const queues = openQueues({ redis: await redisTargetFor(config), prefix: config.QUEUE_PREFIX });
  try {
    return await io.withDatabase((db) =>
      work({
        db,
        scheduler: queuePorts({ db, queues, logger, config }).scheduler,
        adapters: createAdapterRegistry(),
      }),
    );
  } finally {
    await Promise.race([queues.close(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  }
}

function scheduleLine(schedule: ScheduleState): string {
  switch (schedule.state) {
    case 'scheduled':
      return `mirror scheduler: polls every ${schedule.everySeconds} s`;
    case 'removed':
      return 'mirror scheduler: removed';
    case 'unpolled':
      return `mirror scheduler: none (${schedule.reason})`;
    case 'pending':
      return (
        `mirror scheduler: not updated, Redis unreachable (${schedule.reason}). The change is saved; ` +
        "the workers' schedule sync brings Redis in line when it next runs."
      );
  }
}

function accountLine(account: AccountRow): string {
  const view = describeAccount(account);
  const polled = view.last_polled_at ? `last polled ${view.last_polled_at}` : 'never polled';
  const error = view.last_error ? `, last error: ${view.last_error}` : '';
  return (
    `${view.account}  ${view.mode}  ${view.processor}  ${view.access}  every ${view.poll_interval_seconds} s  ` +
    `${view.status}  ${polled}${error}`
  );
}

function changed(
  io: CliIo,
  json: boolean,
  result: { account: AccountRow; schedule: ScheduleState },
  verb: string,
) {
  io.print(
    json,
    { ...describeAccount(result.account), schedule: result.schedule },
    `account ${result.account.id} (${result.account.livemode ? 'live' : 'test'}) of ${result.account.orgId} ${verb}\n` +
      scheduleLine(result.schedule),
  );
}

export function registerAccountCommands(program: Command, io: CliIo): void {
  const account = program.command('account').description('connected processor accounts (mirrored disputes)');

  account
    .command('connect')
    .description('connect a processor account; its disputes are mirrored every poll interval')
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .requiredOption('--processor <name>', `processor: ${[...processors, 'mock'].join(', ')}`)
    .option('--id <name>', 'account name, shown on disputes as `account`', 'default')
    .option('--poll-seconds <seconds>', 'poll interval in seconds', '60')
    .option('--read-only', "read-only access: the processor's charges cannot be read (spec 4.5)")
    .option('--base-url <url>', "the processor's host for this account, instead of its default by mode")
    .option(
      '--credentials-file <path>',
      "file holding the processor's credentials as JSON (stored encrypted)",
    )
    .option('--json', 'print JSON')
    .action(
      async (options: {
        org: string;
        mode: 'test' | 'live';
        processor: string;
        id: string;
        pollSeconds: string;
        readOnly?: boolean;
        baseUrl?: string;
        credentialsFile?: string;
        json?: boolean;
      }) => {
        const credentials =
          options.credentialsFile === undefined
            ? undefined
            : (await readFile(options.credentialsFile, 'utf8')).trim();
        const secrets = credentials === undefined ? undefined : (await loadSecrets(loadConfig())).secrets;
        const result = await change(io, (deps) =>
          connectAccount(
            { ...deps, secrets },
            {
              org: options.org,
              mode: options.mode,
              id: options.id,
              processor: options.processor,
              pollIntervalSeconds: options.pollSeconds,
              access: options.readOnly ? 'read_only' : 'full',
              baseUrl: options.baseUrl,
              credentials,
            },
          ),
        );
        changed(io, Boolean(options.json), result, 'connected');
      },
    );

  account
    .command('list')
    .description("list an organisation's connected accounts")
    .requiredOption('--org <id>', 'organisation id')
    .addOption(new Option('--mode <mode>', 'test or live').choices(['test', 'live']))
    .option('--json', 'print JSON')
    .action(async (options: { org: string; mode?: 'test' | 'live'; json?: boolean }) => {
      const rows = await io.withDatabase((db) => listAccounts(db, { org: options.org, mode: options.mode }));
      io.print(
        Boolean(options.json),
        rows.map(describeAccount),
        rows.map(accountLine).join('\n') || `no accounts connected for ${options.org}`,
      );
    });

  account
    .command('update')
    .description("change an account's poll interval, status or access")
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--id <name>', 'account name', 'default')
    .option('--poll-seconds <seconds>', 'poll interval in seconds')
    .addOption(new Option('--status <status>', 'active or disabled').choices(['active', 'disabled']))
    .addOption(new Option('--access <access>', 'full or read_only').choices(['full', 'read_only']))
    .option('--json', 'print JSON')
    .action(
      async (options: {
        org: string;
        mode: 'test' | 'live';
        id: string;
        pollSeconds?: string;
        status?: 'active' | 'disabled';
        access?: 'full' | 'read_only';
        json?: boolean;
      }) => {
        const result = await change(io, (deps) =>
          updateAccount(deps, {
            org: options.org,
            mode: options.mode,
            id: options.id,
            pollIntervalSeconds: options.pollSeconds,
            status: options.status,
            access: options.access,
          }),
        );
        changed(io, Boolean(options.json), result, 'updated');
      },
    );

  for (const [verb, status, description] of [
    [
      'pause',
      'disabled',
      'stop polling an account (its disputes stay; its pushes are answered 503, for the processor to resend)',
    ],
    ['resume', 'active', 'poll a paused account again'],
  ] as const) {
    account
      .command(verb)
      .description(description)
      .requiredOption('--org <id>', 'organisation id')
      .addOption(modeOption())
      .option('--id <name>', 'account name', 'default')
      .option('--json', 'print JSON')
      .action(async (options: { org: string; mode: 'test' | 'live'; id: string; json?: boolean }) => {
        const key = { org: options.org, mode: options.mode, id: options.id };
        const result = await change(io, (deps) => updateAccount(deps, { ...key, status }));
        changed(io, Boolean(options.json), result, verb === 'pause' ? 'paused' : 'resumed');
      });
  }

  account
    .command('poll-now')
    .description('poll an account at once, besides its schedule')
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--id <name>', 'account name', 'default')
    .option('--json', 'print JSON')
    .action(async (options: { org: string; mode: 'test' | 'live'; id: string; json?: boolean }) => {
      const key = { org: options.org, mode: options.mode, id: options.id };
      const { account: polled, jobId } = await change(io, (deps) => pollNow(deps, key));
      io.print(
        Boolean(options.json),
        { ...describeAccount(polled), job: jobId },
        `account ${polled.id} (${options.mode}) of ${polled.orgId}: poll queued as job ${jobId}`,
      );
    });

  account
    .command('disconnect')
    .description('disconnect an account: polling stops; its mirrored disputes stay')
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--id <name>', 'account name', 'default')
    .option('--json', 'print JSON')
    .action(async (options: { org: string; mode: 'test' | 'live'; id: string; json?: boolean }) => {
      const result = await change(io, (deps) =>
        disconnectAccount(deps, { org: options.org, mode: options.mode, id: options.id }),
      );
      changed(io, Boolean(options.json), result, 'disconnected');
    });
}
