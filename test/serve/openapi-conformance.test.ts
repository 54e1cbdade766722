import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as generated from '../../generated/validators/openapi.ts';
import type { Validator } from '../../generated/validators/validator.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { startHost, type HttpService, type RunningHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { OverloadSignal } from '../../src/overload/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';

/**
 * Every answer of every route the OpenAPI document describes, checked against the document itself:
 * its status must be one the operation lists, and its JSON body must pass the generated validator of
 * the schema the document names for that status. A handler that drifts from the document (a field the
 * schema does not have, a status it does not list) fails here even where tsc cannot see it (bodies
 * serialised as text, spreads of untyped values).
 */

type Json = Record<string, unknown>;
const document = parse(readFileSync(new URL('../../specs/tool-server.openapi.yaml', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Json>>;
  components: { responses: Record<string, Json> };
};
const validators = generated as unknown as Record<string, Validator<unknown>>;

/** The schema component the document names for `status` of `method route` (undefined: not JSON); throws when the status is not listed. */
function documentedSchema(method: string, route: string, status: number): { operationId: string; component: string | undefined } {
  const operation = document.paths[route]?.[method];
  if (operation === undefined) throw new Error(`the document has no ${method.toUpperCase()} ${route}`);
  const responses = operation['responses'] as Record<string, Json>;
  let response = responses[String(status)];
  if (response === undefined) throw new Error(`${operation['operationId']} answered ${status}, which the document does not list`);
  if (typeof response['$ref'] === 'string') response = document.components.responses[response['$ref'].replace('#/components/responses/', '')]!;
  const json = (response['content'] as Record<string, { schema: Json }> | undefined)?.['application/json'];
  const ref = json?.schema['$ref'];
  return { operationId: String(operation['operationId']), component: typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined };
}

const checked = new Set<string>();

/** Sends the request, checks the answer against the document, and returns status and body. */
async function conforming(origin: string, method: 'get' | 'put' | 'post', route: string, path: string, init: { body?: string; type?: string } = {}): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = init.body === undefined ? {} : { 'content-type': init.type ?? 'application/json' };
  const response = await fetch(`${origin}${path}`, { method: method.toUpperCase(), headers, ...(init.body === undefined ? {} : { body: init.body }) });
  const { operationId, component } = documentedSchema(method, route, response.status);
  checked.add(operationId);
  if (component === undefined) {
    await response.arrayBuffer();
    return { status: response.status, body: undefined };
  }
  expect(response.headers.get('content-type'), `${method} ${path}`).toMatch(/^application\/json/);
  const body = (await response.json()) as unknown;
  const validate = validators[`validate${component}`];
  if (validate === undefined) throw new Error(`no generated validator for ${component}`);
  expect({ answer: `${method.toUpperCase()} ${path} ${response.status}`, valid: validate(body), errors: validate.errors ?? null, body }).toMatchObject({ valid: true });
  return { status: response.status, body };
}

const json = (value: unknown) => ({ body: JSON.stringify(value) });

let running: RunningToolgraph;
beforeAll(async () => {
  running = await startToolgraph({
    config: resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory' } }),
    logger: silentLogger(),
  });
});
afterAll(async () => {
  await running?.close();
});

describe('the answers of the running service match specs/tool-server.openapi.yaml', () => {
  it('catalogue: searchSchemas, getSchemaManifest, getSchemaFragment', async () => {
    const search = await conforming(running.origin, 'get', '/schemas/search', '/schemas/search?q=Organization&limit=2');
    expect(search.status).toBe(200);
    const manifest = (search.body as { results: { manifest: { schema_sha256: string; fragment_count: number } }[] }).results[0]!.manifest;
    for (const path of ['/schemas/search', '/schemas/search?limit=0', `/schemas/search?q=${'a'.repeat(300)}`]) {
      await conforming(running.origin, 'get', '/schemas/search', path);
    }
    const sha = manifest.schema_sha256;
    expect((await conforming(running.origin, 'get', '/schemas/{schema_sha256}', `/schemas/${sha}`)).status).toBe(200);
    expect((await conforming(running.origin, 'get', '/schemas/{schema_sha256}', '/schemas/ABC')).status).toBe(400);
    expect((await conforming(running.origin, 'get', '/schemas/{schema_sha256}', `/schemas/${'0'.repeat(64)}`)).status).toBe(404);
    const fragments = '/schemas/{schema_sha256}/fragments/{index}';
    expect((await conforming(running.origin, 'get', fragments, `/schemas/${sha}/fragments/0`)).status).toBe(200);
    expect((await conforming(running.origin, 'get', fragments, `/schemas/${sha}/fragments/01`)).status).toBe(400);
    expect((await conforming(running.origin, 'get', fragments, `/schemas/${sha}/fragments/${manifest.fragment_count}`)).status).toBe(404);
  });

  it('catalogue: the bounds of q and limit are the document\'s', async () => {
    const query = (document.paths['/schemas/search']!['get']!['parameters'] as { name: string; schema: { maxLength?: number; minimum?: number; maximum?: number } }[]);
    const q = query.find((p) => p.name === 'q')!.schema;
    const limit = query.find((p) => p.name === 'limit')!.schema;
    const status = async (path: string) => (await conforming(running.origin, 'get', '/schemas/search', path)).status;
    expect(await status(`/schemas/search?q=${'a'.repeat(q.maxLength!)}`)).toBe(200);
    expect(await status(`/schemas/search?q=${'a'.repeat(q.maxLength! + 1)}`)).toBe(400);
    expect(await status(`/schemas/search?q=x&limit=${limit.minimum!}`)).toBe(200);
    expect(await status(`/schemas/search?q=x&limit=${limit.maximum!}`)).toBe(200);
    expect(await status(`/schemas/search?q=x&limit=${limit.minimum! - 1}`)).toBe(400);
    expect(await status(`/schemas/search?q=x&limit=${limit.maximum! + 1}`)).toBe(400);
    // maxLength counts characters (code points), as JSON Schema does, not UTF-16 units.
    expect(await status(`/schemas/search?q=${encodeURIComponent('\u{1F600}'.repeat(q.maxLength!))}`)).toBe(200);
  });

  it('tools: callTool', async () => {
    const call = '/mcp/tools/call';
    const ok = await conforming(running.origin, 'post', call, call, json({ name: 'schemas', arguments: { action: 'search', query: 'person' } }));
    expect(ok.status).toBe(200);
    const failed = await conforming(running.origin, 'post', call, call, json({ name: 'graph', arguments: { action: 'cypher', graph: 'nope', query: 'MATCH (n) RETURN n' } }));
    expect(failed).toMatchObject({ status: 200, body: { isError: true } });
    expect((await conforming(running.origin, 'post', call, call, json({ name: 'nope', arguments: { action: 'x' } }))).status).toBe(404);
    expect((await conforming(running.origin, 'post', call, call, json({ name: 'schemas', arguments: { action: 'search', query: 'x', limit: 0 } }))).status).toBe(400);
    expect((await conforming(running.origin, 'post', call, call, json({ name: 'schemas' }))).status).toBe(400);
    expect((await conforming(running.origin, 'post', call, call, { body: '{"name":' })).status).toBe(400);
    expect((await conforming(running.origin, 'post', call, call, { body: 'x', type: 'text/plain' })).status).toBe(415);
  });

  it('graph: dispatch', async () => {
    const request = (method: unknown, id: unknown = 7) => json({ id, graph: 'demo', method });
    const result = await conforming(running.origin, 'post', '/dispatch', '/dispatch', request({ Cypher: { query: 'MATCH (o:Organization) RETURN count(*) AS n' } }));
    expect(result.body).toMatchObject({ id: 7, result: expect.anything() });
    const graphql = await conforming(running.origin, 'post', '/dispatch', '/dispatch', request({ GraphQl: { query: '{ __typename }' } }, '18446744073709551615'));
    expect(graphql.body).toMatchObject({ id: '18446744073709551615', result: expect.anything() });
    const error = await conforming(running.origin, 'post', '/dispatch', '/dispatch', json({ id: 8, graph: 'nope', method: { Cypher: { query: 'MATCH (n) RETURN n' } } }));
    expect(error.body).toMatchObject({ id: 8, error: { code: expect.stringMatching(/^TG_/) } });
    const invalid = await conforming(running.origin, 'post', '/dispatch', '/dispatch', request({ Cypher: { query: 'MATCH (n RETURN n' } }));
    expect(invalid.body).toMatchObject({ id: 7, error: { code: expect.stringMatching(/^TG_/) } });
    expect((await conforming(running.origin, 'post', '/dispatch', '/dispatch', json({ id: 0, graph: 'demo', method: {} }))).status).toBe(400);
    expect((await conforming(running.origin, 'post', '/dispatch', '/dispatch', { body: '{}', type: 'text/plain' })).status).toBe(415);
  });

  it('graph: getGraphAccess, putGraphAccess, getGraphNamespace, putGraphNamespace', async () => {
    const access = '/graphs/{graph}/access';
    expect((await conforming(running.origin, 'get', access, '/graphs/demo/access')).body).toMatchObject({ graph: 'demo' });
    const policy = { version: 1, read: [{ anyone: true }], write: [], rows: { '*': true } };
    expect((await conforming(running.origin, 'put', access, '/graphs/demo/access', json(policy))).body).toMatchObject({ graph: 'demo', policy });
    expect((await conforming(running.origin, 'get', access, '/graphs/demo/access')).body).toMatchObject({ policy });
    expect((await conforming(running.origin, 'put', access, '/graphs/demo/access', json({ ...policy, version: 2 }))).status).toBe(400);
    expect((await conforming(running.origin, 'get', access, '/graphs/nope/access')).status).toBe(404);
    expect((await conforming(running.origin, 'get', access, '/graphs/not%20a%20name/access')).status).toBe(404);

    const namespace = '/graphs/{graph}/namespace';
    expect((await conforming(running.origin, 'get', namespace, '/graphs/demo/namespace')).body).toMatchObject({ graph: 'demo', namespace: null });
    expect((await conforming(running.origin, 'put', namespace, '/graphs/demo/namespace', json({ namespace: 'crm' }))).body).toMatchObject({ namespace: 'crm' });
    expect((await conforming(running.origin, 'put', namespace, '/graphs/demo/namespace', json({ namespace: 'Not-One' }))).status).toBe(400);
    expect((await conforming(running.origin, 'put', namespace, '/graphs/demo/namespace', json({ namespace: null }))).body).toMatchObject({ namespace: null });
    expect((await conforming(running.origin, 'get', namespace, '/graphs/nope/namespace')).status).toBe(404);
  });

  it('ops: health and liveness, in every state', async () => {
    expect((await conforming(running.origin, 'get', '/healthz', '/healthz')).body).toMatchObject({ status: 'ok' });
    expect((await conforming(running.origin, 'get', '/livez', '/livez')).body).toEqual({ status: 'alive' });

    const overload = new OverloadSignal();
    const graph: HttpService = { name: 'graph', prefixes: ['/dispatch'], entryPath: '/dispatch', handle: async (_req, res) => void res.end() };
    const host: RunningHost = await startHost({ services: [], pending: ['graph'], logger: silentLogger(), host: '127.0.0.1', port: 0, overload });
    try {
      const release = host.hold('idp', () => 'the identity provider does not answer');
      expect((await conforming(host.origin, 'get', '/healthz', '/healthz')).body).toMatchObject({ status: 'starting', waiting: { idp: 'the identity provider does not answer' } });
      release();
      host.mount([graph]);
      overload.enter({ reason: 'event-loop-delay', reading: 250, threshold: 200, setting: 'TOOLGRAPH_OVERLOAD_EVENT_LOOP_DELAY_MS' });
      expect((await conforming(host.origin, 'get', '/healthz', '/healthz')).body).toMatchObject({ status: 'overloaded', overload: { reason: 'event-loop-delay' } });
      overload.leave();
      expect((await conforming(host.origin, 'get', '/healthz', '/healthz')).body).toMatchObject({ status: 'ok' });
    } finally {
      await host.close();
    }
  });

  it('ops: serviceIndex, the front door: every route of the running services, the probes and the docs; other paths point to it', async () => {
    const index = (await conforming(running.origin, 'get', '/', '/')).body as { routes: { path: string; service: string; about: string }[]; probes: unknown; docs: unknown };
    expect(index.routes.map((r) => r.path)).toEqual(expect.arrayContaining(['/graphql/{graph}', '/dispatch', '/mcp', '/schemas/search']));
    expect(index.routes.find((r) => r.service === 'graphql')?.about).toContain('GraphiQL console');
    expect(index.probes).toEqual({ readiness: '/healthz', liveness: '/livez' });
    expect(index.docs).toMatchObject({ openapi: expect.stringContaining('specs/tool-server.openapi.yaml') });
    const post = await fetch(`${running.origin}/`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const unknown = await fetch(`${running.origin}/nowhere`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'TG_NOT_FOUND', message: 'No route for GET /nowhere; GET / lists the routes this server answers.' } });
  });

  it('checked every operation of the main port (the carrier has its own listener and tests)', () => {
    const operations = Object.entries(document.paths).flatMap(([route, item]) =>
      Object.entries(item).filter(([method]) => ['get', 'put', 'post'].includes(method)).map(([, op]) => ({ route, id: String(op['operationId']) })));
    const expected = operations.filter(({ route }) => route !== '/graphql/subscribe').map(({ id }) => id).sort();
    expect([...checked].sort()).toEqual(expected);
  });
});
