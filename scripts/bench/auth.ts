// Bearer authentication benchmark: node scripts/bench/auth.ts [--out FILE]
// Per-request cost of POST /dispatch (a small Cypher read on the reference graph) behind a verified
// IdP JWT, against the same request with AUTH_TYPE=none (the local operator, no token), on the same
// engine in the same server process. Two token sides: with the verified-token cache (what serve
// runs) and without it (an RS256 signature check on every request), to show what the cache buys.
// The sides alternate (A B C A B C …) for ROUNDS rounds; min and median of each, and of the ratios.
// The server runs in a child process so the load generator and the server each have a core.
// Also in-process: verifications per second, signature check vs verified-token cache hit.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import { createAccessTokenVerifier, createBearerAuthenticator, openTrustedIssuer, requireBearer, type TrustedIssuer } from '../../src/auth/index.ts';
import { createGraphService } from '../../src/graph/service/index.ts';
import { startHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import type { Principal } from '../../src/principal/index.ts';
import { openGraphEngine, principalResolverFor } from '../../src/serve/index.ts';
import { startIdp } from '../../test/support/idp.ts';
import { median, throughput } from './bench-stats.ts';

const args = process.argv.slice(2);
const ROUNDS = 5;
const SECONDS_PER_SIDE = 2;
const CONNECTIONS = 16;
const AUDIENCE = 'https://bench.toolgraph.test';
const BODY = JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: "MATCH (o:Organization {name: 'Acme Analytics'}) RETURN o.name AS name" } } });

async function serve(discoveryUrl: string): Promise<void> {
  const logger = silentLogger();
  // Seeded like serve: the demo graph with its open policy (without it every request answered "no such graph").
  const engine = await openGraphEngine({ persistence: 'memory', dataDir: '/nonexistent', databaseUrl: undefined }, logger, { seed: true });
  const issuer = await openTrustedIssuer(discoveryUrl);
  // What serve wires: the local operator for AUTH_TYPE=none, the verified token's principal for jwt.
  const local = principalResolverFor({ authType: 'none' });
  const fromContext = principalResolverFor({ authType: 'jwt' });
  const graph = (resolvePrincipal: (req: IncomingMessage) => Promise<Principal>) => createGraphService({ engine, logger, resolvePrincipal });
  const authenticator = (cache: boolean) => createBearerAuthenticator({ issuer, audience: AUDIENCE, resourceMetadataUrl: `${AUDIENCE}/.well-known/oauth-protected-resource`, ...(cache ? {} : { cache: false as const }) });
  const none = await startHost({ services: [graph(local)], logger, host: '127.0.0.1', port: 0 });
  const cached = await startHost({ services: [requireBearer(graph(fromContext), authenticator(true))], logger, host: '127.0.0.1', port: 0 });
  const uncached = await startHost({ services: [requireBearer(graph(fromContext), authenticator(false))], logger, host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ none: none.origin, cached: cached.origin, uncached: uncached.origin })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void Promise.all([none.close(), cached.close(), uncached.close()]).then(() => {
    issuer.close();
    return engine.close();
  }).then(() => process.exit(0)));
}

/** One answer's body: it must be the row, not an error answer (a dispatch error is HTTP 200 too). */
async function checkAnswer(origin: string, token: string | undefined): Promise<void> {
  const res = await fetch(new URL('/dispatch', origin), { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: BODY });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('Acme Analytics') || text.includes('"error"')) throw new Error(`${origin} answered ${res.status}: ${text.slice(0, 200)}`);
}

