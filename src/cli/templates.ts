import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { documentLimits, loadConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { parseInput } from '../domain/parse-input.js';
import { type CreateTemplateInput, createTemplateInput } from '../domain/templates.js';
import type { TemplateRow } from '../features/disputes/records.js';
import { templateObject } from '../features/templates/objects.js';
import { importTemplates, listTemplates, retrieveTemplate } from '../features/templates/templates.js';
import type { Tenant } from '../features/tenancy.js';
import type { CliIo } from './accounts.js';
import { modeOption } from './options.js';
import { table } from './table.js';
import { callerFor, type Mode } from './tenant.js';

/**
 * `template export|import`: an organisation's templates as a file, to copy them between modes or
 * organisations, keep them under version control, or restore them. The file holds template objects as
 * the API answers them (`GET /v1/templates/:id`); import takes them back through the API's own schema and
 * template service, every entry or none.
 */

/** Every template of the tenant, oldest first (importing them in this order keeps the list's order). */
async function allTemplates(db: Db, tenant: Tenant): Promise<TemplateRow[]> {
  const rows: TemplateRow[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await listTemplates(db, tenant, { limit: 100, ...(startingAfter && { startingAfter }) });
    rows.push(...page.data);
    startingAfter = page.data.at(-1)?.id;
    if (!page.hasMore || startingAfter === undefined) return rows.reverse();
  }
}

/** A file of one template object, a list of them, or the API's list object (`{"data": [...]}`). */
function entriesOf(file: string, contents: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(contents);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (Array.isArray(parsed)) return parsed;
  if (typeof parsed === 'object' && parsed !== null) {
    const { data } = parsed as { data?: unknown };
    return Array.isArray(data) ? data : [parsed];
  }
  throw new Error(`${file} holds no template: expected a template object or a list of them`);
}

/** Each entry through the API's create schema; the first bad one fails the import, named by its index. */
function parseEntries(entries: unknown[]): CreateTemplateInput[] {
  return entries.map((entry, index) => {
    try {
      return parseInput(createTemplateInput, entry);
    } catch (error) {
      const id = (entry as { id?: unknown } | null)?.id;
      const named = typeof id === 'string' ? ` ('${id}')` : '';
      throw new Error(
        `template at index ${index}${named}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });
}

function templatesTable(rows: { id: string; name: string | null; fields: unknown[]; action?: string }[]) {
  return table(
    ['id', ...(rows.some((row) => row.action) ? ['action'] : []), 'fields', 'name'],
    rows.map((row) => [
      row.id,
      ...(row.action ? [row.action] : []),
      String(row.fields.length),
      row.name ?? '',
    ]),
  );
}

export function registerTemplateCommands(program: Command, io: CliIo): void {
  const template = program.command('template').description("an organisation's templates, as files");

  template
    .command('export')
    .description('print (or write to --file) one template or all of them, as the API shows them')
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--id <template>', 'only this template (default: all of the mode)')
    .option('--file <path>', 'write the JSON here instead of printing it')
    .option('--json', 'print JSON on one line (default: indented); with --file, what was written')
    .action(async (options: { org: string; mode: Mode; id?: string; file?: string; json?: boolean }) => {
      const rows = await io.withDatabase(async (db) => {
        const caller = await callerFor(db, options.org, options.mode);
        return options.id === undefined
          ? allTemplates(db, caller)
          : [await retrieveTemplate(db, caller, options.id)];
      });
      const objects = rows.map((row) => templateObject(row));
      const exported = options.id === undefined ? objects : objects[0];
      if (options.file === undefined) {
        io.print(Boolean(options.json), exported, JSON.stringify(exported, null, 2));
        return;
      }
      await writeFile(options.file, `${JSON.stringify(exported, null, 2)}\n`);
      io.print(
        Boolean(options.json),
        { file: options.file, templates: objects.map((object) => object.id) },
        `${objects.length} template${objects.length === 1 ? '' : 's'} of ${options.org} (${options.mode}) ` +
          `written to ${options.file}` +
          (objects.length > 0 ? `\n${templatesTable(rows)}` : ''),
      );
    });

  template
    .command('import')
    .description(
      'create or update every template of a file (as export writes it); a bad entry changes nothing',
    )
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .requiredOption('--file <path>', 'a template object, a list of them, or a list object')
    .option('--json', 'print JSON')
    .action(async (options: { org: string; mode: Mode; file: string; json?: boolean }) => {
      const inputs = parseEntries(entriesOf(options.file, await readFile(options.file, 'utf8')));
      const imported = await io.withDatabase(async (db) =>
        importTemplates(
          db,
          await callerFor(db, options.org, options.mode),
          inputs,
          documentLimits(loadConfig()),
        ),
      );
      const rows = imported.map(({ template: row, action }) => ({ ...row, action }));
      io.print(
        Boolean(options.json),
        imported.map(({ template: row, action }) => ({ id: row.id, action })),
        `${imported.length} template${imported.length === 1 ? '' : 's'} imported into ${options.org} ` +
          `(${options.mode})` +
          (rows.length > 0 ? `\n${templatesTable(rows)}` : ''),
      );
    });
}
