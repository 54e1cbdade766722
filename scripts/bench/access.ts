// Access benchmark: node scripts/bench/access.ts [--rounds N] [--seconds S] [--out FILE]
// 1. Per-request cost of a GraphQL read (POST /graphql/demo) behind a verified IdP JWT (kg:read,
//    verified-token cache, as serve runs it) with the demo graph's policy giving EVERY label a row
//    rule that reads the row and a claim (true for every row, so both sides answer the same bytes),
//    against the same read with AUTH_TYPE=none (the local operator: kg:admin, no policy applies).
//    Same engine, same server process (a child, so load generator and server each have a core).
//    Target: at most 1.15x the time per request. Sides alternate for ROUNDS rounds. Also the server
//    process's CPU time per request on each side (steadier than throughput on a shared machine).
// 2. Per-row cost of row-level security on a 100,000-row label scan, in process: the engine's scan
//    against the same scan through the access module's filtered view with a constant rule (folded
//    away) and with `row.team in claims.groups` (half the rows visible).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { createBearerAuthenticator, openTrustedIssuer, requireBearer } from '../../src/auth/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { grantOf, readableView, replaceAccessPolicy, type AccessPolicy } from '../../src/graph/access/index.ts';
import { GraphEngine, type MutationInput } from '../../src/graph/engine/index.ts';
import { createGraphqlSurface } from '../../src/graph/graphql/index.ts';
import { MemoryPersistence } from '../../src/graph/persist/index.ts';
import { startHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import type { Principal } from '../../src/principal/index.ts';
import { openGraphEngine, principalResolverFor } from '../../src/serve/index.ts';
import { startIdp } from '../../test/support/idp.ts';
import { median, printTable, timedLoops } from './bench-stats.ts';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const ROUNDS = Number(arg('--rounds') ?? 5);
const SECONDS_PER_SIDE = Number(arg('--seconds') ?? 2);
const CONNECTIONS = 16;
const AUDIENCE = 'https://bench.toolgraph.test';
const QUERY = JSON.stringify({ query: '{ Person(first: 20) { name email WORKS_AT { name country } } Organization { name founded } }' });
const SCAN_ROWS = 100_000;

/** A rule on every label that reads the row and a claim on every row, and holds for every row. */
const EVERY_ROW_RULE: AccessPolicy = {
  version: 1,
  read: [{ scope: 'kg:read' }],
  write: [],
  rows: { '*': { not: { eq: [{ row: 'id' }, { claim: 'sub' }] } } },
};

async function serve(discoveryUrl: string): Promise<void> {
  const logger = silentLogger();
  const values = resolveConfig({ env: { TOOLGRAPH_PERSISTENCE: 'memory' } }).values;
  const engine = await openGraphEngine({ persistence: 'memory', dataDir: '/nonexistent', databaseUrl: undefined }, logger, { seed: false });
  const { loadReferenceGraph } = await import('../../src/graph/fixtures/index.ts');
  await loadReferenceGraph(engine, 'demo');
  await replaceAccessPolicy(engine, 'demo', EVERY_ROW_RULE);
  const issuer = await openTrustedIssuer(discoveryUrl);
  const surface = (resolvePrincipal: (req: http.IncomingMessage) => Promise<Principal>) => createGraphqlSurface({ engine, logger, values, resolvePrincipal }).service;
  const authenticator = createBearerAuthenticator({ issuer, audience: AUDIENCE, resourceMetadataUrl: `${AUDIENCE}/.well-known/oauth-protected-resource` });
  // What serve wires (principalResolverFor): the local operator for none, the verified token's principal for jwt.
  const none = await startHost({ services: [surface(principalResolverFor({ authType: 'none' }))], logger, host: '127.0.0.1', port: 0 });
  const jwt = await startHost({ services: [requireBearer(surface(principalResolverFor({ authType: 'jwt' })), authenticator)], logger, host: '127.0.0.1', port: 0 });
  // The server process's CPU time so far (µs), for CPU per request: steadier than throughput on a shared machine.
  const meter = http.createServer((_req, res) => {
    const { user, system } = process.cpuUsage();
    res.end(String(user + system));
  });
  await new Promise<void>((resolve) => meter.listen(0, '127.0.0.1', resolve));
  const meterOrigin = `http://127.0.0.1:${(meter.address() as import('node:net').AddressInfo).port}`;
  process.stdout.write(`${JSON.stringify({ none: none.origin, jwt: jwt.origin, cpu: meterOrigin })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void Promise.all([none.close(), jwt.close(), new Promise((resolve) => meter.close(resolve))]).then(() => {
    issuer.close();
    return engine.close();
  }).then(() => process.exit(0)));
}

/** Answers the body of one request (to check both sides answer the same bytes). */
function once(agent: http.Agent, origin: string, token: string | undefined): Promise<string> {
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(QUERY) };
  if (token) headers['authorization'] = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('/graphql/demo', origin), { method: 'POST', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`HTTP ${res.statusCode} from ${origin}`))));
    });
    req.on('error', reject);
    req.end(QUERY);
  });
}

/** The server's CPU time so far, in µs. */
async function serverCpu(meter: string): Promise<number> {
  return Number(await (await fetch(meter)).text());
}

/** Requests per second with CONNECTIONS keep-alive loops for `seconds`, and the server's CPU µs per request meanwhile. */
async function measure(meter: string, origin: string, token: string | undefined, seconds: number): Promise<{ perSec: number; cpu: number }> {
  const before = await serverCpu(meter);
  const { perSec, count } = await load(origin, token, seconds);
  return { perSec, cpu: (await serverCpu(meter) - before) / count };
}

/** Requests per second with CONNECTIONS keep-alive loops for `seconds`, and how many were answered. */
async function load(origin: string, token: string | undefined, seconds: number): Promise<{ perSec: number; count: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  try {
    return await timedLoops(() => once(agent, origin, token), CONNECTIONS, seconds * 1000);
  } finally {
    agent.destroy();
  }
}

type Sides = { none: number[]; jwt: number[]; admin: number[] };

async function httpSides(): Promise<{ sides: Sides; cpu: Sides }> {
  const idp = await startIdp({ defaultAudience: AUDIENCE });
  const token = await idp.mintToken({ sub: 'bench-user', scope: 'kg:read', groups: ['bench'] });
  // The same token shape with kg:admin: verified like the other, but no policy applies (the auth cost alone).
  const adminToken = await idp.mintToken({ sub: 'bench-user', scope: 'kg:admin', groups: ['bench'] });
  const child = spawn(process.execPath, [import.meta.filename, '--serve', idp.discoveryUrl], { stdio: ['pipe', 'pipe', 'inherit'] });
  const origins = await new Promise<{ none: string; jwt: string; cpu: string }>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      if (buffered.includes('\n')) resolve(JSON.parse(buffered.slice(0, buffered.indexOf('\n'))) as never);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const sides: Sides = { none: [], jwt: [], admin: [] };
  const cpu: Sides = { none: [], jwt: [], admin: [] };
  const side = async (name: keyof Sides, token: string | undefined) => {
    const m = await measure(origins.cpu, name === 'none' ? origins.none : origins.jwt, token, SECONDS_PER_SIDE);
    sides[name].push(m.perSec);
    cpu[name].push(m.cpu);
  };
  try {
    const agent = new http.Agent({ keepAlive: true });
    const [a, b, c] = [await once(agent, origins.none, undefined), await once(agent, origins.jwt, token), await once(agent, origins.jwt, adminToken)];
    agent.destroy();
    if (a !== b || a !== c) throw new Error('the sides answer different bodies');
    await load(origins.none, undefined, 1);
    await load(origins.jwt, token, 1);
    await load(origins.jwt, adminToken, 1);
    for (let round = 0; round < ROUNDS; round++) {
      await side('none', undefined);
      await side('jwt', token);
      await side('admin', adminToken);
    }
  } finally {
    child.stdin.end();
    await idp.close();
  }
  return { sides, cpu };
}

async function scanSides(): Promise<{ raw: number[]; folded: number[]; rule: number[]; visible: number }> {
  const engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('big');
  for (let start = 0; start < SCAN_ROWS; start += 5000) {
    const mutations: MutationInput[] = [];
    for (let i = start; i < start + 5000; i++) mutations.push({ op: 'createNode', id: `doc-${String(i).padStart(6, '0')}`, label: 'Doc', props: { team: i % 2 === 0 ? 'red' : 'blue', n: i } });
    await engine.commit({ graph: 'big', mutations });
  }
  const reader: Principal = { subject: 'reader', scopes: ['kg:read'], groups: ['red', 'green'] };
  await replaceAccessPolicy(engine, 'big', { version: 1, read: [{ anyone: true }], write: [], rows: { Doc: { in: [{ row: 'team' }, { claim: 'groups' }] } } });
  const ruled = readableView(engine, 'big', reader);
  const raw = engine.view('big');
  // A second graph object with a constant rule ("*": true folds to no per-row work).
  await engine.createGraph('folded');
  await engine.commit({ graph: 'folded', mutations: [...raw.scan('Doc')].map((n) => ({ op: 'createNode' as const, id: n.id, label: n.label, props: n.props })) });
  await replaceAccessPolicy(engine, 'folded', { version: 1, read: [{ anyone: true }], write: [], rows: { '*': true } });
  const folded = readableView(engine, 'folded', reader);
  if (grantOf(engine, 'big', reader).kind !== 'rows') throw new Error('the reader should be filtered');
  const nsPerRow = (view: typeof raw): number => {
    const start = process.hrtime.bigint();
    let seen = 0;
    for (let i = 0; i < 3; i++) seen += view.scan('Doc').length;
    if (seen === 0) throw new Error('nothing scanned');
    return Number(process.hrtime.bigint() - start) / (3 * SCAN_ROWS);
  };
  for (let i = 0; i < 3; i++) { nsPerRow(raw); nsPerRow(folded); nsPerRow(ruled); }
  const out = { raw: [] as number[], folded: [] as number[], rule: [] as number[], visible: ruled.scan('Doc').length };
  for (let round = 0; round < ROUNDS; round++) {
    out.raw.push(nsPerRow(raw));
    out.folded.push(nsPerRow(folded));
    out.rule.push(nsPerRow(ruled));
  }
  await engine.close();
  return out;
}

async function main(): Promise<void> {
  const { sides, cpu } = await httpSides();
  const scan = await scanSides();
  const us = (reqPerSec: number) => 1e6 / reqPerSec;
  const ratios = sides.jwt.map((v, i) => sides.none[i]! / v);
  const adminRatios = sides.admin.map((v, i) => sides.none[i]! / v);
  const rlsRatios = sides.jwt.map((v, i) => sides.admin[i]! / v);
  process.stdout.write(`GraphQL read, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS_PER_SIDE} s per side, sides alternating; target: jwt + row rules at most 1.15x none\n`);
  printTable([
    ['measure', 'min µs/req', 'median µs/req', 'ratio (min)', 'ratio (median)'],
    ['POST /graphql/demo, AUTH_TYPE=none (local operator, no policy applies)', us(Math.max(...sides.none)).toFixed(1), us(median(sides.none)).toFixed(1), '1.00x', '1.00x'],
    ['POST /graphql/demo, verified JWT (kg:read), a row rule on every row', us(Math.max(...sides.jwt)).toFixed(1), us(median(sides.jwt)).toFixed(1), `${Math.min(...ratios).toFixed(2)}x`, `${median(ratios).toFixed(2)}x`],
    ['POST /graphql/demo, verified JWT (kg:admin: auth only, no policy applies)', us(Math.max(...sides.admin)).toFixed(1), us(median(sides.admin)).toFixed(1), `${Math.min(...adminRatios).toFixed(2)}x`, `${median(adminRatios).toFixed(2)}x`],
    ['  so the access module\'s share: kg:read with row rules vs kg:admin, same auth', '', '', `${Math.min(...rlsRatios).toFixed(2)}x`, `${median(rlsRatios).toFixed(2)}x`],
  ]);
  const cpuRatios = (side: number[]) => side.map((v, i) => v / cpu.none[i]!);
  process.stdout.write('Server CPU per request (the server process\'s user + system time over the requests answered; less sensitive to other load than throughput)\n');
  printTable([
    ['measure', 'min µs/req', 'median µs/req', 'ratio (min)', 'ratio (median)'],
    ['AUTH_TYPE=none', Math.min(...cpu.none).toFixed(1), median(cpu.none).toFixed(1), '1.00x', '1.00x'],
    ['verified JWT (kg:read), a row rule on every row', Math.min(...cpu.jwt).toFixed(1), median(cpu.jwt).toFixed(1), `${Math.min(...cpuRatios(cpu.jwt)).toFixed(2)}x`, `${median(cpuRatios(cpu.jwt)).toFixed(2)}x`],
    ['verified JWT (kg:admin: auth only)', Math.min(...cpu.admin).toFixed(1), median(cpu.admin).toFixed(1), `${Math.min(...cpuRatios(cpu.admin)).toFixed(2)}x`, `${median(cpuRatios(cpu.admin)).toFixed(2)}x`],
  ]);
  process.stdout.write(`req/s per round: none ${sides.none.map(Math.round).join(' ')}; jwt ${sides.jwt.map(Math.round).join(' ')}; admin ${sides.admin.map(Math.round).join(' ')}\n\n`);
  process.stdout.write(`RLS on a ${SCAN_ROWS}-row label scan (view.scan, in process, ${ROUNDS} rounds; ${scan.visible} rows visible through the rule)\n`);
  const cost = (side: number[]) => side.map((v, i) => v - scan.raw[i]!);
  printTable([
    ['scan', 'min ns/row', 'median ns/row', 'RLS cost ns/row (median)', 'ratio to engine (median)'],
    ['engine scan, no access module', Math.min(...scan.raw).toFixed(1), median(scan.raw).toFixed(1), '-', '1.00x'],
    ['through access, constant rule ("*": true, folded)', Math.min(...scan.folded).toFixed(1), median(scan.folded).toFixed(1), median(cost(scan.folded)).toFixed(1), `${median(scan.folded.map((v, i) => v / scan.raw[i]!)).toFixed(2)}x`],
    ['through access, row.team in claims.groups', Math.min(...scan.rule).toFixed(1), median(scan.rule).toFixed(1), median(cost(scan.rule)).toFixed(1), `${median(scan.rule.map((v, i) => v / scan.raw[i]!)).toFixed(2)}x`],
  ]);
  const outFile = arg('--out');
  if (outFile) {
    writeFileSync(outFile, `${JSON.stringify({ connections: CONNECTIONS, rounds: ROUNDS, secondsPerSide: SECONDS_PER_SIDE, reqPerSec: sides, serverCpuMicrosPerRequest: cpu, ratios, adminRatios, rlsRatios, targetRatio: 1.15, scan }, null, 2)}\n`);
  }
}

if (args[0] === '--serve') await serve(args[1]!);
else await main();
