import { type Command, Option } from 'commander';
import { loadSecrets } from '../composition.js';
import { loadConfig } from '../config.js';
import {
  describeRequest,
  listPersonalDataRequests,
  readPersonalDataExport,
} from '../features/personal-data/requests.js';
import type { SecretBox } from '../secrets.js';
import type { CliIo } from './accounts.js';

/**
 * `privacy list|export`: personal data requests (POST /v1/personal-data/retrieve and /remove). This service
 * sends no email: the operator sends a retrieve request's export to its notification address, and
 * confirms a removal to the address given with it once the removal is done (no longer `waiting`).
 */

async function openSecrets(): Promise<SecretBox> {
  return (await loadSecrets(loadConfig())).secrets;
}

export function registerPrivacyCommands(program: Command, io: CliIo): void {
  const privacy = program.command('privacy').description('personal data requests (retrieve and remove)');

  privacy
    .command('list')
    .description("list an organisation's personal data requests, newest first")
    .requiredOption('--org <id>', 'organisation id')
    .addOption(new Option('--mode <mode>', 'test or live').choices(['test', 'live']))
    .option('--json', 'print JSON')
    .action(async (options: { org: string; mode?: 'test' | 'live'; json?: boolean }) => {
      const secrets = await openSecrets();
      const rows = await io.withDatabase((db) =>
        listPersonalDataRequests(db, { org: options.org, mode: options.mode }),
      );
      const requests = rows.map((row) => describeRequest(secrets, row));
      io.print(
        Boolean(options.json),
        requests,
        requests
          .map((request) => {
            const counts = Object.entries(request.summary ?? {})
              .map(([table, count]) => `${table} ${count}`)
              .join(', ');
            const exported = request.export ? `  export ${request.export}` : '';
            const outcome = request.failure
              ? `failed: ${request.failure}`
              : request.completed === null
                ? 'waiting'
                : `(${counts})`;
            return (
              `${request.id}  ${request.mode}  ${request.kind}  ${request.created}  ` +
              `notify ${request.notification_email ?? '-'}${exported}  ${outcome}`
            );
          })
          .join('\n') || `no personal data requests for ${options.org}`,
      );
    });

  privacy
    .command('export')
    .description('print the export of a retrieve request (JSON), to send to its notification_email')
    .requiredOption('--request <id>', 'the pdr_… id of a retrieve request')
    .option('--json', 'print the JSON on one line (default: indented)')
    .action(async (options: { request: string; json?: boolean }) => {
      const secrets = await openSecrets();
      const exported = await io.withDatabase((db) => readPersonalDataExport(db, secrets, options.request));
      io.print(Boolean(options.json), exported, JSON.stringify(exported, null, 2));
    });
}
