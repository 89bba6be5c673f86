import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadSecrets } from '../composition.js';
import { loadConfig } from '../config.js';
import { resealAll } from '../features/secrets/reseal.js';
import type { CliIo } from './accounts.js';
import { table } from './table.js';

/**
 * `secrets reseal`: seals every stored secret again under the current APP_SECRET, after it was replaced
 * (docs/operations.md "Commands"). What it could not open is counted and left alone, and the command then
 * fails, so that APP_SECRET_PREVIOUS is not removed while it still holds something.
 */
export function registerSecretCommands(program: Command, io: CliIo): void {
  program
    .command('secrets')
    .description('stored secrets (sealed with APP_SECRET)')
    .command('reseal')
    .description('seal every stored secret again under APP_SECRET (opening with APP_SECRET_PREVIOUS too)')
    .addOption(
      new Option('--batch <rows>', 'rows per transaction (1 to 10000)')
        .argParser((value: string): number => {
          if (!/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 10_000) {
            throw new InvalidArgumentError('must be 1 to 10000');
          }
          return Number(value);
        })
        .default(500),
    )
    .option('--json', 'print JSON')
    .action(async (options: { batch: number; json?: boolean }) => {
      const { secrets } = await loadSecrets(loadConfig());
      const counts = await io.withDatabase((db) => resealAll(db, secrets, options.batch));
      io.print(
        Boolean(options.json),
        counts,
        table(
          ['table', 'column', 'resealed', 'current', 'unreadable'],
          counts.map((count) => [
            count.table,
            count.column,
            String(count.resealed),
            String(count.current),
            String(count.unreadable),
          ]),
        ),
      );
      const unreadable = counts.reduce((sum, count) => sum + count.unreadable, 0);
      if (unreadable > 0) {
        throw new Error(
          `${unreadable} sealed value(s) open under neither APP_SECRET nor APP_SECRET_PREVIOUS; they were left as they are`,
        );
      }
    });
}
