/**
 * Schema growth benchmark (issue 15, H1): what one schema change costs the server, measured from
 * outside through the real HTTP surface. `toolgraph serve` (file persistence, a temporary data dir)
 * runs in a child process; this process probes its /healthz back to back (the longest probe is the
 * longest event-loop stall the server showed), reads its RSS from /proc, and restarts it.
 * Parts:
 * - bloat: the hostile writes. One GraphQL createNode with a new label and 20,000 properties, then
 *   Cypher `CREATE (:L0),(:L1),…` statements of 2,900 new labels each (STATEMENTS of them). Each is
 *   followed by two GraphQL requests (the next requests pay any rebuild). With the caps these are
 *   refused at once; without them each stalls the server.
 * - caps: the graph grown to the caps' defaults (see `caps` below), then schema changes at the caps
 *   and their next requests; then a restart over it.
 *   Target: no stall over 50 ms around a schema change at the caps (exit code 1 when over). A stall is
 *   measured as the server's CPU time while one /healthz probe waited (from /proc), since the wall
 *   time of a probe on a shared machine also counts other processes' turns; both are printed.
 * Usage: node scripts/bench/schema.ts [--part bloat|caps|all] [--shape chain|pairs] [--root DIR] [--statements N]
 *   [--max-old-space-size MB] [--out FILE]
 *   --root runs another checkout's server (e.g. the code before the caps), always with
 *   --max-old-space-size (default 1024) and a timeout per request, so a runaway old build dies alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_SCHEMA_CAPS } from '../../src/graph/engine/index.ts';
import { arg } from './bench-args.ts';

const ROOT = resolve(arg('--root') ?? join(import.meta.dirname, '../..'));
const PART = arg('--part') ?? 'all';
const STATEMENTS = Number(arg('--statements') ?? 7);
const MAX_OLD_SPACE = Number(arg('--max-old-space-size') ?? 1024);
/** chain: every label reaches every other (the worst case for manifests); pairs: labels joined two by two. */
const SHAPE = arg('--shape') ?? 'chain';
const OUT = arg('--out');
const REQUEST_TIMEOUT_MS = 120_000;
const STALL_TARGET_MS = 50;

interface Server {
  readonly child: ChildProcess;
  readonly origin: string;
  /** Spawn to /healthz 200, in ms. */
  readonly startMs: number;
}

async function startServer(dataDir: string, home: string): Promise<Server> {
  const started = performance.now();
  const child = spawn(process.execPath, [`--max-old-space-size=${MAX_OLD_SPACE}`, join(ROOT, 'src/cli/toolgraph.ts'), 'serve'], {
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), PORT: '0', LOG_LEVEL: 'error', TOOLGRAPH_DATA_DIR: dataDir, TOOLGRAPH_PERSISTENCE: 'file' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise<string>((resolveOrigin, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match) resolveOrigin(match[1]!);
    });
    child.once('exit', (code, signal) => reject(new Error(`server exited (${code ?? signal}) before listening`)));
  });
  for (;;) {
    const ok = await fetch(`${origin}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return { child, origin, startMs: performance.now() - started };
}

async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

function alive(server: Server): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

function rssMb(server: Server): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

/**
 * CPU time (user + system, ms) the server's main thread (its event loop) has used, from /proc (10 ms
 * resolution); GC helper threads and the libuv pool are left out.
 */
function cpuMs(server: Server): number {
  try {
    const fields = readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

interface Health {
  /** The slowest /healthz answer (wall clock): the longest stall seen, descheduling included. */
  longestMs: number;
  /**
   * The most CPU the server's main thread used while one /healthz probe waited: how long the event
   * loop itself was kept busy (the machine is shared; wall time alone counts other processes' turns).
   */
  longestBusyMs: number;
  probes: number;
  failures: number;
}

/** Probes /healthz back to back until stopped. */
function probeHealth(server: Server): { stop(): Promise<Health> } {
  let running = true;
  const health: Health = { longestMs: 0, longestBusyMs: 0, probes: 0, failures: 0 };
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      const cpu = cpuMs(server);
      const ok = await fetch(`${server.origin}/healthz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).then(async (r) => { await r.arrayBuffer(); return r.status === 200; }, () => false);
      const wall = performance.now() - t;
      health.longestMs = Math.max(health.longestMs, wall);
      health.longestBusyMs = Math.max(health.longestBusyMs, Math.min(wall, cpuMs(server) - cpu));
      health.probes++;
      if (!ok) health.failures++;
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return health;
    },
  };
}

interface Answer { ms: number; status: number; code?: string; message?: string }

