import { request } from 'node:http';
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { post, referenceEngine, startServer, type Server } from './support.ts';

let engine: GraphEngine;
let server: Server;

beforeAll(async () => {
  engine = await referenceEngine();
  server = await startServer(engine);
});
afterAll(async () => {
  await server.close();
  await engine.close();
});

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

describe('GraphQL over HTTP', () => {
  it('passes every graphql-http server audit', async () => {
    const results = await Promise.all(serverAudits({ url: server.url }).map(async (audit) => ({ audit: `${audit.id} ${audit.name}`, ...(await audit.fn()) })));
    expect(results.length).toBeGreaterThan(50);
    const failed = results.filter((r) => r.status !== 'ok').map((r) => `${r.audit}: ${r.status} ${'reason' in r ? r.reason : ''}`);
    expect(failed).toEqual([]);
  });

  it('answers GET queries and refuses GET mutations with 405', async () => {
    const get = await fetch(`${server.url}?query=${encodeURIComponent('query($n: Int) { Topic(first: $n) { id } }')}&variables=${encodeURIComponent('{"n":1}')}`);
    expect(get.status).toBe(200);
    expect(await get.json()).toMatchObject({ data: { Topic: [{ id: expect.any(String) }] } });
    const version = engine.view('demo').version;
    const mutation = await fetch(`${server.url}?query=${encodeURIComponent('mutation { deleteNode(id: "person-001") { ok } }')}`, { headers: { accept: GRAPHQL_RESPONSE } });
    expect(mutation.status).toBe(405);
    expect(mutation.headers.get('allow')).toBe('POST');
    expect((await mutation.json()).errors[0].extensions.code).toBe('TG_METHOD_NOT_ALLOWED');
    // Also once the document is prepared by an earlier POST (the gate runs on every request).
    await post(server.url, { query: 'mutation { updateNode(id: "person-002", set: {}) { id } }' });
    const again = await fetch(`${server.url}?query=${encodeURIComponent('mutation { updateNode(id: "person-002", set: {}) { id } }')}`);
    expect(again.status).toBe(405);
    expect(engine.view('demo').version).toBe(version + 1);
  });

  it('points syntax errors at their line and column, as it does validation errors', async () => {
    for (const [query, message, location] of [
      ['{ Person(first: 1) {\n  id\n', 'Syntax Error: Expected Name, found <EOF>.', { line: 3, column: 1 }],
      ['{ Person(first: 1) { id } } }', 'Syntax Error: Unexpected "}".', { line: 1, column: 29 }],
      ['{ Person(first: 1) { nope } }', 'Cannot query field "nope" on type "Person".', { line: 1, column: 22 }],
    ] as const) {
      const http = await post(server.url, { query }, { accept: GRAPHQL_RESPONSE });
      expect(http.status, query).toBe(400);
      expect(http.body.errors, query).toEqual([{ message: expect.stringContaining(message), locations: [location], extensions: { code: 'TG_GRAPHQL_INVALID' } }]);
      const dispatched = await post(`${server.origin}/dispatch`, { id: '7', graph: 'demo', method: { GraphQl: { query, variables: null } } });
      expect((dispatched.body as unknown as { result: { errors: { locations: unknown }[] } }).result.errors[0]?.locations, query).toEqual([location]);
    }
  });

  it('returns the same bytes through POST /dispatch as through /graphql/{graph}', async () => {
    for (const [query, variables] of [
      ['query($n: Int) { Person(first: $n) { name email WORKS_AT { name country } AUTHORED { __typename ... on Document { title } } } }', { n: 3 }],
      ['{ PersonConnection(first: 2) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }', null],
      ['{ Spaceship { id } }', null],
      ['{ Person(first: -1) { id } }', null],
    ] as const) {
      const http = await post(server.url, { query, ...(variables ? { variables } : {}) });
      const dispatched = await post(`${server.origin}/dispatch`, { id: 18446744073709551615n.toString(), graph: 'demo', method: { GraphQl: { query, variables } } });
      expect(dispatched.status).toBe(200);
      expect(dispatched.text).toBe(`{"id":"18446744073709551615","result":${http.text}}`);
    }
  });
});

