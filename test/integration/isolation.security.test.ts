import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreatedOrganisation } from '../../src/features/organisations/organisations.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectApiError } from '../helpers/security.js';

/**
 * Tenant and mode isolation (docs/api.md, "Conventions"): a key sees only its own organisation's data of its own
 * mode. Two organisations each hold, in both modes, a dispute and a template of the same id, plus one of
 * their own; every endpoint is asked for its own and for the others'.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
});

type OrgName = 'A' | 'B';
type Mode = 'test' | 'live';
interface Tenant {
  name: OrgName;
  mode: Mode;
  key: string;
  livemode: boolean;
  orgId: string;
  /** Tag carried by this tenant's rows (dispute charge, template name) to tell same-id rows apart. */
  tag: string;
  onlyDispute: string;
  onlyTemplate: string;
}

interface World {
  tenants: Tenant[];
  orgs: Record<OrgName, CreatedOrganisation>;
}

type Json = Record<string, unknown>;
type List = { object: string; data: Json[]; has_more: boolean; livemode: boolean; url: string };

const sharedDispute = 'dp_shared';
const sharedTemplate = 'tpl_shared';
const day = 86_400_000;

function createBody(id: string, charge: string): Json {
  return {
    id,
    charge,
    reason: 'fraudulent',
    charged_at: '2024-01-02T03:04:05Z',
    disputed_at: '2024-01-10T00:00:00Z',
    due_by: new Date(Date.now() + 10 * day).toISOString(),
    currency: 'usd',
    amount: 1234,
  };
}

async function makeDispute(tenant: Tenant, id: string): Promise<void> {
  const response =
    tenant.mode === 'test'
      ? await api.call('POST', '/v1/test/disputes', {
          key: tenant.key,
          json: { id, charge: `ch_${tenant.tag}` },
        })
      : await api.call('POST', '/v1/disputes', { key: tenant.key, json: createBody(id, `ch_${tenant.tag}`) });
  expect(response.status, response.text).toBe(201);
}

async function makeTemplate(tenant: Tenant, id: string): Promise<void> {
  const response = await api.call('POST', '/v1/templates', {
    key: tenant.key,
    json: { id, name: tenant.tag, fields: [{ key: `note_${tenant.tag}`, type: 'text', required: true }] },
  });
  expect(response.status, response.text).toBe(201);
}

async function buildWorld(): Promise<World> {
  const orgs = { A: await api.createOrg('Org A'), B: await api.createOrg('Org B') };
  const tenants: Tenant[] = [];
  for (const name of ['A', 'B'] as const) {
    for (const mode of ['test', 'live'] as const) {
      const tag = `${name}_${mode}`;
      tenants.push({
        name,
        mode,
        key: mode === 'test' ? orgs[name].test_key : orgs[name].live_key,
        livemode: mode === 'live',
        orgId: orgs[name].org,
        tag,
        onlyDispute: `dp_only_${tag}`,
        onlyTemplate: `tpl_only_${tag}`,
      });
    }
  }
  for (const tenant of tenants) {
    await makeTemplate(tenant, sharedTemplate);
    await makeTemplate(tenant, tenant.onlyTemplate);
    await makeDispute(tenant, sharedDispute);
    await makeDispute(tenant, tenant.onlyDispute);
  }
  return { tenants, orgs };
}

/** Every dispute row of the world's two organisations, by tenant tag and id. */
async function disputeRows(world: World): Promise<Record<string, Json>> {
  const rows = await api.db.sql<Json[]>`
    select * from disputes where org_id in ${api.db.sql([world.orgs.A.org, world.orgs.B.org])}`;
  return Object.fromEntries(rows.map((row) => [`${tagOf(world, row)}/${String(row.id)}`, { ...row }]));
}

async function templateRows(world: World): Promise<Record<string, Json>> {
  const rows = await api.db.sql<Json[]>`
    select * from templates where org_id in ${api.db.sql([world.orgs.A.org, world.orgs.B.org])}`;
  return Object.fromEntries(rows.map((row) => [`${tagOf(world, row)}/${String(row.id)}`, { ...row }]));
}

function tagOf(world: World, row: Json): string {
  const name = row.org_id === world.orgs.A.org ? 'A' : 'B';
  return `${name}_${row.livemode ? 'live' : 'test'}`;
}

