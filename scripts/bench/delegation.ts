// Delegation benchmark: node scripts/bench/delegation.ts [--out FILE]
// Per-call cost of a tool's downstream call with full delegation and a cached delegated token
// (resolve the credential from the request context, then the HTTP call with it) against the same
// call without delegation (no credential resolved, no Authorization header), on the same loopback
// API; a third side sends the same delegated header fixed in advance, to tell the cost of resolving
// from the cost of carrying a JWT. Sides alternate (A B C A B C …) for ROUNDS rounds, CONCURRENCY
// calls in flight, each handed the caller's request context as the tool server hands it. Also: in-process resolves per second from the
// cache, and 1,000 concurrent calls by one caller on a fresh resolver: exchanges seen by the IdP.
import http, { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet } from 'jose';
import { createAccessTokenVerifier, openDownstreamCredentials, type RequestContext } from '../../src/auth/index.ts';
import { startIdp } from '../../test/support/idp.ts';
import { median, printTable, throughput } from './bench-stats.ts';

const args = process.argv.slice(2);
const ROUNDS = 5;
const MS_PER_SIDE = 1000;
const CONCURRENCY = 16;
const TOOLGRAPH = 'https://toolgraph.bench.test';
const API = 'https://api.bench.test';

const idp = await startIdp({ defaultAudience: TOOLGRAPH, registeredAudiences: [API] });
const dir = mkdtempSync(join(tmpdir(), 'toolgraph-bench-delegation-'));
const api = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/whoami`;
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

const settings = {
  enableDelegation: true, audience: API, delegatedScopes: 'api', oidcConfigUrl: idp.discoveryUrl,
  oidcClientId: idp.clientId, oidcClientSecret: idp.clientSecret, stateDir: dir, auditLog: join(dir, 'audit.jsonl'),
};
const caller = await idp.mintToken({ sub: 'bench-user', audience: TOOLGRAPH, scope: 'openid kg:read' });
const { principal } = await createAccessTokenVerifier({ issuer: idp.issuer, audience: TOOLGRAPH, getKey: createRemoteJWKSet(new URL(idp.jwksUri)) })(caller);
const context: RequestContext = { principal, token: caller, resourceMetadataUrl: `${TOOLGRAPH}/.well-known/oauth-protected-resource` };

const downstream = await openDownstreamCredentials(settings);
const graph = downstream.agent({ name: 'graph', pattern: 'full-delegation' });
const call = (headers: Readonly<Record<string, string>>) => new Promise<void>((resolve, reject) => {
  const req = http.request(apiUrl, { agent, headers }, (res) => {
    if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
    res.resume();
    res.on('end', resolve);
  });
  req.on('error', reject);
  req.end();
});
const delegated = async () => call((await graph.resolve({ context })).headers);
const none = () => call({});
const fixedHeaders = (await graph.resolve({ context })).headers;
const fixed = () => call(fixedHeaders);

const sides = { delegated: [] as number[], none: [] as number[], fixed: [] as number[] };
for (const side of [delegated, none, fixed]) await throughput(side, CONCURRENCY, 1000);
for (let round = 0; round < ROUNDS; round++) {
  sides.delegated.push(await throughput(delegated, CONCURRENCY, MS_PER_SIDE));
  sides.none.push(await throughput(none, CONCURRENCY, MS_PER_SIDE));
  sides.fixed.push(await throughput(fixed, CONCURRENCY, MS_PER_SIDE));
}
const resolvesPerSec = await throughput(() => graph.resolve({ context }), 1, 1000);

// 1,000 concurrent calls by one caller on a resolver with nothing cached: exchanges at the IdP.
const fresh = await openDownstreamCredentials(settings);
const freshGraph = fresh.agent({ name: 'graph', pattern: 'full-delegation' });
const exchangesBefore = idp.tokenExchanges();
await Promise.all(Array.from({ length: 1000 }, async () => call((await freshGraph.resolve({ context })).headers)));
const exchanges = idp.tokenExchanges() - exchangesBefore;

await Promise.all([downstream.close(), fresh.close(), idp.close()]);
agent.destroy();
api.closeAllConnections();
api.close();
rmSync(dir, { recursive: true, force: true });

const us = (perSec: number) => 1e6 / perSec;
// Time per call is the inverse of throughput; ratios are per round (the sides ran back to back).
const ratios = sides.delegated.map((v, i) => sides.none[i]! / v);
const fixedRatios = sides.fixed.map((v, i) => sides.none[i]! / v);
const resolveRatios = sides.delegated.map((v, i) => sides.fixed[i]! / v);
process.stdout.write(`${CONCURRENCY} calls in flight, ${ROUNDS} rounds of ${MS_PER_SIDE} ms per side, sides alternating (one process: IdP, API and load)\n`);
printTable([
  ['side', 'best µs/call', 'median µs/call', 'ratio to none (best)', 'ratio to none (median)'],
  ['tool call with full delegation, delegated token cached', us(Math.max(...sides.delegated)).toFixed(1), us(median(sides.delegated)).toFixed(1), `${Math.min(...ratios).toFixed(2)}x`, `${median(ratios).toFixed(2)}x`],
  ['same call with the same header fixed in advance (no resolve)', us(Math.max(...sides.fixed)).toFixed(1), us(median(sides.fixed)).toFixed(1), `${Math.min(...fixedRatios).toFixed(2)}x`, `${median(fixedRatios).toFixed(2)}x`],
  ['same call, no delegation (no credential, no header)', us(Math.max(...sides.none)).toFixed(1), us(median(sides.none)).toFixed(1), '1.00x', '1.00x'],
]);
process.stdout.write(`resolving the cached token, per round (delegated vs fixed header): best ${Math.min(...resolveRatios).toFixed(2)}x, median ${median(resolveRatios).toFixed(2)}x\n`);
process.stdout.write(`calls/s per round: delegated ${sides.delegated.map(Math.round).join(' ')}; fixed ${sides.fixed.map(Math.round).join(' ')}; none ${sides.none.map(Math.round).join(' ')}\n`);
process.stdout.write(`in process: ${Math.round(resolvesPerSec)} cached resolves/s (${us(resolvesPerSec).toFixed(2)} µs each)\n`);
process.stdout.write(`1,000 concurrent calls by one caller on a fresh resolver: ${exchanges} token exchange${exchanges === 1 ? '' : 's'} seen by the IdP (expected 1)\n`);
const outIndex = args.indexOf('--out');
if (outIndex >= 0 && args[outIndex + 1]) {
  writeFileSync(args[outIndex + 1]!, `${JSON.stringify({ concurrency: CONCURRENCY, rounds: ROUNDS, msPerSide: MS_PER_SIDE, callsPerSec: sides, ratios, fixedRatios, resolveRatios, resolvesPerSec, concurrentCalls: 1000, exchanges }, null, 2)}\n`);
}
if (exchanges !== 1) process.exitCode = 1;
