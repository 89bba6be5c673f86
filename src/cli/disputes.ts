import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createAdapterRegistry } from '../processors/registry.js';
import { importDisputeReport } from '../services/dispute-import.js';
import type { CliIo } from './accounts.js';
import { modeOption } from './options.js';

/** `dispute import`: disputes of processors without a list call, from the report their portal gives. */
export function registerDisputeCommands(program: Command, io: CliIo): void {
  const dispute = program.command('dispute').description('disputes');

  dispute
    .command('import')
    .description("import a processor's dispute report (CSV) into a connected account (Amex, Adyen, Worldpay)")
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--account <name>', 'connected account name', 'default')
    .requiredOption('--file <path>', 'the report file, as downloaded from the processor')
    .option('--json', 'print JSON')
    .action(
      async (options: {
        org: string;
        mode: 'test' | 'live';
        account: string;
        file: string;
        json?: boolean;
      }) => {
        const csv = await readFile(options.file, 'utf8');
        const result = await io.withDatabase((db) =>
          importDisputeReport(
            { db, adapters: createAdapterRegistry() },
            { org: options.org, mode: options.mode, account: options.account, csv },
          ),
        );
        const { outcome: _outcome, foreign, ...counts } = result;
        io.print(
          Boolean(options.json),
          { ...counts, foreign: foreign.length },
          `imported ${result.rows} rows into ${options.account} (${options.mode}): ${result.created} created, ` +
            `${result.updated} updated, ${result.closed} closed, ${result.unchanged} unchanged` +
            (foreign.length > 0 ? `, ${foreign.length} held by another account and left alone` : ''),
        );
      },
    );
}
