import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateErrorBody } from '../../../generated/validators/openapi.ts';
import { ERROR_CODES } from '../../../src/errors/index.ts';
import { signEnvelope, subscribePath, type SignedEnvelope } from '../../../src/graph/carrier/index.ts';
import type { SseClient } from '../../support/sse-client.ts';
import { GRAPH, PEOPLE, generateSigner, startFixture, type CarrierFixture } from './carrier-fixture.ts';

let f: CarrierFixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(async () => {
  await f.close();
});

/** A valid request: ada of team red, whom the graph's policy (CARRIER_POLICY) lets read it. */
const sign = (overrides: Parameters<CarrierFixture['sign']>[0] = {}) => f.sign(overrides);

async function refused(client: SseClient | Promise<SseClient>, status: number, code: string, message?: string | RegExp): Promise<SseClient> {
  const c = await client;
  expect(c.status, c.body).toBe(status);
  expect(c.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Object.keys(c.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  const body = JSON.parse(c.body) as { error: { code: keyof typeof ERROR_CODES; message: string } };
  // The documented ErrorBody (specs/tool-server.openapi.yaml), with the code's documented status.
  expect(validateErrorBody(body), JSON.stringify(validateErrorBody.errors)).toBe(true);
  expect(body.error.code).toBe(code);
  expect(ERROR_CODES[body.error.code].status).toBe(status);
  if (message !== undefined) expect(body.error.message).toMatch(message);
  // Refusals happen before any graph row is read or any subscription runs.
  expect(f.graphs.reads).toBe(0);
  expect(f.executor.runs).toBe(0);
  await c.done;
  return c;
}

function replace(signed: SignedEnvelope, headers: Record<string, string>): SignedEnvelope {
  return { ...signed, headers: { ...signed.headers, ...headers } as SignedEnvelope['headers'] };
}

describe('carrier refusals (status, code, and nothing read)', () => {
  it('accepts the valid request the refusals start from', async () => {
    // Run last-in-file checks on a fresh counter: this one reads, so it resets what it read.
    const client = await f.subscribe(await sign());
    expect(client.status).toBe(200);
    await client.until((c) => c.events.length === 1, 'initial');
    client.close();
    await client.done;
    f.graphs.reads = 0;
    f.executor.runs = 0;
  });

  it('tampered envelope: 401 TG_ENVELOPE_INVALID', async () => {
    const signed = await sign();
    const [head, payload, signature] = signed.authorization.split(' ')[1]!.slice('tgsse1.'.length).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { ctx: { scopes: string[] } };
    claims.ctx.scopes.push('kg:admin');
    const forged = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const c = await refused(f.subscribe(replace(signed, { authorization: `Bearer tgsse1.${head}.${forged}.${signature}` })), 401, 'TG_ENVELOPE_INVALID', /signature does not verify/);
    expect(c.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('unknown signer: 401 TG_ENVELOPE_INVALID', async () => {
    const other = await generateSigner('signer-2');
    const signed = await signEnvelope({ key: other.privateKey, alg: 'EdDSA', kid: 'signer-2', graph: GRAPH, query: PEOPLE, subject: 'ada', scopes: ['kg:read'], groups: ['red'] });
    await refused(f.subscribe(signed), 401, 'TG_ENVELOPE_INVALID', /unknown signer/);
    // The same kid as a trusted key, but another key: the signature fails.
    const impostor = await signEnvelope({ key: other.privateKey, alg: 'EdDSA', kid: 'signer-1', graph: GRAPH, query: PEOPLE, subject: 'ada', scopes: ['kg:read'], groups: ['red'] });
    await refused(f.subscribe(impostor), 401, 'TG_ENVELOPE_INVALID', /signature does not verify/);
  });

  it('an algorithm the carrier does not accept: 401 TG_ENVELOPE_INVALID', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    expect((await exportJWK(publicKey)).kty).toBe('EC');
    const signed = await signEnvelope({ key: privateKey, alg: 'ES256', kid: 'signer-1', graph: GRAPH, query: PEOPLE, subject: 'ada', scopes: ['kg:read'], groups: ['red'] });
    await refused(f.subscribe(signed), 401, 'TG_ENVELOPE_INVALID');
  });

  it('expired envelope: 401 TG_ENVELOPE_INVALID', async () => {
    await refused(f.subscribe(await sign({ now: Date.now() - 120_000, ttlSecs: 60 })), 401, 'TG_ENVELOPE_INVALID', /expired at/);
  });

  it('an envelope that lives longer than five minutes: 401 TG_ENVELOPE_INVALID', async () => {
    await refused(f.subscribe(await sign({ now: Date.now() + 240_000, ttlSecs: 300 })), 401, 'TG_ENVELOPE_INVALID', /more than 300 seconds/);
  });

  it('request id mismatch: 401 TG_ENVELOPE_INVALID', async () => {
    const signed = await sign({ id: 18446744073709551615n });
    await refused(f.subscribe(replace(signed, { 'x-service-request-id': '18446744073709551614' })), 401, 'TG_ENVELOPE_INVALID', /request id is not byte-identical/);
  });

  it('graph mismatch: 401 TG_ENVELOPE_INVALID', async () => {
    const signed = await sign();
    await refused(f.subscribe(signed, { path: subscribePath('otherGraph', PEOPLE) }), 401, 'TG_ENVELOPE_INVALID', /graph is not byte-identical/);
  });

  it('subscription text mismatch, even by one space: 401 TG_ENVELOPE_INVALID', async () => {
    const signed = await sign();
    await refused(f.subscribe(signed, { path: subscribePath(GRAPH, `${PEOPLE} `) }), 401, 'TG_ENVELOPE_INVALID', /subscription text is not byte-identical/);
  });

  it('missing scope: 403 TG_INSUFFICIENT_SCOPE', async () => {
    const c = await refused(f.subscribe(await sign({ scopes: ['query:cypher'] })), 403, 'TG_INSUFFICIENT_SCOPE', /needs one of the scopes kg:read, kg:write, kg:admin, query:graphql, query:\*, \*/);
    expect(c.headers['www-authenticate']).toContain('error="insufficient_scope"');
  });

  it('ACL denial: 403 TG_ACCESS_DENIED', async () => {
    // A GraphQL scope, but no group the graph's read list names.
    await refused(f.subscribe(await sign({ scopes: ['query:graphql'], groups: ['green'] })), 403, 'TG_ACCESS_DENIED', 'The graph ACL does not allow this principal to read this graph.');
  });

  it('replayed nonce: 401 TG_NONCE_REPLAYED', async () => {
    const signed = await sign({ query: 'subscription { Person(first: 0) { id } }' });
    const first = await f.subscribe(signed);
    expect(first.status).toBe(200);
    first.close();
    f.graphs.reads = 0;
    f.executor.runs = 0;
    await refused(f.subscribe(signed), 401, 'TG_NONCE_REPLAYED');
  });

  it('a reused request id with a fresh nonce and envelope: 401 TG_REQUEST_ID_REPLAYED; another subject may use the id', async () => {
    const query = 'subscription { Person(first: 0) { id } }';
    const signed = await sign({ query });
    const first = await f.subscribe(signed);
    expect(first.status).toBe(200);
    first.close();
    f.graphs.reads = 0;
    f.executor.runs = 0;
    // Spec: each reconnect needs a fresh request id, nonce and envelope; a fresh nonce alone is not enough.
    const reconnect = await sign({ id: BigInt(signed.requestId), query });
    expect(reconnect.authorization).not.toBe(signed.authorization);
    const c = await refused(f.subscribe(reconnect), 401, 'TG_REQUEST_ID_REPLAYED', `The request id ${signed.requestId} was already used by this subject; every request and reconnect needs a fresh id, nonce and envelope.`);
    expect(c.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    // Request ids are per signed subject: another subject's request with the same id is its own.
    const other = await f.subscribe(await sign({ id: BigInt(signed.requestId), query, subject: 'grace' }));
    expect(other.status).toBe(200);
    other.close();
    // And a fresh id with a fresh envelope is what a reconnect sends.
    const fresh = await f.subscribe(await sign({ query }));
    expect(fresh.status).toBe(200);
    fresh.close();
    f.graphs.reads = 0;
    f.executor.runs = 0;
  });

  it.each(['access_token', 'token', 'bearer', 'x'])('a token in the URL (%s=…): 400 TG_BAD_REQUEST, never read', async (name) => {
    const signed = await sign();
    const c = await refused(f.subscribe(signed, { path: `${signed.path}&${name}=${encodeURIComponent(signed.authorization.slice(7))}` }), 400, 'TG_BAD_REQUEST', /a bearer token in the URL is never accepted/);
    expect(c.body).not.toContain('tgsse1');
  });

  it('a token in the URL with no Authorization header at all: still 400 for the URL', async () => {
    const signed = await sign();
    await refused(f.subscribe(signed, { path: `${signed.path}&access_token=abc`, headers: { authorization: '' } }), 400, 'TG_BAD_REQUEST');
  });

  it('OPTIONS: 405 with Allow: GET and no CORS headers', async () => {
    const signed = await sign();
    const c = await refused(f.subscribe(signed, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } }), 405, 'TG_METHOD_NOT_ALLOWED');
    expect(c.headers['allow']).toBe('GET');
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('%s: 405', async (method) => {
    await refused(f.subscribe(await sign(), { method }), 405, 'TG_METHOD_NOT_ALLOWED');
  });

  it.each(['/graphql', '/graphql/subscribe/', '/graphql/query', '/dispatch', '/', '/healthz'])('other path %s: 404', async (path) => {
    const signed = await sign();
    await refused(f.subscribe(signed, { path: `${path}?graph=${GRAPH}&query=x` }), 404, 'TG_NOT_FOUND');
  });

  it('over-long query (more than 32 KiB): 400 TG_QUERY_TOO_COMPLEX', async () => {
    const query = `subscription { Person(first: 1) { id } }${' '.repeat(32 * 1024)}`;
    await refused(f.subscribe(await sign({ query })), 400, 'TG_QUERY_TOO_COMPLEX', /32768 \(32 KiB\)/);
  });

  it('over-nested query (65 delimiters): 400 TG_QUERY_TOO_COMPLEX', async () => {
    const query = `subscription { Person(first: 1) ${'{ id KNOWS '.repeat(63)}{ id }${' }'.repeat(63)} }`;
    await refused(f.subscribe(await sign({ query })), 400, 'TG_QUERY_TOO_COMPLEX', /more than 64 delimiters/);
  });

  it('missing first or limit on a root: 400 TG_QUERY_TOO_COMPLEX', async () => {
    await refused(f.subscribe(await sign({ query: 'subscription { Person { id } }' })), 400, 'TG_QUERY_TOO_COMPLEX', 'The subscription root field Person needs an explicit first or limit of at most 100.');
  });

  it('first over 100 on a root: 400 TG_QUERY_TOO_COMPLEX', async () => {
    await refused(f.subscribe(await sign({ query: 'subscription { Person(first: 101) { id } }' })), 400, 'TG_QUERY_TOO_COMPLEX', /integer from 0 to 100; got 101/);
    await refused(f.subscribe(await sign({ query: 'subscription S($n: Int) { Person(limit: $n) { id } }', variables: { n: 500 } })), 400, 'TG_QUERY_TOO_COMPLEX', /got 500/);
  });

  it('over the complexity budget: 400 TG_QUERY_TOO_COMPLEX', async () => {
    await refused(f.subscribe(await sign({ query: 'subscription { Person(first: 100) { KNOWS { KNOWS { id } } } }' })), 400, 'TG_QUERY_TOO_COMPLEX', /more than 50000 result values/);
  });

  it('too many connections: 503 TG_TOO_MANY_CONNECTIONS with Retry-After', async () => {
    const small = await startFixture({ maxConnections: 1 });
    try {
      const open = await small.subscribe(await small.sign());
      expect(open.status).toBe(200);
      const c = await small.subscribe(await small.sign());
      expect(c.status).toBe(503);
      expect(c.headers['retry-after']).toBe('1');
      expect(JSON.parse(c.body)).toMatchObject({ error: { code: 'TG_TOO_MANY_CONNECTIONS' } });
    } finally {
      await small.close();
    }
  });

  it('missing Authorization: 401; an IdP token without the envelope prefix: 401', async () => {
    const signed = await sign();
    await refused(f.subscribe(signed, { headers: { authorization: '' } }), 401, 'TG_ENVELOPE_INVALID', /No Authorization header/);
    await refused(f.subscribe(signed, { headers: { authorization: `Bearer ${signed.authorization.slice('Bearer tgsse1.'.length)}` } }), 401, 'TG_ENVELOPE_INVALID', /not a carrier envelope/);
  });

  it('two Authorization headers: 401 TG_ENVELOPE_INVALID, whichever envelope comes first', async () => {
    const [a, b] = [await sign(), await sign()];
    for (const [first, second] of [[a, b], [b, a]] as const) {
      const c = await refused(f.subscribe(first, { headers: { authorization: [first.authorization, second.authorization] } }), 401, 'TG_ENVELOPE_INVALID',
        'The request carries 2 Authorization headers; send exactly one, Authorization: Bearer tgsse1.<signed envelope>.');
      expect(c.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    }
    // Neither envelope was consumed: each alone is still accepted.
    for (const signed of [a, b]) {
      const c = await f.subscribe(signed);
      expect(c.status).toBe(200);
      c.close();
    }
    f.graphs.reads = 0;
    f.executor.runs = 0;
  });

  it.each(['', '0', '01', '18446744073709551616', 'abc', '1.0'])('X-Service-Request-Id %j: 400 TG_REQUEST_INVALID', async (id) => {
    await refused(f.subscribe(await sign(), { headers: { 'x-service-request-id': id } }), 400, 'TG_REQUEST_INVALID');
  });

  it('a query or mutation operation: 400 TG_GRAPHQL_INVALID', async () => {
    await refused(f.subscribe(await sign({ query: '{ Person(first: 1) { id } }' })), 400, 'TG_GRAPHQL_INVALID', /subscriptions only/);
  });

  it('a root field that is not a label: 400 TG_GRAPHQL_NO_NODE_TYPE', async () => {
    await refused(f.subscribe(await sign({ query: 'subscription { Spaceship(first: 1) { id } }' })), 400, 'TG_GRAPHQL_NO_NODE_TYPE',
      // The product executor's text: the spec asks that it start with "GraphQL: no node type" and say root fields must be labels.
      'GraphQL: no node type for a subscription root field: Cannot query field "Spaceship" on type "Subscription". Subscription root fields must be node labels.');
  });

  it('introspection in a subscription: 400 TG_QUERY_TOO_COMPLEX (field policy)', async () => {
    await refused(f.subscribe(await sign({ query: 'subscription { Person(first: 1) { id __type(name: "Person") { name } } }' })), 400, 'TG_QUERY_TOO_COMPLEX', /not served by the carrier/);
  });

  it('a graph that does not exist: 404 TG_GRAPH_NOT_FOUND (after the ACL, which kg:admin passes for any name)', async () => {
    await refused(f.subscribe(await sign({ graph: 'nope', scopes: ['kg:admin'] })), 404, 'TG_GRAPH_NOT_FOUND');
    // Anyone else meets a graph that does not exist as one it may not read.
    await refused(f.subscribe(await sign({ graph: 'nope' })), 403, 'TG_ACCESS_DENIED');
  });

  it('leaves no connection counted after the refusals', async () => {
    await expect.poll(() => f.carrier.stats().connections, { timeout: 10_000 }).toBe(0);
    expect(f.carrier.stats()).toMatchObject({ sessions: 0, groups: 0 });
  });
});
