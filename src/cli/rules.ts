import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { type Rule, type RuleConditions, ruleToFile } from '../domain/rules.js';
import { listRules, setRules } from '../features/rules/rules.js';
import type { CliIo } from './accounts.js';
import { modeOption } from './options.js';
import { table } from './table.js';

/**
 * `rules set|list`: an organisation's workflow rules for one mode (docs/api.md, "Workflow rules"). `set` replaces
 * them all from a file, or changes nothing when the file has a problem; `list --json` prints a file that
 * `set` takes back unchanged.
 */

/** `reason fraudulent, general; amount 10000..` */
export function describeConditions(when: RuleConditions): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(when)) {
    if (value === undefined) continue;
    if (key === 'amount') {
      const range = value as { min?: number; max?: number };
      parts.push(`amount ${range.min ?? ''}..${range.max ?? ''}`);
    } else if (key === 'due_within_hours') {
      parts.push(`due within ${value} h`);
    } else {
      parts.push(`${key.replaceAll('_', ' ')} ${(value as string[]).join(', ')}`);
    }
  }
  return parts.join('; ') || 'every dispute';
}

function rulesTable(rules: Rule[], empty: string): string {
  if (rules.length === 0) return empty;
  return table(
    ['order', 'name', 'action', 'template', 'when'],
    rules.map((rule) => [
      String(rule.order),
      rule.name ?? '',
      rule.action,
      rule.template ?? '',
      describeConditions(rule.when),
    ]),
  );
}

export function registerRuleCommands(program: Command, io: CliIo): void {
  const rules = program.command('rules').description("an organisation's workflow rules, per mode");

  rules
    .command('set')
    .description('replace the rules of one mode with those of a JSON file; a bad file changes nothing')
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .requiredOption('--file <path>', 'rule file: {"rules": [...]} or a bare list')
    .option('--json', 'print JSON')
    .action(async (options: { org: string; mode: 'test' | 'live'; file: string; json?: boolean }) => {
      const contents = await readFile(options.file, 'utf8');
      const saved = await io.withDatabase((db) =>
        setRules(db, { org: options.org, mode: options.mode, contents }),
      );
      io.print(
        Boolean(options.json),
        saved.map(ruleToFile),
        `${saved.length} rule${saved.length === 1 ? '' : 's'} now in force for ${options.org} (${options.mode})` +
          (saved.length > 0 ? `\n${rulesTable(saved, '')}` : ''),
      );
    });

  rules
    .command('list')
    .description('list the rules of one mode, in the order they apply')
    .requiredOption('--org <id>', 'organisation id')
    .addOption(modeOption())
    .option('--json', 'print JSON (a rule file `rules set` takes back)')
    .action(async (options: { org: string; mode: 'test' | 'live'; json?: boolean }) => {
      const listed = await io.withDatabase((db) => listRules(db, { org: options.org, mode: options.mode }));
      io.print(
        Boolean(options.json),
        listed.map(ruleToFile),
        rulesTable(listed, `no rules for ${options.org} (${options.mode})`),
      );
    });
}
