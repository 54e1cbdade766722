import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolgraphError } from '../../../src/errors/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { createGraphService } from '../../../src/graph/service/index.ts';
import { startHost, type RunningHost } from '../../../src/http/index.ts';
import { captureLogger } from '../../support/capture-logger.ts';

const TOKENS: Record<string, string[]> = { 'reader-token': ['kg:read'], 'writer-token': ['kg:write'] };
const GRAPH = 'secret-graph-name';
let logLines: string[] = [];
let host: RunningHost;
let url: string;

beforeAll(async () => {
  const engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph(GRAPH);
  await engine.commit({ graph: GRAPH, mutations: [{ op: 'createNode', id: 'a', label: 'Person', props: { name: 'Ann' } }] });
  const captured = captureLogger('debug');
  logLines = captured.lines;
  const logger = captured.logger;
  const service = createGraphService({
    engine,
    logger,
    resolvePrincipal: async (req) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const scopes = token === undefined ? undefined : TOKENS[token];
      if (scopes === undefined) throw new ToolgraphError('TG_UNAUTHENTICATED', 'No valid bearer token.');
      return { subject: token!, scopes };
    },
  });
  host = await startHost({ services: [service], logger, host: '127.0.0.1', port: 0 });
  url = `${host.origin}/dispatch`;
});

afterAll(async () => {
  await host.close();
});

function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: 'Bearer reader-token', ...headers } });
}

const SECRET_QUERY = "MATCH (p:Person) WHERE p.name <> 'needle-in-the-query' RETURN p.name";

describe('POST /dispatch', () => {
  it('runs a Cypher request and echoes a u64 id exactly', async () => {
    const res = await post(`{"id":18446744073709551615,"graph":"${GRAPH}","method":{"Cypher":{"query":${JSON.stringify(SECRET_QUERY)}}}}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe('{"id":18446744073709551615,"result":{"columns":["p.name"],"rows":[["Ann"]],"version":1}}');
  });

  it('answers dispatch-level errors as HTTP 200 NativeResponses', async () => {
    const res = await post(`{"id":9007199254740993,"graph":"${GRAPH}","method":{"Cypher":{"query":"CREATE (:Person {name: 'x'})"}}}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/"code":"TG_INSUFFICIENT_SCOPE"/);
    expect(text.endsWith(',"id":9007199254740993}')).toBe(true);
  });

  it('writes with a write scope', async () => {
    const res = await post(`{"id":"12","graph":"${GRAPH}","method":{"Cypher":{"query":"CREATE (n:Person {id: 'b', name: 'Bob'}) RETURN n"}}}`, { authorization: 'Bearer writer-token' });
    expect(await res.json()).toEqual({ id: '12', result: { columns: ['n'], rows: [[{ id: 'b', name: 'Bob' }]], version: 2, stats: { nodesCreated: 1, nodesDeleted: 0, propertiesSet: 1, relationshipsCreated: 0, relationshipsDeleted: 0 } } });
  });

  it.each<[string, () => Promise<Response>, number, string, Record<string, string>]>([
    ['GET is 405 with Allow', () => fetch(url), 405, 'TG_METHOD_NOT_ALLOWED', { allow: 'POST' }],
    ['text/plain is 415', () => post('{}', { 'content-type': 'text/plain' }), 415, 'TG_UNSUPPORTED_MEDIA_TYPE', {}],
    ['a latin1 charset is 415', () => post('{}', { 'content-type': 'application/json; charset=latin1' }), 415, 'TG_UNSUPPORTED_MEDIA_TYPE', {}],
    ['no token is 401', () => post('{}', { authorization: '' }), 401, 'TG_UNAUTHENTICATED', {}],
    ['over 1 MiB is 413', () => post(`{"pad":"${'x'.repeat(1024 * 1024)}"}`), 413, 'TG_PAYLOAD_TOO_LARGE', {}],
    ['invalid JSON is 400', () => post('{"id":'), 400, 'TG_REQUEST_INVALID', {}],
    ['a zero id is 400', () => post(`{"id":0,"graph":"${GRAPH}","method":{"Cypher":{"query":"RETURN 1"}}}`), 400, 'TG_REQUEST_INVALID', {}],
    ['another path is 404', () => fetch(`${url}/x`, { method: 'POST' }), 404, 'TG_NOT_FOUND', {}],
  ])('%s', async (_name, send, status, code, headers) => {
    const res = await send();
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    for (const [name, value] of Object.entries(headers)) expect(res.headers.get(name)).toBe(value);
  });

  it('never logs the query text, the graph name or a bearer token', async () => {
    await post(`{"id":77,"graph":"${GRAPH}","method":{"Cypher":{"query":${JSON.stringify(SECRET_QUERY)}}}}`);
    await post(`{"id":78,"graph":"${GRAPH}","method":{"Cypher":{"query":"MATCH (n RETURN 'needle-in-the-query'"}}}`);
    const all = logLines.join('');
    expect(logLines.length).toBeGreaterThan(0);
    expect(all).toContain('"rpc":"Cypher"');
    expect(all).not.toContain('needle-in-the-query');
    expect(all).not.toContain(GRAPH);
    expect(all).not.toContain('reader-token');
    expect(all).not.toContain('writer-token');
  });
});
