import { CompactSign, base64url, type CryptoKey } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryReplayLedger, checkSignerJwks, loadSignerKeys, parseSubscribeQuery, signEnvelope, verifyEnvelope, type SignerKeys,
} from '../../../src/graph/carrier/index.ts';
import { createLocalJWKSet } from 'jose';
import { generateSigner } from './carrier-fixture.ts';
import { failure } from '../../support/toolgraph-failure.ts';

let privateKey: CryptoKey;
let keys: SignerKeys;
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const nowSecs = NOW / 1000;

beforeAll(async () => {
  const signer = await generateSigner();
  privateKey = signer.privateKey;
  keys = createLocalJWKSet(checkSignerJwks(signer.jwks, 'test')) as SignerKeys;
});

/** Signs an arbitrary payload, as a hostile or buggy signer might. */
async function signRaw(payload: unknown, header: Record<string, unknown> = {}): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(typeof payload === 'string' ? payload : JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'EdDSA', kid: 'signer-1', typ: 'tgsse+jws', ...header }).sign(privateKey);
  return `Bearer tgsse1.${jws}`;
}

const goodPayload = () => ({
  req: { id: 7, graph: 'g', agent_id: null, method: { GraphQl: { query: 'subscription { A(first: 1) { id } }', variables: null } } },
  nonce: 'n'.repeat(22), iat: nowSecs, exp: nowSecs + 60, ctx: { sub: 'ada', scopes: ['kg:read'], groups: ['red'] },
});

