import type { Job, JobType } from 'bullmq';
import { type Command, Option } from 'commander';
import type { Queues } from '../jobs/catalog.js';
import { type QueueName, queueNames } from '../queue-names.js';
import type { CliIo } from './accounts.js';
import { withQueues } from './queues.js';
import { table } from './table.js';
import { isoOrNull, limitOption } from './values.js';

/**
 * `jobs list|failed|show|retry|remove`: what on-call does in Bull Board, from a terminal. Retrying a failed
 * submission job submits the dispute again (features/submissions/reopen.ts explains how a retry reopens it).
 * Payloads are row ids only (jobs/catalog.ts), so showing a job shows no secret.
 */

const queueOption = () =>
  new Option('--queue <queue>', 'queue name').choices([...queueNames]).makeOptionMandatory();

/** The states `jobs list` takes; `waiting` includes prioritized jobs (submissions a client waits on). */
const listStates = ['failed', 'waiting', 'delayed', 'active', 'completed'] as const;
type ListState = (typeof listStates)[number];
const typesOf: Record<ListState, JobType[]> = {
  failed: ['failed'],
  waiting: ['wait', 'prioritized'],
  delayed: ['delayed'],
  active: ['active'],
  completed: ['completed'],
};

const iso = (ms: number | undefined) => isoOrNull(ms ? new Date(ms) : null);

/** How many lines of the latest stack trace `jobs show` prints: where it failed, not the whole trace. */
const stackLines = 8;

async function findJob(queues: Queues, queue: QueueName, id: string): Promise<Job> {
  const job = await queues.byName[queue].getJob(id);
  if (!job) throw new Error(`no job ${id} in ${queue}`);
  return job;
}

async function describeJob(job: Job) {
  const stack = job.stacktrace?.at(-1);
  return {
    id: job.id,
    name: job.name,
    state: await job.getState(),
    data: job.data as unknown,
    attempts: job.attemptsMade,
    max_attempts: job.opts.attempts ?? 1,
    created: iso(job.timestamp),
    processed: iso(job.processedOn),
    finished: iso(job.finishedOn),
    failed_reason: job.failedReason || null,
    stacktrace: stack ? stack.split('\n').slice(0, stackLines) : [],
  };
}

