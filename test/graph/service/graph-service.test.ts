import { mkdtempSync, rmSync } from 'node:fs';
import { openAccess } from '../../support/open-access.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolgraphError } from '../../../src/errors/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence, openPersistence } from '../../../src/graph/persist/index.ts';
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
  await openAccess(engine, GRAPH);
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
    expect(await res.text()).toBe('{"id":18446744073709551615,"result":{"columns":["p.name"],"rows":[["Ann"]],"version":2}}');
  });

  it('answers dispatch-level errors as HTTP 200 NativeResponses', async () => {
    const res = await post(`{"id":9007199254740993,"graph":"${GRAPH}","method":{"Cypher":{"query":"MATCH (p:Person RETURN p"}}}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/"code":"TG_CYPHER_SYNTAX"/);
    expect(text.endsWith(',"id":9007199254740993}')).toBe(true);
  });

  it('answers a scope refusal as HTTP 403 TG_INSUFFICIENT_SCOPE, so a client can step up', async () => {
    const res = await post(`{"id":9007199254740993,"graph":"${GRAPH}","method":{"Cypher":{"query":"CREATE (:Person {name: 'x'})"}}}`);
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { code: string; details: { required: string[] } } };
    expect(body.error.code).toBe('TG_INSUFFICIENT_SCOPE');
    expect(body.error.details.required[0]).toBe('kg:write');
  });

  it('writes with a write scope', async () => {
    const res = await post(`{"id":"12","graph":"${GRAPH}","method":{"Cypher":{"query":"CREATE (n:Person {id: 'b', name: 'Bob'}) RETURN n"}}}`, { authorization: 'Bearer writer-token' });
    expect(await res.json()).toEqual({ id: '12', result: { columns: ['n'], rows: [[{ id: 'b', name: 'Bob' }]], version: 3, stats: { nodesCreated: 1, nodesDeleted: 0, propertiesSet: 1, relationshipsCreated: 0, relationshipsDeleted: 0 } } });
  });

  it.each<[string, () => Promise<Response>, number, string, Record<string, string>]>([
    ['GET is 405 with Allow', () => fetch(url), 405, 'TG_METHOD_NOT_ALLOWED', { allow: 'POST' }],
    ['text/plain is 415', () => post('{}', { 'content-type': 'text/plain' }), 415, 'TG_UNSUPPORTED_MEDIA_TYPE', {}],
    ['a latin1 charset is 415', () => post('{}', { 'content-type': 'application/json; charset=latin1' }), 415, 'TG_UNSUPPORTED_MEDIA_TYPE', {}],
    ['no token is 401', () => post('{}', { authorization: '' }), 401, 'TG_UNAUTHENTICATED', {}],
    ['over 1 MiB is 413', () => post(`{"pad":"${'x'.repeat(1024 * 1024)}"}`), 413, 'TG_PAYLOAD_TOO_LARGE', {}],
    ['invalid JSON is 400', () => post('{"id":'), 400, 'TG_BAD_REQUEST', {}],
    ['a zero id is 400', () => post(`{"id":0,"graph":"${GRAPH}","method":{"Cypher":{"query":"RETURN 1"}}}`), 400, 'TG_REQUEST_INVALID', {}],
    ['a body nested 100,000 deep is 400', () => post(`{"id":1,"graph":"${GRAPH}","method":{"Cypher":{"query":"RETURN 1","params":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}}`), 400, 'TG_REQUEST_INVALID', {}],
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

describe('POST /dispatch after the request was parsed', () => {
  it('answers HTTP 200 with the id even when the result cannot be serialised, and logs why', async () => {
    const captured = captureLogger('debug');
    const engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
    const service = createGraphService({
      engine,
      logger: captured.logger,
      resolvePrincipal: async () => ({ subject: 'local', scopes: ['*'] }),
      // A GraphQl handler whose result no JSON serialiser can write.
      graphql: async () => ({ get data(): unknown { throw new TypeError('unreadable result') } }),
    });
    const local = await startHost({ services: [service], logger: captured.logger, host: '127.0.0.1', port: 0 });
    try {
      const res = await fetch(`${local.origin}/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":18446744073709551615,"graph":"g","method":{"GraphQl":{"query":"{ x }"}}}' });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'TG_INTERNAL' } });
      expect(text.endsWith(',"id":18446744073709551615}')).toBe(true);
      expect(captured.lines.join('\n')).toContain('"type":"TypeError"');
    } finally {
      await local.close();
    }
  });

  it('says how deep is too deep instead of "Maximum call stack size exceeded"', async () => {
    const res = await post(`{"id":18446744073709551615,"graph":"${GRAPH}","method":{"Cypher":{"query":"RETURN 1","params":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}}`);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/^The body nests arrays and objects deeper than 100 levels/);
  });
});

describe('POST /dispatch with concurrent writers on a durable store', () => {
  it('queues them: 16 clients sending plain CREATEs (no expected version) all succeed, versions contiguous', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-writers-'));
    const persistence = await openPersistence({ kind: 'file', dataDir: dir });
    const engine = await GraphEngine.open({ persistence });
    await engine.createGraph('g');
    await openAccess(engine, 'g');
    const logger = captureLogger('silent').logger;
    const service = createGraphService({ engine, logger, resolvePrincipal: async () => ({ subject: 'w', scopes: ['kg:write'] }) });
    const local = await startHost({ services: [service], logger, host: '127.0.0.1', port: 0 });
    try {
      const client = async (c: number): Promise<number[]> => {
        const versions: number[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await fetch(`${local.origin}/dispatch`, {
            method: 'POST', headers: { 'content-type': 'application/json' },
            body: `{"id":${c * 10 + i + 1},"graph":"g","method":{"Cypher":{"query":"CREATE (:Load {client: ${c}, n: ${i}})"}}}`,
          });
          const body = await res.json() as { result?: { version: number }; error?: { code: string } };
          expect(body.error).toBeUndefined();
          versions.push(body.result!.version);
        }
        return versions;
      };
      const versions = (await Promise.all(Array.from({ length: 16 }, (_, c) => client(c)))).flat().sort((a, b) => a - b);
      // Version 1 is the access policy.
      expect(versions).toEqual(Array.from({ length: 48 }, (_, i) => i + 2));
    } finally {
      await local.close();
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('POST /dispatch at the default log level', () => {
  it('writes no line per request (it cost a fifth of the hot path); debug does', async () => {
    const engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
    await engine.createGraph('g');
    await openAccess(engine, 'g');
    for (const level of ['info', 'debug']) {
      const captured = captureLogger(level);
      const service = createGraphService({ engine, logger: captured.logger, resolvePrincipal: async () => ({ subject: 's', scopes: ['kg:read'] }) });
      const local = await startHost({ services: [service], logger: captured.logger, host: '127.0.0.1', port: 0 });
      try {
        const res = await fetch(`${local.origin}/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1,"graph":"g","method":{"Cypher":{"query":"RETURN 1"}}}' });
        expect(res.status).toBe(200);
        await res.text();
      } finally {
        await local.close();
      }
      const lines = captured.lines.filter((l) => l.includes('"msg":"dispatch"'));
      expect(lines).toHaveLength(level === 'info' ? 0 : 1);
    }
    await engine.close();
  });
});
