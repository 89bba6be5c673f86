import { type Command, Option } from 'commander';
import { loadConfig } from '../config.js';
import {
  getOrganisationSettings,
  type OrganisationSettings,
  updateOrganisationSettings,
} from '../features/organisations/organisations.js';
import type { CliIo } from './accounts.js';
import { table } from './table.js';

/**
 * `org settings`: shows an organisation's settings, after applying the changes given (none: it only
 * shows them). docs/api.md, "Organisation settings", says what each one does.
 */

interface SettingsOptions {
  org: string;
  apiVersion?: string;
  queueLeadHours?: string;
  dueSoonHours?: string;
  mode?: 'test' | 'live';
  defaultTemplate: string[];
  allowedOrigin: string[];
  removeAllowedOrigin: string[];
  visaComplianceFee?: string;
  alertRefundUpTo: string[];
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

const plural = (hours: number) => `${hours} hour${hours === 1 ? '' : 's'}`;

function describe(settings: OrganisationSettings, defaultDueSoonHours: number): string {
  const dueSoon =
    settings.due_soon_hours === null
      ? `${plural(defaultDueSoonHours)} (the DUE_SOON_HOURS default)`
      : plural(settings.due_soon_hours);
  const defaults = (['test', 'live'] as const).flatMap((mode) =>
    Object.entries(settings.default_templates[mode])
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, template]) => [mode, key, template]),
  );
  const thresholds = (['test', 'live'] as const).flatMap((mode) =>
    Object.entries(settings.alert_refund_up_to[mode])
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, amount]) => [mode, currency, String(amount)]),
  );
  return [
    `organisation ${settings.org} (${settings.name})`,
    table(
      ['setting', 'value'],
      [
        ['api version', settings.api_version],
        ['queue lead', plural(settings.queue_lead_hours)],
        ['due-soon window', dueSoon],
        ['visa compliance fee', settings.visa_compliance_fee],
      ],
    ),
    defaults.length === 0
      ? 'default templates: none'
      : `default templates:\n${table(['mode', 'for', 'template'], defaults)}`,
    `allowed origins: ${settings.allowed_origins.join(', ') || 'none'}`,
    thresholds.length === 0
      ? 'alert refunds up to: none'
      : `alert refunds up to (minor units):\n${table(['mode', 'currency', 'amount'], thresholds)}`,
  ].join('\n');
}

export function registerOrgSettingsCommand(org: Command, io: CliIo): void {
  org
    .command('settings')
    .description("show an organisation's settings, after applying any changes given")
    .requiredOption('--org <id>', 'organisation id')
    .option('--api-version <version>', 'the API version of requests that send no version header')
    .option('--queue-lead-hours <hours>', 'how long before due_by a queued dispute is submitted (0-720)')
    .option('--due-soon-hours <hours>', 'when dispute.due_soon is sent (1-720, or "default": DUE_SOON_HOURS)')
    .addOption(
      new Option('--mode <mode>', 'the mode --default-template and --alert-refund-up-to apply to').choices([
        'test',
        'live',
      ]),
    )
    .option(
      '--default-template <key=templateId>',
      'template for new disputes of a reason, or of a network reason code (visa:10.4), when no rule gives one; `<key>=` removes it (repeatable)',
      collect,
      [],
    )
    .option(
      '--allowed-origin <origin>',
      'a site (https://shop.example.com) whose pages may call the API from a browser (repeatable)',
      collect,
      [],
    )
    .option('--remove-allowed-origin <origin>', 'no longer allow that site (repeatable)', collect, [])
    .option(
      '--visa-compliance-fee <accept|refuse>',
      "whether a Visa compliance dispute is answered with the network's fee acknowledged (default refuse)",
    )
    .option(
      '--alert-refund-up-to <currency:amount>',
      'refund an actionable alert whose charge is at most this many minor units in that currency; `<currency>:none` removes one, `none` all of the mode (repeatable)',
      collect,
      [],
    )
    .option('--json', 'print JSON')
    .action(async (options: SettingsOptions) => {
      const changing =
        options.apiVersion !== undefined ||
        options.queueLeadHours !== undefined ||
        options.dueSoonHours !== undefined ||
        options.defaultTemplate.length > 0 ||
        options.allowedOrigin.length > 0 ||
        options.removeAllowedOrigin.length > 0 ||
        options.visaComplianceFee !== undefined ||
        options.alertRefundUpTo.length > 0;
      const settings = await io.withDatabase((db) =>
        changing
          ? updateOrganisationSettings(db, options.org, {
              apiVersion: options.apiVersion,
              queueLeadHours: options.queueLeadHours,
              dueSoonHours: options.dueSoonHours,
              mode: options.mode,
              defaultTemplates: options.defaultTemplate,
              allowedOrigins: options.allowedOrigin,
              removeAllowedOrigins: options.removeAllowedOrigin,
              visaComplianceFee: options.visaComplianceFee as 'accept' | 'refuse' | undefined,
              alertRefundUpTo: options.alertRefundUpTo,
            })
          : getOrganisationSettings(db, options.org),
      );
      io.print(Boolean(options.json), settings, describe(settings, loadConfig().DUE_SOON_HOURS));
    });
}
