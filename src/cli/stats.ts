import type { Command } from 'commander';
import { maxStatsGroups, statsQuery } from '../domain/dispute-stats.js';
import { formatAmount } from '../domain/evidence-format.js';
import { parseInput } from '../domain/parse-input.js';
import { statsOutcomes } from '../domain/states.js';
import { disputeStats } from '../features/stats/disputes.js';
import { disputeStatsObject } from '../features/stats/objects.js';
import type { CliIo } from './accounts.js';
import { modeOption } from './options.js';
import { table } from './table.js';
import { callerFor, type Mode } from './tenant.js';

/**
 * `stats`: the outcome statistics of `GET /v1/stats/disputes` (docs/api.md, "Statistics") for one
 * organisation and mode, from the same service function and read from the same parameters: a table for
 * people, or with --json the object the API answers.
 */

type StatsObject = ReturnType<typeof disputeStatsObject>;

/** `2d 3h`, `4h 5m`, `6m 7s`, `8s`: a median to read at a glance. */
function duration(seconds: number | null): string {
  if (seconds === null) return '-';
  const [days, hours, minutes] = [86_400, 3_600, 60].map((unit) => Math.floor(seconds / unit));
  if (days) return `${days}d ${(hours ?? 0) % 24}h`;
  if (hours) return `${hours}h ${(minutes ?? 0) % 60}m`;
  if (minutes) return `${minutes}m ${seconds % 60}s`;
  return `${seconds}s`;
}

const percent = (rate: number | null) => (rate === null ? '-' : `${(rate * 100).toFixed(1)}%`);

/** Rows of counts, each followed by a row per further currency; the counts on the first row only. */
function withCurrencies(counts: string[], amounts: string[][], none: string[]): string[][] {
  const [first = none, ...more] = amounts;
  return [[...counts, ...first], ...more.map((line) => [...counts.map(() => ''), ...line])];
}

/** One row per group and currency; a group's counts on its first row only. */
function describeDisputes(stats: StatsObject, org: string, mode: string): string {
  const range = `disputed from ${stats.from} to ${stats.to} UTC`;
  if (stats.groups.length === 0) return `no disputes of ${org} (${mode}) ${range}`;
  const rows = stats.groups.flatMap((group) => {
    const ce = group.compelling_evidence;
    const counts = [
      ...stats.group_by.map((dimension) => group.group[dimension] ?? '-'),
      String(group.count),
      ...statsOutcomes.map((outcome) => String(group[outcome])),
      String(group.prevented),
      percent(group.win_rate),
      String(group.submitted),
      duration(group.median_seconds_to_submission),
      String(ce.visa_fraud),
      `${ce.qualified} (${percent(ce.qualified_share)})`,
      `${percent(ce.win_rate_qualified)} / ${percent(ce.win_rate_not_qualified)}`,
    ];
    const amounts = Object.entries(group.amounts).map(([currency, { disputed, won, lost }]) =>
      [disputed, won, lost].map((amount) => formatAmount(amount, currency)),
    );
    return withCurrencies(counts, amounts, ['-', '-', '-']);
  });
  const header = [
    ...stats.group_by,
    'disputes',
    ...statsOutcomes.map((outcome) => (outcome === 'closed_otherwise' ? 'closed' : outcome)),
    'prevented',
    'win rate',
    'submitted',
    'median to submit',
    'visa fraud',
    'ce qualified',
    'win rate qualified / not',
    'amount disputed',
    'amount won',
    'amount lost',
  ];
  const more = stats.has_more ? `; the ${maxStatsGroups} with the most disputes, more exist` : '';
  return `${stats.groups.length} groups of ${org} (${mode}) ${range}${more}\n${table(header, rows)}`;
}

/** The alerts' table, grouped by the dimensions alerts have. */
function describeAlerts(stats: StatsObject, org: string, mode: string): string {
  const { alerts } = stats;
  const range = `created from ${stats.from} to ${stats.to} UTC`;
  if (alerts.groups.every((group) => group.count === 0)) return `no alerts of ${org} (${mode}) ${range}`;
  const rows = alerts.groups.flatMap((group) => {
    const counts = [
      ...alerts.group_by.map((dimension) => group.group[dimension] ?? '-'),
      String(group.count),
      String(group.refunded),
      String(group.followed_by_dispute),
    ];
    const amounts = Object.entries(group.refunded_amounts).map(([currency, amount]) => [
      formatAmount(amount, currency),
    ]);
    return withCurrencies(counts, amounts, ['-']);
  });
  const header = [...alerts.group_by, 'alerts', 'refunded', 'followed by dispute', 'amount refunded'];
  const more = alerts.has_more ? `; the ${maxStatsGroups} with the most alerts, more exist` : '';
  return `${alerts.groups.length} alert groups of ${org} (${mode}) ${range}${more}\n${table(header, rows)}`;
}

function describeStats(stats: StatsObject, org: string): string {
  const mode = stats.livemode ? 'live' : 'test';
  return `${describeDisputes(stats, org, mode)}\n\n${describeAlerts(stats, org, mode)}`;
}

export function registerStatsCommand(program: Command, io: CliIo): void {
  program
    .command('stats')
    .description(
      'outcome statistics of the disputes disputed in a range, as GET /v1/stats/disputes counts them',
    )
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--from <time>', 'disputed at or after (ISO 8601 or Unix seconds); default a year before --to')
    .option('--to <time>', 'disputed before; default now')
    .option(
      '--group-by <dimension>',
      'reason, processor, template, network or month; give it twice for two',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--json', 'print JSON: the dispute_stats object of the API')
    .action(
      async (options: {
        org: string;
        mode: Mode;
        from?: string;
        to?: string;
        groupBy: string[];
        json?: boolean;
      }) => {
        // The API's own parameters and checks, so that a bad option is refused in the API's words.
        const query = parseInput(statsQuery, {
          from: options.from,
          to: options.to,
          group_by: options.groupBy,
        });
        const stats = await io.withDatabase(async (db) => {
          const caller = await callerFor(db, options.org, options.mode);
          return disputeStatsObject(await disputeStats(db, caller, query, new Date()), caller.livemode);
        });
        io.print(Boolean(options.json), stats, describeStats(stats, options.org));
      },
    );
}