describe('signEnvelope and verifyEnvelope', () => {
  it('round-trips the exact request, the largest u64 id included, and the signed context', async () => {
    const signed = await signEnvelope({
      key: privateKey, alg: 'EdDSA', kid: 'signer-1', graph: 'g', query: 'subscription { A(first: 1) { id } }', variables: { x: [1, 'two'] },
      id: 18446744073709551615n, subject: 'ada', scopes: ['kg:read'], groups: ['red', 'blue'], agentId: 'agent-9', now: NOW,
    });
    expect(signed.requestId).toBe('18446744073709551615');
    expect(signed.headers).toEqual({ authorization: signed.authorization, 'x-service-request-id': '18446744073709551615' });
    expect(signed.path).toBe('/graphql/subscribe?graph=g&query=subscription%20%7B%20A(first%3A%201)%20%7B%20id%20%7D%20%7D');
    const payload = Buffer.from(signed.authorization.split('.')[2]!, 'base64url').toString();
    expect(payload).toContain('"id":18446744073709551615,');
    const verified = await verifyEnvelope(signed.authorization, keys, nowSecs);
    expect(verified.request.id).toBe(18446744073709551615n);
    expect(verified.request.agentId).toBe('agent-9');
    expect(verified.query).toBe('subscription { A(first: 1) { id } }');
    expect(verified.variables).toEqual({ x: [1, 'two'] });
    expect(verified.principal).toEqual({ subject: 'ada', scopes: ['kg:read'], groups: ['red', 'blue'] });
    expect(verified.expiresAt).toBe(nowSecs + 60);
    expect(verified.nonce).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });

  it('makes a fresh id and nonce on every call', async () => {
    const a = await signEnvelope({ key: privateKey, alg: 'EdDSA', graph: 'g', query: 'q', subject: 's', scopes: [] });
    const b = await signEnvelope({ key: privateKey, alg: 'EdDSA', graph: 'g', query: 'q', subject: 's', scopes: [] });
    expect(a.requestId).not.toBe(b.requestId);
    expect(a.authorization).not.toBe(b.authorization);
  });

  it('refuses a lifetime outside 1..300 seconds when signing', async () => {
    for (const ttlSecs of [0, 301, 1.5]) {
      await expect(signEnvelope({ key: privateKey, alg: 'EdDSA', graph: 'g', query: 'q', subject: 's', scopes: [], ttlSecs })).rejects.toThrow('lifetime must be an integer from 1 to 300');
    }
  });

  it.each<[string, (p: ReturnType<typeof goodPayload>) => unknown, string]>([
    ['an unknown member', (p) => ({ ...p, admin: true }), 'unknown member "admin"'],
    ['no exp', (p) => ({ ...p, exp: undefined }), 'no integer exp'],
    ['exp as a string', (p) => ({ ...p, exp: String(p.exp) }), 'no integer exp'],
    ['an expired exp (past the 5 s tolerance)', (p) => ({ ...p, exp: nowSecs - 5 }), 'expired at 2026-11-22T11:59:55.000Z'],
    ['an exp too far ahead', (p) => ({ ...p, exp: nowSecs + 306 }), 'more than 300 seconds'],
    ['a short nonce', (p) => ({ ...p, nonce: 'abc' }), 'nonce must be 16 to 128 base64url characters'],
    ['a nonce with other characters', (p) => ({ ...p, nonce: 'a b'.repeat(8) }), 'nonce must be'],
    ['no ctx', (p) => ({ ...p, ctx: undefined }), 'no signed context'],
    ['an empty subject', (p) => ({ ...p, ctx: { ...p.ctx, sub: '' } }), 'ctx.sub must be'],
    ['scopes not strings', (p) => ({ ...p, ctx: { ...p.ctx, scopes: [1] } }), 'ctx.scopes must be a list'],
    ['too many groups', (p) => ({ ...p, ctx: { ...p.ctx, groups: Array.from({ length: 65 }, (_v, i) => `g${i}`) } }), 'ctx.groups must be a list of at most 64'],
    ['an unknown ctx member', (p) => ({ ...p, ctx: { ...p.ctx, admin: true } }), 'ctx has an unknown member'],
    ['id 0', (p) => ({ ...p, req: { ...p.req, id: 0 } }), "req is not a native request: id: expected a positive unsigned 64-bit integer"],
    ['no graph', (p) => ({ ...p, req: { ...p.req, graph: undefined } }), 'req is not a native request: graph'],
    ['a Cypher method', (p) => ({ ...p, req: { ...p.req, method: { Cypher: { query: 'MATCH (n) RETURN n' } } } }), 'must carry a GraphQl method'],
    ['an array payload', () => [1], 'must be a JSON object'],
  ])('refuses a payload with %s', async (_name, change, message) => {
    const error = await failure(verifyEnvelope(await signRaw(change(goodPayload())), keys, nowSecs));
    expect(error.code).toBe('TG_ENVELOPE_INVALID');
    expect(error.message).toContain(message);
  });

  it('refuses a payload that is not JSON, and a wrong typ', async () => {
    expect((await failure(verifyEnvelope(await signRaw('{nope'), keys, nowSecs))).message).toContain('not UTF-8 JSON');
    expect((await failure(verifyEnvelope(await signRaw(goodPayload(), { typ: 'JWT' }), keys, nowSecs))).message).toContain('typ header must be "tgsse+jws"');
  });

  it('refuses a crit header as a crit header, not as a malformed JWS or an algorithm', async () => {
    const header = { alg: 'EdDSA', kid: 'signer-1', typ: 'tgsse+jws', crit: ['urn:example:pop'], 'urn:example:pop': 1 };
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(goodPayload()))).setProtectedHeader(header).sign(privateKey, { crit: { 'urn:example:pop': true } });
    const error = await failure(verifyEnvelope(`Bearer tgsse1.${jws}`, keys, nowSecs));
    expect(error.code).toBe('TG_ENVELOPE_INVALID');
    expect(error.message).toBe('The envelope\'s protected header has a crit (critical) header naming an extension the carrier does not understand, or a malformed one; envelopes carry only alg, kid and typ.');
  });

  it('accepts an exp within the clock tolerance', async () => {
    await expect(verifyEnvelope(await signRaw({ ...goodPayload(), exp: nowSecs - 4 }), keys, nowSecs)).resolves.toBeDefined();
  });

  it.each([
    [undefined, 'No Authorization header'],
    ['Basic abc', 'not a Bearer credential'],
    ['Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln', 'not a carrier envelope'],
    ['Bearer tgsse1.not-a-jws', 'not a valid compact JWS'],
    [`Bearer tgsse1.${'a'.repeat(200 * 1024)}`, 'longer than'],
  ])('refuses the Authorization %s', async (authorization, message) => {
    const error = await failure(verifyEnvelope(authorization, keys, nowSecs));
    expect(error.code).toBe('TG_ENVELOPE_INVALID');
    expect(error.message).toContain(message);
    if (authorization) expect(error.message).not.toContain(authorization.slice(7, 30));
  });

  it('refuses an unsigned (alg none) envelope', async () => {
    const unsigned = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'tgsse+jws' }))}.${base64url.encode(JSON.stringify(goodPayload()))}.`;
    expect((await failure(verifyEnvelope(`Bearer tgsse1.${unsigned}`, keys, nowSecs))).code).toBe('TG_ENVELOPE_INVALID');
  });
});

describe('loadSignerKeys', () => {
  it('reads trusted keys from a JWKS URL; an unknown kid within 30 s of a fetch does not refetch', async () => {
    const { createServer } = await import('node:http');
    const first = await generateSigner('url-1');
    const second = await generateSigner('url-2');
    let jwks = first.jwks;
    let fetches = 0;
    const server = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const urlKeys = await loadSignerKeys(`http://127.0.0.1:${port}/jwks.json`);
      const sign = (key: CryptoKey, kid: string) => signEnvelope({ key, alg: 'EdDSA', kid, graph: 'g', query: 'q', subject: 's', scopes: [], now: NOW });
      expect((await verifyEnvelope((await sign(first.privateKey, 'url-1')).authorization, urlKeys, nowSecs)).principal.subject).toBe('s');
      jwks = { keys: [...first.jwks.keys, ...second.jwks.keys] };
      const error = await failure(verifyEnvelope((await sign(second.privateKey, 'url-2')).authorization, urlKeys, nowSecs));
      expect(error.message).toContain('unknown signer');
      expect(fetches).toBe(1);
    } finally {
      server.close();
    }
  });

  it('refuses an unreadable file and one that is not JSON, as configuration errors', async () => {
    await expect(loadSignerKeys('/nonexistent/jwks.json')).rejects.toThrow('SERVICE_GRAPHQL_SIGNER_JWKS (/nonexistent/jwks.json): cannot be read');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'tg-jwks-')), 'jwks.json');
    writeFileSync(file, 'nope');
    await expect(loadSignerKeys(file)).rejects.toThrow(`SERVICE_GRAPHQL_SIGNER_JWKS (${file}): not JSON`);
  });
});