/** Requests per second with CONNECTIONS keep-alive loops for `seconds`; every answer must be 200. */
async function load(origin: string, token: string | undefined, seconds: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const url = new URL('/dispatch', origin);
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) };
  if (token) headers['authorization'] = `Bearer ${token}`;
  const once = () => new Promise<void>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode} from ${origin}`));
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(BODY);
  });
  try {
    return await throughput(once, CONNECTIONS, seconds * 1000);
  } finally {
    agent.destroy();
  }
}


async function perSecond(fn: () => Promise<unknown>, ms = 1000): Promise<number> {
  for (let i = 0; i < 200; i++) await fn();
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 100; i++) await fn();
    count += 100;
  }
  return (count / (performance.now() - start)) * 1000;
}

async function inProcess(trusted: TrustedIssuer, token: string): Promise<{ verifyPerSec: number; cachedPerSec: number }> {
  const verify = createAccessTokenVerifier({ issuer: trusted.metadata.issuer, audience: AUDIENCE, getKey: trusted.keys.getKey });
  const authenticator = createBearerAuthenticator({ issuer: trusted, audience: AUDIENCE, resourceMetadataUrl: 'x' });
  const req = { headers: { authorization: `Bearer ${token}` }, rawHeaders: ['Authorization', `Bearer ${token}`] } as unknown as IncomingMessage;
  return { verifyPerSec: await perSecond(() => verify(token)), cachedPerSec: await perSecond(() => authenticator.authenticate(req)) };
}

async function main(): Promise<void> {
  const idp = await startIdp({ defaultAudience: AUDIENCE });
  const token = await idp.mintToken({ sub: 'bench-user', scope: 'kg:read', groups: ['bench'] });
  const child = spawn(process.execPath, [import.meta.filename, '--serve', idp.discoveryUrl], { stdio: ['pipe', 'pipe', 'inherit'] });
  const origins = await new Promise<{ none: string; cached: string; uncached: string }>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      if (buffered.includes('\n')) resolve(JSON.parse(buffered.slice(0, buffered.indexOf('\n'))) as never);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const sides = { none: [] as number[], cached: [] as number[], uncached: [] as number[] };
  try {
    await checkAnswer(origins.none, undefined);
    await checkAnswer(origins.cached, token);
    await checkAnswer(origins.uncached, token);
    // Warm-up: JIT, the token's first verification, keep-alive sockets.
    await load(origins.none, undefined, 1);
    await load(origins.cached, token, 1);
    await load(origins.uncached, token, 1);
    for (let round = 0; round < ROUNDS; round++) {
      sides.none.push(await load(origins.none, undefined, SECONDS_PER_SIDE));
      sides.cached.push(await load(origins.cached, token, SECONDS_PER_SIDE));
      sides.uncached.push(await load(origins.uncached, token, SECONDS_PER_SIDE));
    }
  } finally {
    child.stdin.end();
  }
  const trusted = await openTrustedIssuer(idp.discoveryUrl);
  const micro = await inProcess(trusted, token);
  trusted.close();
  await idp.close();

  // Time per request is the inverse of throughput; ratios are per round (the sides ran back to back).
  const us = (reqPerSec: number) => 1e6 / reqPerSec;
  const ratio = (side: number[]) => side.map((v, i) => sides.none[i]! / v);
  const rows = [
    { measure: 'POST /dispatch, AUTH_TYPE=none (no token)', min: us(Math.max(...sides.none)), median: us(median(sides.none)), ratioMin: 1, ratioMedian: 1 },
    { measure: 'POST /dispatch, verified JWT, verified-token cache', min: us(Math.max(...sides.cached)), median: us(median(sides.cached)), ratioMin: Math.min(...ratio(sides.cached)), ratioMedian: median(ratio(sides.cached)) },
    { measure: 'POST /dispatch, verified JWT, no cache (RS256 per request)', min: us(Math.max(...sides.uncached)), median: us(median(sides.uncached)), ratioMin: Math.min(...ratio(sides.uncached)), ratioMedian: median(ratio(sides.uncached)) },
  ];
  const table = [['measure', 'min µs/req', 'median µs/req', 'ratio to none (min)', 'ratio to none (median)']];
  for (const r of rows) table.push([r.measure, r.min.toFixed(1), r.median.toFixed(1), `${r.ratioMin.toFixed(2)}x`, `${r.ratioMedian.toFixed(2)}x`]);
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  process.stdout.write(`${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS_PER_SIDE} s per side, sides alternating; target: verified JWT at most 1.15x none\n`);
  for (const [i, row] of table.entries()) {
    process.stdout.write(`${row.map((c, j) => c.padEnd(widths[j]!)).join('  ')}\n`);
    if (i === 0) process.stdout.write(`${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  }
  process.stdout.write(`req/s per round: none ${sides.none.map(Math.round).join(' ')}; cached ${sides.cached.map(Math.round).join(' ')}; uncached ${sides.uncached.map(Math.round).join(' ')}\n`);
  process.stdout.write(`in process: ${Math.round(micro.verifyPerSec)} signature verifications/s (jose RS256) vs ${Math.round(micro.cachedPerSec)} cache hits/s (${(micro.cachedPerSec / micro.verifyPerSec).toFixed(1)}x)\n`);
  const outIndex = args.indexOf('--out');
  if (outIndex >= 0 && args[outIndex + 1]) {
    writeFileSync(args[outIndex + 1]!, `${JSON.stringify({ connections: CONNECTIONS, rounds: ROUNDS, secondsPerSide: SECONDS_PER_SIDE, reqPerSec: sides, rows, inProcess: micro, targetRatio: 1.15 }, null, 2)}\n`);
  }
}

if (args[0] === '--serve') await serve(args[1]!);
else await main();
