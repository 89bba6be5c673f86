import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { queuePorts } from '../composition.js';
import { documentLimits, loadConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { disputePath, toDisputeObject } from '../domain/disputes.js';
import { type DisputeDeps, retrieveDispute } from '../features/disputes/commands.js';
import { createProductImageFetcher } from '../features/disputes/product-images.js';
import type { DisputeRow, TemplateRow } from '../features/disputes/records.js';
import { resubmitDispute } from '../features/disputes/resubmit.js';
import { importDisputeReport } from '../features/mirroring/report-import.js';
import {
  disputeOfSubmission,
  listSubmissionAttempts,
  type SubmissionAttempt,
} from '../features/submissions/attempts.js';
import { jobCatalog } from '../jobs/catalog.js';
import { createAdapterRegistry } from '../processors/registry.js';
import type { CliIo } from './accounts.js';
import { cliLogger } from './logger.js';
import { modeOption } from './options.js';
import { withQueues } from './queues.js';
import { table } from './table.js';
import { callerFor, type Mode } from './tenant.js';
import { isoOrNull, when } from './values.js';

/**
 * `dispute import|show|resubmit`: disputes of processors without a list call, from the report their portal
 * gives; one dispute as the API shows it, with its submission attempts; and submitting again one whose
 * last submission failed, through the API's submit.
 */

function attemptJson(attempt: SubmissionAttempt) {
  return {
    id: attempt.id,
    status: attempt.status,
    adapter: attempt.adapter,
    created: isoOrNull(attempt.createdAt),
    completed: isoOrNull(attempt.completedAt),
    failure: attempt.failure?.reason ?? null,
    failure_status: attempt.failure?.status ?? null,
    retried_as: attempt.retriedAs,
    // The `submission` queue job that ran it (`jobs show --queue submission --id …`).
    job: jobCatalog.submit.jobId?.({ submissionId: attempt.firstAttempt }) ?? '',
  };
}

/** `GET /v1/disputes/:id`'s body under `dispute`, and the attempts at submitting it, oldest first. */
async function showDispute(db: Db, found: { dispute: DisputeRow; template: TemplateRow | null }) {
  const attempts = await listSubmissionAttempts(db, found.dispute.uid);
  return {
    dispute: toDisputeObject(found.dispute, found.template, disputePath(found.dispute.id)),
    submissions: attempts.map(attemptJson),
  };
}

function describeShown(shown: Awaited<ReturnType<typeof showDispute>>): string {
  const { dispute, submissions } = shown;
  const missing = Object.keys(dispute.missing_fields);
  const lines = [
    `dispute ${dispute.id} (${dispute.livemode ? 'live' : 'test'}): ${dispute.state}`,
    `  ${dispute.reason}, ${dispute.amount} ${dispute.currency}, charge ${dispute.charge ?? '-'}, ` +
      `due ${dispute.due_by ?? '-'}, ${dispute.source}${dispute.processor ? ` (${dispute.processor})` : ''}` +
      `${dispute.account ? `, account ${dispute.account}` : ''}`,
    `  template ${dispute.template ?? '-'}, missing fields: ${missing.join(', ') || 'none'}, ` +
      `submitted ${dispute.submitted_count} time${dispute.submitted_count === 1 ? '' : 's'}` +
      `${dispute.submitted_at ? ` (last ${dispute.submitted_at})` : ''}`,
  ];
  if (submissions.length === 0) return [...lines, 'no submission attempts'].join('\n');
  return [
    ...lines,
    'submission attempts, oldest first:',
    table(
      ['id', 'status', 'created', 'completed', 'job', 'failure'],
      submissions.map((attempt) => [
        attempt.id,
        attempt.retried_as ? `${attempt.status}, retried as ${attempt.retried_as}` : attempt.status,
        when(attempt.created ? new Date(attempt.created) : null),
        when(attempt.completed ? new Date(attempt.completed) : null),
        attempt.job,
        attempt.failure ?? '',
      ]),
    ),
  ].join('\n');
}

/**
 * The dispute service as the API wires it, with the submission queue open: a submit enqueues its job and
 * waits up to SUBMIT_WAIT_MS for the outcome, as a submit request does. Redis must answer first (or the
 * command fails before changing anything); lost after the commit, the deadline sweep enqueues the
 * prepared submission, and the command says it is still being sent.
 */
async function withDisputeService<T>(io: CliIo, work: (deps: DisputeDeps) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = cliLogger(config);
  return withQueues((queues) =>
    io.withDatabase((db) =>
      work({
        db,
        adapters: createAdapterRegistry(),
        submitter: queuePorts({ db, queues, logger, config }).submitter,
        logger,
        documentLimits: documentLimits(config),
        productImages: createProductImageFetcher({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }),
        filesMaxBytes: config.FILES_MAX_BYTES,
      }),
    ),
  );
}

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

  dispute
    .command('show')
    .description('show a dispute as the API does (GET /v1/disputes/:id), with its submission attempts')
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--id <dispute>', 'dispute id')
    .option(
      '--submission <sub_id>',
      'instead of --id: the dispute of this attempt (a submission job names it)',
    )
    .option('--json', 'print JSON: {dispute: <the API object>, submissions: [...]}')
    .action(
      async (options: { org: string; mode: Mode; id?: string; submission?: string; json?: boolean }) => {
        if ((options.id === undefined) === (options.submission === undefined)) {
          throw new Error('give either --id or --submission');
        }
        const shown = await io.withDatabase(async (db) => {
          const caller = await callerFor(db, options.org, options.mode);
          const id = options.id ?? (await disputeOfSubmission(db, caller, options.submission ?? ''));
          return showDispute(db, await retrieveDispute(db, caller, id));
        });
        io.print(Boolean(options.json), shown, describeShown(shown));
      },
    );

  dispute
    .command('resubmit')
    .description("submit again a dispute whose last submission failed, by retrying that attempt's job")
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .requiredOption('--id <dispute>', 'dispute id')
    .option('--json', 'print JSON: {dispute, submissions}, as `dispute show` prints them')
    .action(async (options: { org: string; mode: Mode; id: string; json?: boolean }) => {
      const shown = await withDisputeService(io, async (deps) => {
        const caller = await callerFor(deps.db, options.org, options.mode);
        const outcome = await resubmitDispute(deps, caller, options.id);
        return showDispute(deps.db, outcome);
      });
      const state = shown.dispute.state;
      const summary =
        state === 'compiling_evidence'
          ? `dispute ${options.id} resubmitted: still being sent (the processor is retried); follow it with dispute show`
          : `dispute ${options.id} resubmitted: ${state}`;
      io.print(Boolean(options.json), shown, `${summary}\n${describeShown(shown)}`);
    });
}