/** Asserts that, of the rows before, only those under `changed` differ afterwards. */
function expectOnlyChanged(before: Record<string, Json>, after: Record<string, Json>, changed: string[]) {
  for (const [key, row] of Object.entries(before)) {
    if (changed.includes(key)) expect(after[key], key).not.toEqual(row);
    else expect(after[key], key).toEqual(row);
  }
}

const others = (world: World, tenant: Tenant) => world.tenants.filter((other) => other !== tenant);

let world: World;
beforeEach(async () => {
  world = await buildWorld();
});

describe('GET /v1/disputes', () => {
  it('lists only the own organisation and mode, with livemode of the key', async () => {
    for (const tenant of world.tenants) {
      const response = await api.call<List>('GET', '/v1/disputes', { key: tenant.key });
      expect(response.status).toBe(200);
      expect(response.body.livemode).toBe(tenant.livemode);
      expect(response.body.data.map((dispute) => dispute.id).sort()).toEqual(
        [sharedDispute, tenant.onlyDispute].sort(),
      );
      for (const dispute of response.body.data) {
        expect(dispute.livemode).toBe(tenant.livemode);
        expect(dispute.charge).toBe(`ch_${tenant.tag}`);
      }
    }
  });

  it("refuses another tenant's dispute as a cursor with 400 invalid_request", async () => {
    for (const tenant of world.tenants) {
      for (const other of others(world, tenant)) {
        for (const cursor of ['starting_after', 'ending_before']) {
          const response = await api.call('GET', '/v1/disputes', {
            key: tenant.key,
            query: { [cursor]: other.onlyDispute },
          });
          expectApiError(response, {
            status: 400,
            type: 'invalid_request',
            url: '/v1/disputes',
            livemode: tenant.livemode,
          });
        }
      }
    }
  });

  it('pages from the own row when another tenant holds the same id', async () => {
    const [tenant] = world.tenants as [Tenant];
    const response = await api.call<List>('GET', '/v1/disputes', {
      key: tenant.key,
      query: { starting_after: tenant.onlyDispute },
    });
    expect(response.status).toBe(200);
    for (const dispute of response.body.data) expect(dispute.charge).toBe(`ch_${tenant.tag}`);
  });
});

