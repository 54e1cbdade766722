import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverIssuer, issuerUrlProblem } from '../../src/auth/index.ts';
import type { ToolgraphError } from '../../src/errors/index.ts';
import { closedPort } from '../support/closed-port.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { failure } from '../support/toolgraph-failure.ts';

let idp: TestIdp;
/** A server that answers whatever document a test puts under a path. */
let docs: Server;
let docsOrigin: string;
const served = new Map<string, { status: number; body: string; headers?: Record<string, string> }>();

beforeAll(async () => {
  idp = await startIdp();
  docs = createServer((req, res) => {
    const answer = served.get(req.url ?? '') ?? { status: 404, body: '' };
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
  });
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  docsOrigin = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await idp.close();
  docs.closeAllConnections();
  await new Promise<void>((resolve) => docs.close(() => resolve()));
});

async function discoveryFailure(url: string): Promise<ToolgraphError> {
  return failure(discoverIssuer(url, { timeoutMs: 2000 }));
}

describe('discoverIssuer', () => {
  it('reads the issuer and jwks_uri of the real IdP', async () => {
    const metadata = await discoverIssuer(idp.discoveryUrl);
    expect(metadata.issuer).toBe(idp.issuer);
    expect(metadata.jwksUri).toBe(idp.jwksUri);
    expect(metadata.document['token_endpoint']).toBe(idp.tokenEndpoint);
  });

  it.each<[string, string, { status: number; body: string; headers?: Record<string, string> } | undefined, string]>([
    ['an IdP that is not there', 'http://127.0.0.1:CLOSED/.well-known/openid-configuration', undefined, 'the IdP cannot be reached (ECONNREFUSED)'],
    ['a 404', '/none/.well-known/openid-configuration', undefined, 'expected HTTP 200 with the discovery document, got HTTP 404'],
    ['a redirect', '/moved/.well-known/openid-configuration', { status: 302, body: '', headers: { location: '/elsewhere' } }, 'got HTTP 302 (redirects are not followed'],
    ['not JSON', '/html/.well-known/openid-configuration', { status: 200, body: '<html>' }, 'the answer is not JSON'],
    ['no jwks_uri', '/nokeys/.well-known/openid-configuration', { status: 200, body: '{"issuer":"ISSUER/nokeys"}' }, 'the document has no "jwks_uri"'],
    ['an issuer that is not the URL\'s', '/mixup/.well-known/openid-configuration', { status: 200, body: '{"issuer":"https://other.example.test","jwks_uri":"https://other.example.test/jwks"}' }, 'the document names the issuer "https://other.example.test", but a document at this URL must name'],
    ['a plain-http jwks_uri off loopback', '/httpkeys/.well-known/openid-configuration', { status: 200, body: '{"issuer":"ISSUER/httpkeys","jwks_uri":"http://keys.example.test/jwks"}' }, 'jwks_uri "http://keys.example.test/jwks" uses http to a host that is not loopback'],
    ['a plain-http URL off loopback', 'http://idp.example.test/.well-known/openid-configuration', undefined, 'the URL uses http to a host that is not loopback'],
  ])('fails with TG_OIDC_DISCOVERY_FAILED naming OIDC_CONFIG_URL: %s', async (_name, path, answer, text) => {
    const url = path.startsWith('/') ? `${docsOrigin}${path}` : path.replace('CLOSED', String(await closedPort()));
    if (answer) served.set(path, { ...answer, body: answer.body.replaceAll('ISSUER', docsOrigin) });
    const error = await discoveryFailure(url);
    expect(error.code).toBe('TG_OIDC_DISCOVERY_FAILED');
    expect(error.message).toContain(`OIDC discovery at OIDC_CONFIG_URL ${url} failed: `);
    expect(error.message).toContain(text);
    expect(error.details).toEqual({ setting: 'OIDC_CONFIG_URL' });
  });

  it('accepts an issuer with a trailing slash (Auth0 style) and the RFC 8414 well-known form', async () => {
    served.set('/t/.well-known/openid-configuration', { status: 200, body: JSON.stringify({ issuer: `${docsOrigin}/t/`, jwks_uri: `${docsOrigin}/t/jwks` }) });
    expect((await discoverIssuer(`${docsOrigin}/t/.well-known/openid-configuration`)).issuer).toBe(`${docsOrigin}/t/`);
    served.set('/.well-known/oauth-authorization-server/tenant', { status: 200, body: JSON.stringify({ issuer: `${docsOrigin}/tenant`, jwks_uri: `${docsOrigin}/k` }) });
    expect((await discoverIssuer(`${docsOrigin}/.well-known/oauth-authorization-server/tenant`)).issuer).toBe(`${docsOrigin}/tenant`);
  });
});

describe('issuerUrlProblem: https, or http on loopback only', () => {
  it.each([
    ['https://idp.example.test/x', undefined],
    ['http://127.0.0.1:8080/x', undefined],
    ['http://127.5.6.7/x', undefined],
    ['http://[::1]:8080/x', undefined],
    ['http://localhost:8080/x', undefined],
    ['http://idp.example.test/x', 'uses http to a host that is not loopback'],
    ['http://10.0.0.1/x', 'uses http to a host that is not loopback'],
    ['http://127.0.0.1.nip.io/x', 'uses http to a host that is not loopback'],
    ['ftp://idp.example.test/x', 'uses ftp; expected https'],
    ['not a url', 'is not an absolute URL'],
  ])('%s', (url, problem) => {
    const found = issuerUrlProblem(url);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });
});