export function registerJobCommands(program: Command, io: Pick<CliIo, 'print'>): void {
  const jobs = program.command('jobs').description('queued jobs, for on-call');
  jobs
    .command('list')
    .description('list the jobs of a queue in one state, newest first')
    .addOption(queueOption())
    .addOption(new Option('--state <state>', 'job state').choices([...listStates]).makeOptionMandatory())
    .addOption(limitOption(20))
    .option('--json', 'print JSON')
    .action(async (options: { queue: QueueName; state: ListState; limit: number; json?: boolean }) => {
      const rows = await withQueues(async (queues) => {
        const queue = queues.byName[options.queue];
        const found = await Promise.all(
          typesOf[options.state].map(async (type) =>
            (await queue.getJobs([type], 0, options.limit - 1)).map((job) => ({
              job,
              state: type === 'wait' ? 'waiting' : type,
            })),
          ),
        );
        return found
          .flat()
          .sort((a, b) => b.job.timestamp - a.job.timestamp)
          .slice(0, options.limit)
          .map(({ job, state }) => ({
            id: job.id,
            name: job.name,
            state,
            attempts: job.attemptsMade,
            created: iso(job.timestamp),
            finished: iso(job.finishedOn),
            reason: job.failedReason || null,
          }));
      });
      io.print(
        Boolean(options.json),
        rows,
        rows.length === 0
          ? `no ${options.state} jobs in ${options.queue}`
          : table(
              ['id', 'name', 'state', 'attempts', 'created', 'reason'],
              rows.map((row) => [
                row.id ?? '',
                row.name,
                row.state,
                String(row.attempts),
                row.created ?? '-',
                row.reason ?? '',
              ]),
            ),
      );
    });
  jobs
    .command('failed')
    .description('list failed jobs with the reason they failed (newest first, at most 100)')
    .addOption(queueOption())
    .option('--json', 'print JSON')
    .action(async (options: { queue: QueueName; json?: boolean }) => {
      const failed = await withQueues(async (queues) => queues.byName[options.queue].getFailed(0, 99));
      const rows = failed.map((job) => ({
        id: job.id,
        name: job.name,
        attempts: job.attemptsMade,
        failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
        reason: job.failedReason,
      }));
      io.print(
        Boolean(options.json),
        rows,
        rows.map((row) => `${row.id}  ${row.name}  ${row.failed_at}  ${row.reason}`).join('\n') ||
          `no failed jobs in ${options.queue}`,
      );
    });
  jobs
    .command('retry')
    .description('retry one failed job (--id) or every failed job of the queue (--all)')
    .addOption(queueOption())
    .option('--id <jobId>', 'the failed job')
    .option('--all', 'every failed job of the queue')
    .option('--json', 'print JSON')
    .action(async (options: { queue: QueueName; id?: string; all?: boolean; json?: boolean }) => {
      if (Boolean(options.id) === Boolean(options.all)) throw new Error('give either --id or --all');
      const retried = await withQueues(async (queues) => {
        const queue = queues.byName[options.queue];
        if (options.id) {
          const job = await queue.getJob(options.id);
          if (!job || (await job.getState()) !== 'failed') {
            throw new Error(`no failed job ${options.id} in ${options.queue}`);
          }
          await job.retry('failed');
          return [options.id];
        }
        // Every failed job at this moment; one another operator retried meanwhile is theirs, not an error.
        const ids: string[] = [];
        for (const job of await queue.getFailed()) {
          const moved = await job.retry('failed').then(
            () => true,
            () => false,
          );
          if (moved) ids.push(job.id ?? '');
        }
        return ids;
      });
      io.print(Boolean(options.json), { retried }, `retried ${retried.length} job(s): ${retried.join(', ')}`);
    });
  jobs
    .command('show')
    .description('show one job: payload, state, attempts, times, and why it failed')
    .addOption(queueOption())
    .requiredOption('--id <jobId>', 'the job (as `jobs list` shows it)')
    .option('--json', 'print JSON')
    .action(async (options: { queue: QueueName; id: string; json?: boolean }) => {
      const shown = await withQueues(async (queues) =>
        describeJob(await findJob(queues, options.queue, options.id)),
      );
      const lines = [
        `job ${shown.id} (${shown.name}) in ${options.queue}: ${shown.state}`,
        `  data: ${JSON.stringify(shown.data)}`,
        `  attempts: ${shown.attempts} of ${shown.max_attempts}`,
        `  created ${shown.created ?? '-'}, processed ${shown.processed ?? '-'}, finished ${shown.finished ?? '-'}`,
        ...(shown.failed_reason ? [`  failed: ${shown.failed_reason}`] : []),
        ...shown.stacktrace.map((line) => `    ${line.trim()}`),
      ];
      io.print(Boolean(options.json), shown, lines.join('\n'));
    });
  jobs
    .command('remove')
    .description('remove one job that is not running (a waiting, delayed, failed or completed one)')
    .addOption(queueOption())
    .requiredOption('--id <jobId>', 'the job')
    .option('--json', 'print JSON')
    .action(async (options: { queue: QueueName; id: string; json?: boolean }) => {
      const state = await withQueues(async (queues) => {
        const job = await findJob(queues, options.queue, options.id);
        const before = await job.getState();
        if (before === 'active') {
          throw new Error(
            `job ${options.id} is active: a running job cannot be removed; let it finish or fail`,
          );
        }
        await job.remove();
        return before;
      });
      io.print(
        Boolean(options.json),
        { removed: options.id, state },
        `removed ${state} job ${options.id} from ${options.queue}`,
      );
    });
}