describe('checkSignerJwks', () => {
  it.each([
    [{}, 'expected a JWKS object'],
    [{ keys: [] }, 'the key set is empty'],
    [{ keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, 'symmetric key'],
    [{ keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x', d: 'private' }] }, 'holds private key material (d)'],
  ])('refuses %j', (jwks, message) => {
    expect(() => checkSignerJwks(jwks, 'file.json')).toThrow(message);
  });
});

describe('MemoryReplayLedger', () => {
  it('refuses a replay until the envelope could no longer be accepted, then forgets it', () => {
    const ledger = new MemoryReplayLedger(10);
    expect(ledger.consume('n1', 100, 50)).toBe('fresh');
    expect(ledger.consume('n1', 100, 60)).toBe('replayed');
    expect(ledger.consume('n1', 100, 105)).toBe('replayed');
    expect(ledger.consume('n1', 200, 106)).toBe('fresh');
  });

  it('stays bounded: a full ledger of live nonces refuses, expired ones make room', () => {
    const ledger = new MemoryReplayLedger(3);
    for (const n of ['a', 'b', 'c']) expect(ledger.consume(n, 100, 0)).toBe('fresh');
    expect(ledger.consume('d', 100, 1)).toBe('full');
    expect(ledger.size).toBe(3);
    expect(ledger.consume('d', 300, 200)).toBe('fresh');
    expect(ledger.size).toBe(1);
  });
});

describe('parseSubscribeQuery', () => {
  it('decodes both parameters, + as a space', () => {
    expect(parseSubscribeQuery('graph=demo&query=subscription+%7B+A(first%3A+1)+%7B+id+%7D+%7D')).toEqual({ graph: 'demo', query: 'subscription { A(first: 1) { id } }' });
    expect(parseSubscribeQuery('query=q%2Bx&graph=g%C3%A9')).toEqual({ graph: 'gé', query: 'q+x' });
  });

  it.each([
    ['', 'graph parameter is missing'],
    ['graph=g', 'query parameter is missing'],
    ['graph=&query=q', 'graph parameter is missing'],
    ['graph=g&query=q&graph=h', 'graph parameter appears more than once'],
    ['graph=g&query=%E0%A4%A', 'not valid percent-encoded UTF-8'],
    ['graph=g&query=%FF', 'not valid percent-encoded UTF-8'],
    ['graph=g&query=q&access_token=abc', 'a bearer token in the URL is never accepted'],
    ['access_token=%ZZ&graph=g&query=q', 'a bearer token in the URL is never accepted'],
    ['graph=g&query=q&variables=%7B%7D', 'accepts only the graph and query parameters'],
  ])('refuses %j', (search, message) => {
    expect(() => parseSubscribeQuery(search)).toThrow(message);
  });
});
