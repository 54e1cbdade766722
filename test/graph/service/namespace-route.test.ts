import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_POLICY, replaceAccessPolicy } from '../../../src/graph/access/index.ts';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { GraphqlPipeline, createGraphqlService, graphqlDispatchHandler } from '../../../src/graph/graphql/index.ts';
import { createGraphService } from '../../../src/graph/service/index.ts';
import { startHost, type RunningHost } from '../../../src/http/index.ts';
import { silentLogger } from '../../../src/log/index.ts';
import type { Principal } from '../../../src/principal/index.ts';
import { graphqlOptions, post, referenceEngine } from '../graphql/support.ts';

let engine: GraphEngine;
let host: RunningHost;

/** The caller's scopes come from a test header, so one host serves an admin and a reader. */
const principalOf = async (req: IncomingMessage): Promise<Principal> => ({ subject: 'someone', scopes: String(req.headers['x-scopes'] ?? '').split(' ') });

async function call(method: string, graph: string, scopes: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${host.origin}/graphs/${graph}/namespace`, {
    method, headers: { 'x-scopes': scopes, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() as unknown };
}

beforeAll(async () => {
  engine = await referenceEngine();
  await replaceAccessPolicy(engine, 'demo', OPEN_POLICY);
  await engine.createGraph('other');
  const logger = silentLogger();
  const pipeline = new GraphqlPipeline({ engine, logger, options: graphqlOptions() });
  host = await startHost({
    host: '127.0.0.1', port: 0, logger,
    services: [
      createGraphqlService({ pipeline, logger, resolvePrincipal: principalOf }),
      createGraphService({ engine, logger, resolvePrincipal: principalOf, graphql: graphqlDispatchHandler(pipeline) }),
    ],
  });
});

afterAll(async () => {
  await host?.close();
  await engine?.close();
});

describe('GET and PUT /graphs/{graph}/namespace', () => {
  it('sets the namespace for kg:admin, and the graph\'s GraphQL endpoint serves the prefixed schema at once', async () => {
    expect(await call('GET', 'demo', 'kg:admin')).toEqual({ status: 200, body: { graph: 'demo', version: engine.view('demo').version, namespace: null } });
    const version = engine.view('demo').version;
    expect(await call('PUT', 'demo', 'kg:admin', { namespace: 'crm' })).toEqual({ status: 200, body: { graph: 'demo', version: version + 1, namespace: 'crm' } });
    expect(await call('GET', 'demo', 'kg:admin')).toEqual({ status: 200, body: { graph: 'demo', version: version + 1, namespace: 'crm' } });

    const read = await post(`${host.origin}/graphql/demo`, { query: '{ crm_Person(first: 1) { __typename name } }' }, { 'x-scopes': 'kg:read' });
    expect(read.body).toEqual({ data: { crm_Person: [{ __typename: 'Crm_Person', name: 'Ada Lovelace' }] }, extensions: { version: version + 1 } });
    const written = await post(`${host.origin}/graphql/demo`, { query: 'mutation { crm_deleteNode(id: "person-001") { __typename ok id } }' }, { 'x-scopes': 'kg:write' });
    expect(written.body).toEqual({ data: { crm_deleteNode: { __typename: 'DeleteResult', ok: true, id: 'person-001' } }, extensions: { version: version + 2 } });
  });

  it('refuses callers without kg:admin, bad names, taken names and bad bodies', async () => {
    expect(await call('PUT', 'other', 'kg:write', { namespace: 'x' })).toMatchObject({ status: 403, body: { error: { code: 'TG_INSUFFICIENT_SCOPE' } } });
    expect(await call('GET', 'other', 'kg:read')).toMatchObject({ status: 403, body: { error: { code: 'TG_INSUFFICIENT_SCOPE' } } });
    expect(await call('PUT', 'other', 'kg:admin', { namespace: 'Crm' })).toMatchObject({ status: 400, body: { error: { code: 'TG_NAMESPACE_INVALID' } } });
    expect(await call('PUT', 'other', 'kg:admin', { namespace: 'crm' })).toMatchObject({ status: 409, body: { error: { code: 'TG_NAMESPACE_TAKEN' } } });
    expect(await call('PUT', 'other', 'kg:admin', { name: 'x' })).toMatchObject({ status: 400, body: { error: { code: 'TG_BAD_REQUEST' } } });
    expect(await call('PUT', 'other', 'kg:admin', '"x"')).toMatchObject({ status: 400, body: { error: { code: 'TG_BAD_REQUEST' } } });
    expect(await call('PUT', 'nope', 'kg:admin', { namespace: 'x' })).toMatchObject({ status: 404, body: { error: { code: 'TG_GRAPH_NOT_FOUND' } } });
    expect(await call('DELETE', 'other', 'kg:admin')).toMatchObject({ status: 405 });
    expect(engine.namespace('other')).toBeNull();
    // null removes it; the plain names answer again.
    expect(await call('PUT', 'demo', '*', { namespace: null })).toMatchObject({ status: 200, body: { namespace: null } });
    const read = await post(`${host.origin}/graphql/demo`, { query: '{ Person(first: 1) { __typename } }' }, { 'x-scopes': 'kg:read' });
    expect(read.body).toMatchObject({ data: { Person: [{ __typename: 'Person' }] } });
  });
});
