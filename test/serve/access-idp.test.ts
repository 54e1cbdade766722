import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';

// Values that must never reach a log line: claim values (subject, groups) and what the policy names.
const SUBJECT = 'carol-access-subject';
const GROUP = 'access-e2e-readers';
const OUTSIDER = 'dave-access-outsider';
const POLICY = {
  version: 1,
  read: [{ group: GROUP }],
  write: [],
  rows: {
    Organization: { eq: [{ row: 'public' }, { value: true }] },
    Person: { in: [{ row: 'id' }, { claim: 'groups' }] },
  },
};

let idp: TestIdp;
let running: RunningToolgraph;
let lines: string[];
const tokens: string[] = [];

beforeAll(async () => {
  idp = await startIdp();
  const captured = captureLogger('trace');
  lines = captured.lines;
  running = await startToolgraph({
    config: resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, LOG_LEVEL: 'trace' } }),
    logger: captured.logger,
  });
});
afterAll(async () => {
  await running?.close();
  await idp?.close();
});

async function token(scope: string, sub = SUBJECT, groups: string[] = [GROUP, 'person-001', 'person-003']): Promise<string> {
  const minted = await idp.mintToken({ sub, scope, groups, audience: running.origin });
  tokens.push(minted);
  return minted;
}

async function call(method: string, path: string, bearer: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; challenge: string | null }> {
  const res = await fetch(`${running.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, challenge: res.headers.get('www-authenticate') };
}

const graphql = (bearer: string, query: string) => call('POST', '/graphql/demo', bearer, { query });
const cypherCount = async (bearer: string, query: string) => {
  const { json } = await call('POST', '/dispatch', bearer, { id: 1, graph: 'demo', method: { Cypher: { query } } });
  return json;
};

describe('AUTH_TYPE=jwt with an access policy on the demo graph', () => {
  it('kg:admin replaces and reads the policy at /graphs/{graph}/access', async () => {
    const admin = await token('kg:admin');
    const put = await call('PUT', '/graphs/demo/access', admin, POLICY);
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ graph: 'demo', policy: POLICY });
    const get = await call('GET', '/graphs/demo/access', admin);
    expect(get).toMatchObject({ status: 200, json: put.json });
  });

  it('a bad policy is a 400 naming the JSON pointer, and changes nothing', async () => {
    const admin = await token('kg:admin');
    const before = await call('GET', '/graphs/demo/access', admin);
    const bad = await call('PUT', '/graphs/demo/access', admin, { ...POLICY, rows: { Person: { in: [{ row: 'id' }, { claims: 'groups' }] } } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: { code: 'TG_ACCESS_POLICY_INVALID', details: { pointer: '/rows/Person/in/1/claims' } } });
    expect((await call('GET', '/graphs/demo/access', admin)).json).toEqual(before.json);
  });

  it('only kg:admin administers policies: kg:read and kg:write get 403 insufficient_scope before the graph is looked up', async () => {
    for (const scope of ['kg:read', 'kg:write']) {
      const bearer = await token(scope);
      for (const [method, path] of [['GET', '/graphs/demo/access'], ['PUT', '/graphs/demo/access'], ['GET', '/graphs/nope/access']] as const) {
        const res = await call(method, path, bearer, method === 'PUT' ? POLICY : undefined);
        expect(res.status, `${scope} ${method} ${path}`).toBe(403);
        expect(res.challenge).toMatch(/error="insufficient_scope".*scope="kg:admin/);
      }
    }
  });

  it('a kg:read token sees exactly what the policy grants; kg:admin sees everything', async () => {
    const reader = await token('kg:read');
    const admin = await token('kg:admin');
    const query = '{ Person { id } Organization { id public } Document { id } }';
    const seen = await graphql(reader, query);
    expect(seen.status).toBe(200);
    const all = (await graphql(admin, query)).json['data'] as { Person: { id: string }[]; Organization: { id: string; public: boolean | null }[]; Document: unknown[] };
    expect(seen.json['data']).toEqual({
      Person: [{ id: 'person-001' }, { id: 'person-003' }],
      Organization: all.Organization.filter((o) => o.public === true),
      Document: [],
    });
    expect(all.Person).toHaveLength(30);
    expect(all.Document).toHaveLength(20);
    expect(await cypherCount(reader, 'MATCH (p:Person)-[r]-(x) RETURN count(DISTINCT p)')).toMatchObject({ result: { rows: [[expect.any(Number)]] } });
    expect(await cypherCount(reader, 'MATCH (n) RETURN count(n)')).toMatchObject({ result: { rows: [[2 + all.Organization.filter((o) => o.public === true).length]] } });
    expect(await cypherCount(admin, 'MATCH (n) RETURN count(n)')).toMatchObject({ result: { rows: [[94]] } });
  });

  it('a kg:read token the policy does not grant meets the graph as if it did not exist', async () => {
    const outsider = await token('kg:read', OUTSIDER, ['person-001']);
    const missing = await call('POST', '/graphql/nosuchgraph', outsider, { query: '{ Person { id } }' });
    const denied = await graphql(outsider, '{ Person { id } }');
    expect(denied.status).toBe(404);
    expect(JSON.stringify(denied.json)).toBe(JSON.stringify(missing.json).replaceAll('nosuchgraph', 'demo'));
    expect(await cypherCount(outsider, 'MATCH (n) RETURN count(n)')).toMatchObject({ error: { code: 'TG_GRAPH_NOT_FOUND' } });
  });

  it('the catalogue lists the graph\'s operations only to principals that may read the graph', async () => {
    const search = async (bearer: string) => {
      const { json } = await call('GET', '/schemas/search?q=Person&limit=100', bearer);
      return (json['results'] as { manifest: { operation: string } }[]).map((r) => r.manifest.operation);
    };
    const reader = await search(await token('kg:read'));
    const outsider = await search(await token('kg:read', OUTSIDER, []));
    expect(reader).toContain('Person');
    expect(outsider).not.toContain('Person');
    expect(outsider.every((op) => reader.includes(op))).toBe(true);
  });

  it('no log line of the whole session holds a token, a claim value, a policy value or the graph name', () => {
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const secret of [SUBJECT, GROUP, OUTSIDER, 'person-001', 'person-003', 'nosuchgraph', '"demo"', '/demo']) expect(all).not.toContain(secret);
    for (const t of tokens) for (const part of t.split('.').filter((p) => p.length > 8)) expect(all).not.toContain(part);
  });
});