/**
 * POSTs `body` on a connection of its own that asks to be closed (`Connection: close`, as a client
 * without an agent sends): half of it, then, 200 ms later, the rest, as a slow network would.
 * Resolves with the answer's status and code and whether it came before the body was all sent;
 * rejects when the connection failed before an answer (EPIPE, a reset).
 */
function postClosing(url: string, body: string): Promise<{ status: number; code: string | undefined; answeredEarly: boolean }> {
  const bytes = Buffer.from(body);
  const half = bytes.length >> 1;
  return new Promise((resolve, reject) => {
    let sent = false;
    let answeredEarly = false;
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': bytes.length } }, (res) => {
      answeredEarly = !sent;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: (JSON.parse(text) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code, answeredEarly }));
    });
    req.on('error', reject);
    req.write(bytes.subarray(0, half));
    setTimeout(() => {
      sent = true;
      req.end(bytes.subarray(half));
    }, 200);
  });
}

describe('bodies over the limit', () => {
  it('answers 413 once the client has sent its whole body, so a client on a connection it asked to close reads it (an earlier answer and close can fail its writes with EPIPE)', async () => {
    // 60,000 _entities representations: over 2 MiB against the 1 MiB limit (the fuzzer's case).
    const body = JSON.stringify({ query: 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Person { id } } }', variables: { r: Array.from({ length: 60_000 }, (_, i) => ({ __typename: 'Person', id: `person-${i}` })) } });
    expect(body.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(await postClosing(server.url, body)).toEqual({ status: 413, code: 'TG_PAYLOAD_TOO_LARGE', answeredEarly: false });
  });
});

describe('bad input', () => {
  const cases: { name: string; send: () => Promise<{ status: number; code: string | undefined }>; status: number; code: string }[] = [
    { name: 'malformed JSON', send: () => call('{"query": "{ __typename }"'), status: 400, code: 'TG_BAD_REQUEST' },
    { name: 'wrong media type', send: () => call('query={ __typename }', { 'content-type': 'application/x-www-form-urlencoded' }), status: 415, code: 'TG_UNSUPPORTED_MEDIA_TYPE' },
    { name: 'no media type', send: () => call(JSON.stringify({ query: '{ __typename }' }), { 'content-type': '' }), status: 415, code: 'TG_UNSUPPORTED_MEDIA_TYPE' },
    { name: 'an unacceptable Accept', send: () => call(JSON.stringify({ query: '{ __typename }' }), { accept: 'text/csv' }), status: 406, code: 'TG_BAD_REQUEST' },
    { name: 'variables of the wrong type', send: () => call(JSON.stringify({ query: 'query($n: Int) { Person(first: $n) { id } }', variables: { n: 'ten' } }), { accept: GRAPHQL_RESPONSE }), status: 400, code: 'TG_GRAPHQL_INVALID' },
    { name: 'huge variables', send: () => call(JSON.stringify({ query: '{ __typename }', variables: { big: 'x'.repeat(2 * 1024 * 1024) } })), status: 413, code: 'TG_PAYLOAD_TOO_LARGE' },
    { name: 'a document over the text cap', send: () => call(JSON.stringify({ query: `{ __typename } # ${'x'.repeat(40000)}` }), { accept: GRAPHQL_RESPONSE }), status: 400, code: 'TG_QUERY_TOO_COMPLEX' },
    { name: 'a fragment cycle', send: () => call(JSON.stringify({ query: '{ Person { ...A } } fragment A on Person { KNOWS { ...B } } fragment B on Person { KNOWS { ...A } }' }), { accept: GRAPHQL_RESPONSE }), status: 400, code: 'TG_GRAPHQL_INVALID' },
    { name: 'a depth bomb', send: () => call(JSON.stringify({ query: `{ Person { ${'KNOWS { '.repeat(40)}id${' }'.repeat(40)} } }` }), { accept: GRAPHQL_RESPONSE }), status: 400, code: 'TG_QUERY_TOO_COMPLEX' },
    { name: 'an alias bomb', send: () => call(JSON.stringify({ query: `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: Person { id }`).join(' ')} }` }), { accept: GRAPHQL_RESPONSE }), status: 400, code: 'TG_QUERY_TOO_COMPLEX' },
    { name: 'a directive flood', send: () => call(JSON.stringify({ query: `{ Person(first: 1) { id ${'@include(if: true) '.repeat(300)} } }` }), { accept: GRAPHQL_RESPONSE }), status: 400, code: 'TG_QUERY_TOO_COMPLEX' },
    { name: 'an unknown graph', send: () => call(JSON.stringify({ query: '{ __typename }' }), {}, '/graphql/nope'), status: 404, code: 'TG_GRAPH_NOT_FOUND' },
    { name: 'a path that is no graph', send: () => call(JSON.stringify({ query: '{ __typename }' }), {}, '/graphql/a/b'), status: 404, code: 'TG_NOT_FOUND' },
    { name: 'an unknown label', send: () => call(JSON.stringify({ query: '{ Unicorn { id } }' }), { accept: GRAPHQL_RESPONSE }), status: 400, code: 'TG_GRAPHQL_NO_NODE_TYPE' },
    { name: 'an unknown field', send: () => call(JSON.stringify({ query: '{ Person { horn } }' }), { accept: GRAPHQL_RESPONSE }), status: 400, code: 'TG_GRAPHQL_INVALID' },
    { name: 'a bad cursor', send: () => call(JSON.stringify({ query: '{ PersonConnection(after: "x") { edges { cursor } } }' }), { accept: GRAPHQL_RESPONSE }), status: 200, code: 'TG_CURSOR_INVALID' },
    { name: 'a subscription', send: () => call(JSON.stringify({ query: 'subscription { Person(first: 1) { id } }' })), status: 400, code: 'TG_SUBSCRIPTION_NOT_SERVED' },
    { name: 'a batch', send: () => call(JSON.stringify([{ query: '{ __typename }' }])), status: 400, code: 'TG_BAD_REQUEST' },
    { name: 'PUT', send: () => call(JSON.stringify({ query: '{ __typename }' }), {}, '/graphql/demo', 'PUT'), status: 405, code: 'TG_METHOD_NOT_ALLOWED' },
  ];

  async function call(body: string, headers: Record<string, string> = {}, path = '/graphql/demo', method = 'POST') {
    const h: Record<string, string> = { 'content-type': 'application/json', ...headers };
    if (h['content-type'] === '') delete h['content-type'];
    // A Uint8Array body, so fetch adds no Content-Type of its own.
    const res = await fetch(`${server.origin}${path}`, { method, headers: h, body: new TextEncoder().encode(body) });
    const text = await res.text();
    return { status: res.status, code: (JSON.parse(text) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code };
  }

  it.each(cases)('$name: status $status, $code, nothing written, the server stays up', async ({ send, status, code }) => {
    const version = engine.view('demo').version;
    expect(await send()).toEqual({ status, code });
    expect(engine.view('demo').version).toBe(version);
    const alive = await post(server.url, { query: '{ __typename }' });
    expect(alive.status).toBe(200);
  });

  it('explains the subscription carrier', async () => {
    const res = await post(server.url, { query: 'subscription { Person(first: 1) { id } }' });
    const message = res.body.errors![0]!.message;
    expect(message).toContain('SSE carrier, GET /graphql/subscribe');
    expect(message).toContain('SERVICE_GRAPHQL_ADDR');
    // The carrier exists: the text says how to reach it, not that it is to come.
    expect(message).toContain('SERVICE_GRAPHQL_SIGNER_JWKS');
    expect(message).toContain('toolgraph envelope sign');
    expect(message).not.toMatch(/later (release|issue)/);
  });
});