describe('GET /v1/disputes/:id', () => {
  it("retrieves the own dispute of a shared id and answers 404 dispute_not_found for the others'", async () => {
    for (const tenant of world.tenants) {
      const own = await api.call('GET', `/v1/disputes/${sharedDispute}`, { key: tenant.key });
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({
        object: 'dispute',
        id: sharedDispute,
        charge: `ch_${tenant.tag}`,
        livemode: tenant.livemode,
      });
      for (const other of others(world, tenant)) {
        const url = `/v1/disputes/${other.onlyDispute}`;
        const response = await api.call('GET', url, { key: tenant.key });
        expectApiError(response, { status: 404, type: 'dispute_not_found', url, livemode: tenant.livemode });
      }
    }
  });

  it('joins the template of the same name from the own tenant only (missing_fields)', async () => {
    for (const tenant of world.tenants) {
      const response = await api.call('PUT', `/v1/disputes/${sharedDispute}`, {
        key: tenant.key,
        json: { template: sharedTemplate },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.missing_fields).toEqual({ [`note_${tenant.tag}`]: 'text' });
      const retrieved = await api.call('GET', `/v1/disputes/${sharedDispute}`, { key: tenant.key });
      expect(retrieved.body.missing_fields).toEqual({ [`note_${tenant.tag}`]: 'text' });
    }
  });
});

describe.each(['PUT', 'POST'])('%s /v1/disputes/:id (update)', (method) => {
  it('updates only the own row of a shared id', async () => {
    for (const tenant of world.tenants) {
      const before = await disputeRows(world);
      const response = await api.call(method, `/v1/disputes/${sharedDispute}`, {
        key: tenant.key,
        json: { reference_url: `https://${tenant.tag}.example/ref`, fields: { by: tenant.tag } },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({
        id: sharedDispute,
        charge: `ch_${tenant.tag}`,
        livemode: tenant.livemode,
        reference_url: `https://${tenant.tag}.example/ref`,
        fields: { by: tenant.tag },
      });
      expectOnlyChanged(before, await disputeRows(world), [`${tenant.tag}/${sharedDispute}`]);
    }
  });

  it("answers 404 dispute_not_found for another tenant's dispute and changes nothing", async () => {
    const before = await disputeRows(world);
    for (const tenant of world.tenants) {
      for (const other of others(world, tenant)) {
        const url = `/v1/disputes/${other.onlyDispute}`;
        const response = await api.call(method, url, {
          key: tenant.key,
          json: { reference_url: 'https://intruder.example/' },
        });
        expectApiError(response, { status: 404, type: 'dispute_not_found', url, livemode: tenant.livemode });
      }
    }
    expect(await disputeRows(world)).toEqual(before);
  });

  it("refuses another tenant's template with 400 template_not_found and changes nothing", async () => {
    const before = await disputeRows(world);
    for (const tenant of world.tenants) {
      for (const other of others(world, tenant)) {
        const url = `/v1/disputes/${sharedDispute}`;
        const response = await api.call(method, url, {
          key: tenant.key,
          json: { template: other.onlyTemplate },
        });
        expectApiError(response, { status: 400, type: 'template_not_found', url, livemode: tenant.livemode });
      }
    }
    expect(await disputeRows(world)).toEqual(before);
  });
});

describe('POST /v1/disputes/:id/submit', () => {
  it('submits only the own dispute of a shared id, with the own template', async () => {
    for (const tenant of world.tenants) {
      const before = await disputeRows(world);
      const response = await api.call('POST', `/v1/disputes/${sharedDispute}/submit`, {
        key: tenant.key,
        json: { template: sharedTemplate, fields: { [`note_${tenant.tag}`]: 'evidence' } },
      });
      expect(response.status, response.text).toBe(201);
      expect(response.body).toMatchObject({
        id: sharedDispute,
        state: 'submitted',
        charge: `ch_${tenant.tag}`,
        livemode: tenant.livemode,
        missing_fields: {},
      });
      expectOnlyChanged(before, await disputeRows(world), [`${tenant.tag}/${sharedDispute}`]);
    }
  });

  it("answers 404 dispute_not_found for another tenant's dispute and changes nothing", async () => {
    const before = await disputeRows(world);
    for (const tenant of world.tenants) {
      for (const other of others(world, tenant)) {
        const url = `/v1/disputes/${other.onlyDispute}/submit`;
        const response = await api.call('POST', url, {
          key: tenant.key,
          json: { template: other.onlyTemplate, fields: { [`note_${other.tag}`]: 'x' } },
        });
        expectApiError(response, { status: 404, type: 'dispute_not_found', url, livemode: tenant.livemode });
      }
    }
    expect(await disputeRows(world)).toEqual(before);
  });

  it("cannot use another tenant's template (400 template_not_found)", async () => {
    const before = await disputeRows(world);
    for (const tenant of world.tenants) {
      for (const other of others(world, tenant)) {
        const url = `/v1/disputes/${sharedDispute}/submit`;
        const response = await api.call('POST', url, {
          key: tenant.key,
          json: { template: other.onlyTemplate, fields: { [`note_${other.tag}`]: 'x' } },
        });
        expectApiError(response, { status: 400, type: 'template_not_found', url, livemode: tenant.livemode });
      }
    }
    expect(await disputeRows(world)).toEqual(before);
  });
});

describe('POST /v1/disputes/:id/accept', () => {
  it('accepts only the own dispute of a shared id', async () => {
    for (const tenant of world.tenants) {
      const before = await disputeRows(world);
      const response = await api.call('POST', `/v1/disputes/${sharedDispute}/accept`, { key: tenant.key });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({
        state: 'accepted',
        charge: `ch_${tenant.tag}`,
        livemode: tenant.livemode,
      });
      expectOnlyChanged(before, await disputeRows(world), [`${tenant.tag}/${sharedDispute}`]);
    }
  });

  it("answers 404 dispute_not_found for another tenant's dispute and changes nothing", async () => {
    const before = await disputeRows(world);
    for (const tenant of world.tenants) {
      for (const other of others(world, tenant)) {
        const url = `/v1/disputes/${other.onlyDispute}/accept`;
        const response = await api.call('POST', url, { key: tenant.key });
        expectApiError(response, { status: 404, type: 'dispute_not_found', url, livemode: tenant.livemode });
      }
    }
    expect(await disputeRows(world)).toEqual(before);
  });
});

describe('GET /v1/disputes/:id/response', () => {
  it("answers response_not_found for the own dispute and dispute_not_found for the others'", async () => {
    for (const tenant of world.tenants) {
      const ownUrl = `/v1/disputes/${tenant.onlyDispute}/response`;
      const own = await api.call('GET', ownUrl, { key: tenant.key });
      expectApiError(own, {
        status: 404,
        type: 'response_not_found',
        url: ownUrl,
        livemode: tenant.livemode,
      });
      for (const other of others(world, tenant)) {
        const url = `/v1/disputes/${other.onlyDispute}/response`;
        const response = await api.call('GET', url, { key: tenant.key });
        expectApiError(response, { status: 404, type: 'dispute_not_found', url, livemode: tenant.livemode });
      }
    }
  });
});

describe('POST /v1/disputes (create)', () => {
  it('creates a dispute whose id exists in the other organisation or the other mode', async () => {
    for (const tenant of world.tenants) {
      for (const other of others(world, tenant)) {
        const response = await api.call('POST', '/v1/disputes', {
          key: tenant.key,
          json: createBody(other.onlyDispute, `ch_new_${tenant.tag}`),
        });
        expect(response.status, response.text).toBe(201);
        expect(response.body).toMatchObject({
          id: other.onlyDispute,
          charge: `ch_new_${tenant.tag}`,
          livemode: tenant.livemode,
          source: 'api',
        });
      }
    }
    // The originals are untouched: each still carries its own tenant's charge.
    for (const tenant of world.tenants) {
      const response = await api.call('GET', `/v1/disputes/${tenant.onlyDispute}`, { key: tenant.key });
      expect(response.body.charge).toBe(`ch_${tenant.tag}`);
    }
  });

  it('refuses an id that exists in the same organisation and mode with 400 invalid_request', async () => {
    const before = await disputeRows(world);
    for (const tenant of world.tenants) {
      const response = await api.call('POST', '/v1/disputes', {
        key: tenant.key,
        json: createBody(sharedDispute, 'ch_duplicate'),
      });
      expectApiError(response, {
        status: 400,
        type: 'invalid_request',
        url: '/v1/disputes',
        livemode: tenant.livemode,
      });
    }
    expect(await disputeRows(world)).toEqual(before);
  });
});

describe('POST /v1/test/disputes', () => {
  it('is refused to a live key with 400 invalid_request, creating nothing', async () => {
    const before = await disputeRows(world);
    for (const tenant of world.tenants.filter((t) => t.livemode)) {
      for (const body of [{}, { id: 'dp_from_live' }]) {
        const response = await api.call('POST', '/v1/test/disputes', { key: tenant.key, json: body });
        expectApiError(response, {
          status: 400,
          type: 'invalid_request',
          url: '/v1/test/disputes',
          livemode: true,
        });
      }
    }
    expect(await disputeRows(world)).toEqual(before);
  });

  it('creates a test dispute whose id exists in the other organisation or in live mode', async () => {
    for (const tenant of world.tenants.filter((t) => !t.livemode)) {
      for (const other of others(world, tenant)) {
        const response = await api.call('POST', '/v1/test/disputes', {
          key: tenant.key,
          json: { id: other.onlyDispute },
        });
        expect(response.status, response.text).toBe(201);
        expect(response.body).toMatchObject({ id: other.onlyDispute, livemode: false, source: 'mock' });
      }
      const duplicate = await api.call('POST', '/v1/test/disputes', {
        key: tenant.key,
        json: { id: sharedDispute },
      });
      expectApiError(duplicate, { status: 400, type: 'invalid_request', url: '/v1/test/disputes' });
    }
  });
});

describe('GET /v1/templates', () => {
  it('lists only the own organisation and mode', async () => {
    for (const tenant of world.tenants) {
      const response = await api.call<List>('GET', '/v1/templates', { key: tenant.key });
      expect(response.status).toBe(200);
      expect(response.body.livemode).toBe(tenant.livemode);
      expect(response.body.data.map((template) => template.id).sort()).toEqual(
        [sharedTemplate, tenant.onlyTemplate].sort(),
      );
      for (const template of response.body.data) {
        expect(template).toMatchObject({ name: tenant.tag, livemode: tenant.livemode });
      }
      for (const other of others(world, tenant)) {
        const cursor = await api.call('GET', '/v1/templates', {
          key: tenant.key,
          query: { starting_after: other.onlyTemplate },
        });
        expectApiError(cursor, {
          status: 400,
          type: 'invalid_request',
          url: '/v1/templates',
          livemode: tenant.livemode,
        });
      }
    }
  });
});

describe('/v1/templates/:id', () => {
  it("retrieves the own template of a shared id and answers 404 template_not_found for the others'", async () => {
    for (const tenant of world.tenants) {
      const own = await api.call('GET', `/v1/templates/${sharedTemplate}`, { key: tenant.key });
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ id: sharedTemplate, name: tenant.tag, livemode: tenant.livemode });
      for (const other of others(world, tenant)) {
        const url = `/v1/templates/${other.onlyTemplate}`;
        const response = await api.call('GET', url, { key: tenant.key });
        expectApiError(response, { status: 404, type: 'template_not_found', url, livemode: tenant.livemode });
      }
    }
  });

  it('updates only the own template of a shared id', async () => {
    for (const tenant of world.tenants) {
      const before = await templateRows(world);
      const response = await api.call('PUT', `/v1/templates/${sharedTemplate}`, {
        key: tenant.key,
        json: { description: `changed by ${tenant.tag}` },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ name: tenant.tag, description: `changed by ${tenant.tag}` });
      expectOnlyChanged(before, await templateRows(world), [`${tenant.tag}/${sharedTemplate}`]);
    }
  });

  it("answers 404 template_not_found to updating or deleting another tenant's template, changing nothing", async () => {
    const before = await templateRows(world);
    for (const tenant of world.tenants) {
      for (const other of others(world, tenant)) {
        const url = `/v1/templates/${other.onlyTemplate}`;
        const update = await api.call('PUT', url, { key: tenant.key, json: { name: 'intruder' } });
        expectApiError(update, { status: 404, type: 'template_not_found', url, livemode: tenant.livemode });
        const remove = await api.call('DELETE', url, { key: tenant.key });
        expectApiError(remove, { status: 404, type: 'template_not_found', url, livemode: tenant.livemode });
      }
    }
    expect(await templateRows(world)).toEqual(before);
  });

  it('deletes only the own template of a shared id', async () => {
    for (const tenant of world.tenants) {
      const before = await templateRows(world);
      const response = await api.call('DELETE', `/v1/templates/${sharedTemplate}`, { key: tenant.key });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ id: sharedTemplate, deleted: true, livemode: tenant.livemode });
      const after = await templateRows(world);
      const gone = `${tenant.tag}/${sharedTemplate}`;
      expect(after[gone]).toBeUndefined();
      expectOnlyChanged(
        Object.fromEntries(Object.entries(before).filter(([key]) => key !== gone)),
        after,
        [],
      );
    }
  });

  it('creates a template whose id exists in the other organisation or mode; refuses the own', async () => {
    for (const tenant of world.tenants) {
      for (const other of others(world, tenant)) {
        const response = await api.call('POST', '/v1/templates', {
          key: tenant.key,
          json: { id: other.onlyTemplate, name: `new_${tenant.tag}` },
        });
        expect(response.status, response.text).toBe(201);
        expect(response.body).toMatchObject({ id: other.onlyTemplate, livemode: tenant.livemode });
      }
      const duplicate = await api.call('POST', '/v1/templates', {
        key: tenant.key,
        json: { id: sharedTemplate },
      });
      expectApiError(duplicate, {
        status: 400,
        type: 'invalid_request',
        url: '/v1/templates',
        livemode: tenant.livemode,
      });
    }
    for (const tenant of world.tenants) {
      const original = await api.call('GET', `/v1/templates/${tenant.onlyTemplate}`, { key: tenant.key });
      expect(original.body.name).toBe(tenant.tag);
    }
  });
});
