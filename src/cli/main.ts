#!/usr/bin/env node
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { type Db, openDatabase } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import {
  createOrganisation,
  listOrganisations,
  rotateApiKey,
} from '../features/organisations/organisations.js';
import { registerAccountCommands } from './accounts.js';
import { registerDisputeCommands } from './disputes.js';
import { registerJobCommands } from './jobs.js';
import { modeOption } from './options.js';
import { registerOrgSettingsCommand } from './org-settings.js';
import { registerPrivacyCommands } from './privacy.js';
import { registerRuleCommands } from './rules.js';
import { registerSecretCommands } from './secrets.js';
import { registerStatsCommand } from './stats.js';
import { registerTemplateCommands } from './templates.js';
import { isoOrNull, when } from './values.js';
import { registerWebhookCommands } from './webhooks.js';

/**
 * The operator CLI: `npm run cli -- <group> <command>`. Every command takes --json for scripts; without
 * it, output is for people. A failure exits 1 with one line on stderr.
 */
const program = new Command('rebuttal').description('Rebuttal operator commands').showHelpAfterError();

async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const database = await openDatabase(loadConfig(), { max: 2, listens: false });
  try {
    await runMigrations(database.sessionDb);
    return await work(database.db);
  } finally {
    await database.close();
  }
}

function print(json: boolean, value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value) : human);
}

const org = program.command('org').description('organisations');
org
  .command('create')
  .description('create an organisation with its test and live keys (shown only now)')
  .requiredOption('--name <name>', 'organisation name')
  .option('--json', 'print JSON')
  .action(async (options: { name: string; json?: boolean }) => {
    const created = await withDatabase((db) => createOrganisation(db, { name: options.name }));
    print(
      Boolean(options.json),
      { org: created.org, test_key: created.test_key, live_key: created.live_key },
      `organisation ${created.org} (${created.name})\n  test key: ${created.test_key}\n  live key: ${created.live_key}\nThe keys are shown only now: store them safely.`,
    );
  });
org
  .command('list')
  .description('list organisations')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) => {
    const rows = await withDatabase((db) => listOrganisations(db));
    print(
      Boolean(options.json),
      rows,
      rows.map((row) => `${row.org}  ${row.api_version}  ${row.name}`).join('\n') || 'no organisations',
    );
  });

program
  .command('key')
  .description('API keys')
  .command('rotate')
  .description('replace the key of one mode; the old key stops working at once, or after --grace-hours')
  .requiredOption('--org <id>', 'organisation id')
  .addOption(modeOption())
  .option('--grace-hours <hours>', 'how long the old key keeps working beside the new one (0-720)', '0')
  .option('--json', 'print JSON')
  .action(async (options: { org: string; mode: 'test' | 'live'; graceHours: string; json?: boolean }) => {
    const { org, mode, graceHours } = options;
    const rotated = await withDatabase((db) => rotateApiKey(db, { org, mode, graceHours }));
    if (!rotated) throw new Error(`no organisation ${org}`);
    const until = rotated.previousUntil;
    print(
      Boolean(options.json),
      { org, mode, [`${mode}_key`]: rotated.key, previous_key_expires: isoOrNull(until) },
      `new ${mode} key for ${org}: ${rotated.key}\n${
        until ? `The old key keeps working until ${when(until)}.` : 'The old key no longer works;'
      } the new one is shown only now.`,
    );
  });

registerOrgSettingsCommand(org, { withDatabase, print });
registerAccountCommands(program, { withDatabase, print });
registerRuleCommands(program, { withDatabase, print });
registerJobCommands(program, { print });
registerPrivacyCommands(program, { withDatabase, print });
registerDisputeCommands(program, { withDatabase, print });
registerTemplateCommands(program, { withDatabase, print });
registerWebhookCommands(program, { withDatabase, print });
registerSecretCommands(program, { withDatabase, print });
registerStatsCommand(program, { withDatabase, print });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