async function post(origin: string, path: string, body: unknown): Promise<Answer> {
  const t = performance.now();
  try {
    const response = await fetch(`${origin}${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const json = await response.json() as { errors?: { message: string; extensions?: { code?: string } }[]; error?: { code: string; message: string }; result?: { errors?: { message: string; extensions?: { code?: string } }[] } };
    const error = json.error ?? json.errors?.[0] ?? json.result?.errors?.[0];
    const code = error === undefined ? undefined : 'code' in error ? error.code : error.extensions?.code;
    return { ms: performance.now() - t, status: response.status, ...(code ? { code } : {}), ...(error ? { message: error.message.slice(0, 200) } : {}) };
  } catch (error) {
    return { ms: performance.now() - t, status: 0, code: 'FAILED', message: String(error) };
  }
}

const graphql = (origin: string, graph: string, query: string, variables?: unknown) => post(origin, `/graphql/${graph}`, variables === undefined ? { query } : { query, variables });
const cypher = (origin: string, graph: string, query: string) => post(origin, '/dispatch', { id: 1, graph, method: { Cypher: { query } } });

/** One schema change and the two requests after it, with the longest stall and the RSS around them. */
async function measureChange(server: Server, change: () => Promise<Answer>, next: () => Promise<Answer>): Promise<Record<string, unknown>> {
  const probe = probeHealth(server);
  await new Promise((r) => setTimeout(r, 50));
  const rssBefore = rssMb(server).rss;
  const write = await change();
  const first = await next();
  const second = await next();
  // Rebuilds that run after the requests (the catalogue's manifests) show up in the probe too.
  await new Promise((r) => setTimeout(r, 1500));
  const health = await probe.stop();
  const memory = rssMb(server);
  return {
    write, next1: first, next2: second, longestHealthzMs: Math.round(health.longestMs), longestBusyMs: Math.round(health.longestBusyMs), healthzFailures: health.failures,
    rssBeforeMb: rssBefore, rssAfterMb: memory.rss, rssPeakMb: memory.peak, alive: alive(server),
  };
}

function print(title: string, rows: Record<string, unknown>[]): void {
  process.stdout.write(`\n${title}\n`);
  for (const row of rows) process.stdout.write(`  ${JSON.stringify(row)}\n`);
}

async function bloat(dataDir: string, home: string): Promise<Record<string, unknown>> {
  let server = await startServer(dataDir, home);
  const rows: Record<string, unknown>[] = [];
  const props: Record<string, number> = {};
  for (let i = 0; i < 20_000; i++) props[`p${String(i).padStart(5, '0')}`] = i;
  const nextQuery = () => graphql(server.origin, 'demo', '{ Person(first: 1) { id } }');
  rows.push({ step: 'createNode 20,000 properties', ...await measureChange(server, () => graphql(server.origin, 'demo', 'mutation($p: JSON!) { createNode(label: "Bloat", props: $p) { id } }', { p: props }), nextQuery) });
  for (let s = 0; s < STATEMENTS && alive(server); s++) {
    const labels = Array.from({ length: 2_900 }, (_, i) => `(:L${s}_${i})`).join(',');
    rows.push({ step: `CREATE 2,900 labels #${s + 1}`, ...await measureChange(server, () => cypher(server.origin, 'demo', `CREATE ${labels}`), nextQuery) });
  }
  print('bloat: each hostile write and the two requests after it', rows);
  let restart: Record<string, unknown> = { skipped: 'the server died' };
  if (alive(server)) {
    await stopServer(server);
    server = await startServer(dataDir, home);
    const first = await nextQuery();
    restart = { startMs: Math.round(server.startMs), firstRequest: first, rssMb: rssMb(server).rss };
    print('bloat: restart over what was accepted', [restart]);
  }
  await stopServer(server);
  return { rows, restart };
}

/** Runs a toolgraph CLI command of the same checkout on the same data dir (the server must not be running). */
async function cli(dataDir: string, home: string, args: string[]): Promise<void> {
  const child = spawn(process.execPath, [join(ROOT, 'src/cli/toolgraph.ts'), ...args], {
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), LOG_LEVEL: 'error', TOOLGRAPH_DATA_DIR: dataDir, TOOLGRAPH_PERSISTENCE: 'file' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`toolgraph ${args.join(' ')} exited with ${String(code)}`);
}

/**
 * Grows a fresh graph to the caps' defaults: every label, one label with every property a label may
 * have, nearly every edge type, each joining one label to the next (a chain: every label reaches
 * every other, the worst case for manifests, whose schemas hold every type their output reaches),
 * and the schema fields all but a few. Then schema changes at the caps (a property in the middle of
 * the chain, a property on the wide label, a new edge label pair), a refused one, and a restart.
 */
async function caps(dataDir: string, home: string): Promise<Record<string, unknown>> {
  const { maxLabels, maxPropertiesPerLabel, maxEdgeTypes, maxSchemaFields } = DEFAULT_SCHEMA_CAPS;
  await cli(dataDir, home, ['graph', 'create', 'big']);
  let server = await startServer(dataDir, home);
  const run = async (query: string): Promise<void> => {
    const answer = await cypher(server.origin, 'big', query);
    if (answer.code) throw new Error(`${query.slice(0, 80)}…: ${JSON.stringify(answer)}`);
  };
  const fill = performance.now();
  const props = (count: number, prefix = 'p') => Array.from({ length: count }, (_, p) => `${prefix}${p}: ${p}`).join(', ');
  await run(`CREATE (:C0 {${props(maxPropertiesPerLabel)}})`);
  const chain = Math.min(maxEdgeTypes - 2, maxLabels - 2);
  const perLabel = Math.floor((maxSchemaFields - maxPropertiesPerLabel - chain - 10) / (maxLabels - 1));
  for (let l = 1; l < maxLabels; l += 50) {
    const nodes = Array.from({ length: Math.min(50, maxLabels - l) }, (_, i) => `(:C${l + i} {id: 'c${l + i}', ${props(perLabel)}})`);
    await run(`CREATE ${nodes.join(', ')}`);
  }
  // chain: C1 -E1-> C2 -E2-> C3 …; pairs: C1 -E1-> C2, C3 -E3-> C4 … (every other link, so as many edge types).
  const links = Array.from({ length: chain }, (_, i) => (SHAPE === 'pairs' ? 1 + ((2 * i) % (maxLabels - 2)) : 1 + i));
  for (let e = 0; e < links.length; e += 50) {
    const batch = links.slice(e, e + 50).map((n, i) => [n, e + i + 1] as const);
    const match = [...new Set(batch.flatMap(([n]) => [n, n + 1]))].map((n) => `(c${n}:C${n} {id: 'c${n}'})`).join(', ');
    await run(`MATCH ${match} CREATE ${batch.map(([n, type]) => `(c${n})-[:E${type}]->(c${n + 1})`).join(', ')}`);
  }
  const fields = maxPropertiesPerLabel + perLabel * (maxLabels - 1) + chain;
  const nextQuery = () => graphql(server.origin, 'big', '{ C1(first: 1) { id p0 } }');
  const warm = await nextQuery();
  const fillSeconds = (performance.now() - fill) / 1000;
  // Let the catalogue catch up with the fill before measuring.
  await new Promise((r) => setTimeout(r, 5000));
  const rows: Record<string, unknown>[] = [];
  rows.push({ step: 'new property on a label in the middle', ...await measureChange(server, () => cypher(server.origin, 'big', "MATCH (c:C500 {id: 'c500'}) SET c.q = 1"), nextQuery) });
  rows.push({ step: 'new property on the last label', ...await measureChange(server, () => cypher(server.origin, 'big', `CREATE (:C${maxLabels - 1} {q: 1})`), nextQuery) });
  rows.push({ step: 'new edge label pair', ...await measureChange(server, () => cypher(server.origin, 'big', "MATCH (a:C1 {id: 'c1'}), (b:C5 {id: 'c5'}) CREATE (a)-[:E1]->(b)"), nextQuery) });
  rows.push({ step: 'a label over the cap (refused with the caps)', ...await measureChange(server, () => cypher(server.origin, 'big', 'CREATE (:OneTooMany)'), nextQuery) });
  print(`caps: ${maxLabels} labels (C0 with ${maxPropertiesPerLabel} properties, the rest ${perLabel} each), ${chain} edge types joining them (${SHAPE}), ${fields} of ${maxSchemaFields} schema fields (filled in ${fillSeconds.toFixed(0)} s; first GraphQL request ${Math.round(warm.ms)} ms)`, rows);
  await stopServer(server);
  server = await startServer(dataDir, home);
  const probe = probeHealth(server);
  const first = await nextQuery();
  // The catalogue builds the graph's manifests after start-up, in the background.
  await new Promise((r) => setTimeout(r, 10_000));
  const health = await probe.stop();
  const restart = { startMs: Math.round(server.startMs), firstRequest: first, longestHealthzMsAfterStart: Math.round(health.longestMs), longestBusyMsAfterStart: Math.round(health.longestBusyMs), rssMb: rssMb(server).rss };
  print('caps: restart over the graph at the caps', [restart]);
  await stopServer(server);
  return { caps: DEFAULT_SCHEMA_CAPS, shape: SHAPE, fields, rows, restart };
}

const home = mkdtempSync(join(tmpdir(), 'tg-bench-schema-'));
const results: Record<string, unknown> = { root: ROOT, maxOldSpaceSizeMb: MAX_OLD_SPACE };
let overTarget = false;
try {
  if (PART === 'bloat' || PART === 'all') results['bloat'] = await bloat(join(home, 'bloat'), home);
  if (PART === 'caps' || PART === 'all') {
    const result = await caps(join(home, 'caps'), home);
    results['caps'] = result;
    const changes = (result['rows'] as { longestHealthzMs: number; longestBusyMs: number }[]).slice(0, 3);
    const busy = Math.max(...changes.map((r) => r.longestBusyMs));
    const wall = Math.max(...changes.map((r) => r.longestHealthzMs));
    overTarget = busy > STALL_TARGET_MS;
    process.stdout.write(`\nlongest stall around a schema change at the caps: ${busy} ms of server CPU while one /healthz waited (target ≤ ${STALL_TARGET_MS} ms): ${overTarget ? 'OVER' : 'ok'}; slowest /healthz ${wall} ms wall on this machine\n`);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
if (OUT) writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
process.exit(overTarget ? 1 : 0);
