import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';

/**
 * `template export|import`, run as an operator runs them: a separate process on this file's database.
 * The file holds template objects as the API shows them, and import takes them back through the API's
 * schema and template service, all or nothing.
 */

let api: TestApi;
let scratch: string;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  scratch = await mkdtemp(join(tmpdir(), 'rebuttal-cli-templates-'));
});
afterAll(async () => {
  await api.close();
  await rm(scratch, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, { DATABASE_URL: api.db.url });

type Template = Record<string, unknown> & { id: string; name: string | null };

const fraud = {
  id: 'tpl_fraud',
  name: 'Fraud',
  description: 'For fraudulent disputes',
  fields: [
    { key: 'order_id', type: 'text', required: true, description: 'The order number' },
    { key: 'total', type: 'amount', required: false, description: null },
  ],
  reasons: ['fraudulent', 'unrecognized'],
  body: 'Order {{order_id}} for {{amount}}',
};
const general = { id: 'tpl_general', name: 'General', fields: [{ key: 'note', type: 'text' }] };

async function createTemplates(key: string, ...bodies: Record<string, unknown>[]) {
  for (const json of bodies) {
    const response = await api.call('POST', '/v1/templates', { key, json });
    expect(response.status, response.text).toBe(201);
  }
}

async function apiTemplates(key: string): Promise<Template[]> {
  const response = await api.call<{ data: Template[] }>('GET', '/v1/templates', { key });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

/** A template without what the service sets (timestamps, mode, path): what an import carries over. */
const content = ({ created: _c, updated: _u, livemode: _l, url: _url, ...rest }: Template) => rest;

let files = 0;
async function templateFile(contents: unknown): Promise<string> {
  files += 1;
  const path = join(scratch, `templates-${files}.json`);
  await writeFile(path, typeof contents === 'string' ? contents : JSON.stringify(contents));
  return path;
}

describe('npm run cli -- template export', () => {
  it('prints every template of the mode, oldest first, each as GET /v1/templates/:id answers it', async () => {
    const source = await api.createOrg();
    await createTemplates(source.test_key, fraud, general);
    const exported = await cli('template', 'export', '--org', source.org, '--mode', 'test', '--json');
    expect(exported, exported.stderr).toMatchObject({ code: 0, stderr: '' });
    const templates = JSON.parse(exported.stdout) as Template[];
    expect(templates.map((template) => template.id)).toEqual(['tpl_fraud', 'tpl_general']);
    for (const template of templates) {
      const retrieved = await api.call('GET', `/v1/templates/${template.id}`, { key: source.test_key });
      expect(template).toEqual(retrieved.body);
    }

    const one = await cli('template', 'export', '--org', source.org, '--mode', 'test', '--id', 'tpl_fraud');
    expect(one.code, one.stderr).toBe(0);
    const retrieved = await api.call('GET', '/v1/templates/tpl_fraud', { key: source.test_key });
    expect(JSON.parse(one.stdout)).toEqual(retrieved.body);

    const live = await cli('template', 'export', '--org', source.org, '--mode', 'live', '--json');
    expect(JSON.parse(live.stdout)).toEqual([]);
  });

  it('fails with one line for an unknown template or organisation', async () => {
    const { org } = await api.createOrg();
    const unknown = await cli('template', 'export', '--org', org, '--mode', 'test', '--id', 'tpl_nope');
    expect([unknown.code, unknown.stderr.trim().split('\n')]).toEqual([
      1,
      [expect.stringMatching(/^error: .*tpl_nope/)],
    ]);
    const nobody = await cli('template', 'export', '--org', 'org_nope', '--mode', 'test');
    expect([nobody.code, nobody.stderr.trim()]).toEqual([1, 'error: no organisation org_nope']);
  });
});

describe('npm run cli -- template import', () => {
  it('round-trips: an export imported into another organisation creates the same templates', async () => {
    const source = await api.createOrg();
    const target = await api.createOrg();
    await createTemplates(source.test_key, fraud, general);
    const file = join(scratch, 'round-trip.json');
    const written = await cli(
      'template',
      'export',
      '--org',
      source.org,
      '--mode',
      'test',
      '--file',
      file,
      '--json',
    );
    expect(written, written.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(written.stdout)).toEqual({ file, templates: ['tpl_fraud', 'tpl_general'] });

    const imported = await cli(
      'template',
      'import',
      '--org',
      target.org,
      '--mode',
      'test',
      '--file',
      file,
      '--json',
    );
    expect(imported, imported.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(imported.stdout)).toEqual([
      { id: 'tpl_fraud', action: 'created' },
      { id: 'tpl_general', action: 'created' },
    ]);
    const sourceTemplates = (await apiTemplates(source.test_key)).map(content);
    expect(sourceTemplates).toHaveLength(2);
    expect((await apiTemplates(target.test_key)).map(content)).toEqual(sourceTemplates);

    // The target's own export is the same file, but for timestamps.
    const again = await cli('template', 'export', '--org', target.org, '--mode', 'test', '--json');
    const exported = JSON.parse(await readFile(file, 'utf8')) as Template[];
    expect((JSON.parse(again.stdout) as Template[]).map(content)).toEqual(exported.map(content));
  });

  it('updates templates that exist (as PUT does) and creates the others; a table without --json', async () => {
    const tenant = await api.createOrg();
    await createTemplates(tenant.test_key, fraud);
    const file = await templateFile({
      object: 'list',
      data: [
        { ...fraud, name: 'Fraud, revised', reasons: null, body: null },
        { id: 'tpl_new', fields: '[{"key":"order_id","type":"text","required":true}]' },
      ],
    });
    const imported = await cli('template', 'import', '--org', tenant.org, '--mode', 'test', '--file', file);
    expect(imported, imported.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(imported.stdout.split('\n').slice(0, 4)).toEqual([
      `2 templates imported into ${tenant.org} (test)`,
      'id         action   fields  name',
      'tpl_fraud  updated  2       Fraud, revised',
      'tpl_new    created  1',
    ]);
    const templates = await apiTemplates(tenant.test_key);
    expect(templates.find((template) => template.id === 'tpl_fraud')).toMatchObject({
      name: 'Fraud, revised',
      description: fraud.description,
      fields: fraud.fields,
      reasons: null,
      body: null,
    });
    expect(templates.find((template) => template.id === 'tpl_new')).toMatchObject({
      name: null,
      fields: [{ key: 'order_id', type: 'text', required: true, description: null }],
    });
  });

  it('refuses a file with a bad entry with one line naming its index, and changes nothing', async () => {
    const tenant = await api.createOrg();
    await createTemplates(tenant.test_key, fraud);
    const before = await apiTemplates(tenant.test_key);
    const file = await templateFile([
      { ...fraud, name: 'Renamed' },
      { id: 'tpl_fine', name: 'Fine' },
      { id: 'tpl_bad', fields: [{ key: 'colour', type: 'colour' }] },
    ]);
    const refused = await cli('template', 'import', '--org', tenant.org, '--mode', 'test', '--file', file);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: template at index 2 \('tpl_bad'\): Invalid fields\.0\.type: /),
    ]);
    expect(await apiTemplates(tenant.test_key)).toEqual(before);
  });

  it('refuses a repeated id, a file that is not JSON, and one holding no template, changing nothing', async () => {
    const tenant = await api.createOrg();
    const importing = async (contents: unknown) =>
      cli(
        'template',
        'import',
        '--org',
        tenant.org,
        '--mode',
        'test',
        '--file',
        await templateFile(contents),
      );

    const repeated = await importing([{ id: 'tpl_a' }, { id: 'tpl_b' }, { id: 'tpl_a', name: 'again' }]);
    expect([repeated.code, repeated.stderr.trim()]).toEqual([
      1,
      "error: template at index 2: id 'tpl_a' repeats the one at index 0",
    ]);
    const notJson = await importing('{"id": ');
    expect(notJson.code).toBe(1);
    expect(notJson.stderr.trim()).toMatch(/^error: .*templates-\d+\.json is not JSON: [^\n]+$/);
    const scalar = await importing('42');
    expect(scalar.code).toBe(1);
    expect(scalar.stderr.trim()).toMatch(/^error: .* holds no template: expected a template object/);
    expect(await apiTemplates(tenant.test_key)).toEqual([]);
  });
});
