/**
 * GraphQL benchmark (`npm run bench -- graphql`): three query shapes over HTTP with concurrent
 * connections (autocannon), toolgraph's /graphql/{graph} against Mercurius + graphql-jit with
 * hand-written resolvers serving the same generated data from memory, each server in its own child
 * process, taking turns (A B A B …). Then APQ hash-only against full text on toolgraph, and the
 * GraphQL path against the Cypher path in process on the same engine.
 * Usage: node scripts/bench/graphql.ts [--rounds N] [--seconds S] [--connections C] [--out FILE]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { GraphEngine, type MutationInput } from '../../src/graph/engine/index.ts';
import { runCypher } from '../../src/graph/cypher/index.ts';
import { createGraphqlSurface } from '../../src/graph/graphql/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { startHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { sha256Hex } from '../../src/digest/index.ts';
import { generate, KNOWS_PER_PERSON, ORGS, PEOPLE, type Data, type Person } from './people-data.ts';
import { SHAPES } from './graphql-shapes.ts';
import { arg } from './bench-args.ts';
import { fmt } from './bench-stats.ts';
import { NullPersistence } from './null-persistence.ts';


const ROUNDS = Number(arg('--rounds') ?? 5);
const SECONDS = Number(arg('--seconds') ?? 4);
const CONNECTIONS = Number(arg('--connections') ?? 20);
const OUT = arg('--out');
const GRAPH = 'bench';
const LOCAL = { subject: 'bench', scopes: ['*'] };


async function loadEngine(data: Data): Promise<GraphEngine> {
  const engine = await GraphEngine.open({ persistence: new NullPersistence(), snapshotEvery: 0 });
  await engine.createGraph(GRAPH);
  const mutations: MutationInput[] = [];
  for (const p of data.people) mutations.push({ op: 'createNode', id: p.id, label: 'Person', props: { name: p.name, age: p.age, active: p.active } });
  for (const o of data.orgs) mutations.push({ op: 'createNode', id: o.id, label: 'Organization', props: { name: o.name } });
  for (const [src, tgts] of data.knows) for (const tgt of tgts) mutations.push({ op: 'addEdge', src, tgt, type: 'KNOWS' });
  for (const [src, tgt] of data.worksAt) mutations.push({ op: 'addEdge', src, tgt, type: 'WORKS_AT' });
  for (let i = 0; i < mutations.length; i += 10_000) await engine.commit({ graph: GRAPH, mutations: mutations.slice(i, i + 10_000) });
  return engine;
}

// ---- the two servers (child processes) -------------------------------------------------------

async function serveToolgraph(): Promise<number> {
  const engine = await loadEngine(generate());
  const config = resolveConfig({ env: { HOME: '/tmp', PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory' } });
  const logger = silentLogger();
  const surface = createGraphqlSurface({ engine, logger, values: config.values, resolvePrincipal: async () => LOCAL });
  const host = await startHost({ services: [surface.service], logger, host: '127.0.0.1', port: 0 });
  return Number(new URL(host.origin).port);
}

async function serveMercurius(): Promise<number> {
  const data = generate();
  const { default: Fastify } = await import('fastify');
  const { default: mercurius } = await import('mercurius');
  const byId = new Map(data.people.map((p) => [p.id, p]));
  const orgs = new Map(data.orgs.map((o) => [o.id, o]));
  const schema = `
    type Query { Person(first: Int, limit: Int, id: ID, active: Boolean, age: Int, name: String): [Person!]! }
    type Person { id: ID! name: String age: Int active: Boolean KNOWS(first: Int, limit: Int): [Person!]! WORKS_AT(first: Int, limit: Int): [Organization!]! }
    type Organization { id: ID! name: String }`;
  const take = <T>(list: T[], first?: number | null, limit?: number | null): T[] => {
    const n = Math.min(first ?? Infinity, limit ?? Infinity);
    return n === Infinity ? list : list.slice(0, n);
  };
  const resolvers = {
    Query: {
      Person: (_: unknown, args: { first?: number; limit?: number; id?: string; active?: boolean; age?: number; name?: string }) => {
        if (args.id !== undefined) {
          const p = byId.get(args.id);
          return p ? [p] : [];
        }
        const n = Math.min(args.first ?? Infinity, args.limit ?? Infinity);
        const out: Person[] = [];
        for (const p of data.people) {
          if (out.length >= n) break;
          if (args.active !== undefined && p.active !== args.active) continue;
          if (args.age !== undefined && p.age !== args.age) continue;
          if (args.name !== undefined && p.name !== args.name) continue;
          out.push(p);
        }
        return out;
      },
    },
    Person: {
      KNOWS: (p: Person, args: { first?: number; limit?: number }) => take(data.knows.get(p.id)!, args.first, args.limit).map((id) => byId.get(id)!),
      WORKS_AT: (p: Person, args: { first?: number; limit?: number }) => take([orgs.get(data.worksAt.get(p.id)!)!], args.first, args.limit),
    },
  };
  const app = Fastify({ logger: false });
  await app.register(mercurius, { schema, resolvers, jit: 1, path: '/graphql' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

interface Child { process: ChildProcess; url: string }

async function startChild(role: 'toolgraph' | 'mercurius'): Promise<Child> {
  const child = spawn(process.execPath, [import.meta.filename, '--serve', role], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (line) => {
      const m = /^PORT (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${role} server exited with ${code}`)));
  });
  return { process: child, url: role === 'toolgraph' ? `http://127.0.0.1:${port}/graphql/${GRAPH}` : `http://127.0.0.1:${port}/graphql` };
}

// ---- measuring -----------------------------------------------------------------------------

interface Run { rps: number; p99: number; errors: number }

async function load(url: string, body: string): Promise<Run> {
  const result = await autocannon({
    url, method: 'POST', connections: CONNECTIONS, duration: SECONDS, body,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function post(url: string, body: string): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return res.json();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const min = (xs: number[]) => Math.min(...xs);

interface Row { suite: string; measure: string; ours: string; peer: string; ratio: string; raw: Record<string, number[]> }

async function compare(measure: string, a: () => Promise<Run>, b: () => Promise<Run>, names: [string, string]): Promise<Row> {
  // Two unmeasured runs each first: JIT warm-up and the garbage left from loading the data
  // (a first run here serves a fraction of the later ones, on either side).
  for (let i = 0; i < 2; i++) {
    await a();
    await b();
  }
  const ra: Run[] = [];
  const rb: Run[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ra.push(await a());
    rb.push(await b());
  }
  const errors = [...ra, ...rb].reduce((n, r) => n + r.errors, 0);
  if (errors > 0) throw new Error(`${measure}: ${errors} failed requests`);
  const ratios = ra.map((r, i) => r.rps / rb[i]!.rps);
  return {
    suite: 'graphql', measure,
    ours: `${fmt(median(ra.map((r) => r.rps)))} req/s (min ${fmt(min(ra.map((r) => r.rps)))}), p99 ${fmt(median(ra.map((r) => r.p99)))} ms`,
    peer: `${names[1]} ${fmt(median(rb.map((r) => r.rps)))} req/s (min ${fmt(min(rb.map((r) => r.rps)))}), p99 ${fmt(median(rb.map((r) => r.p99)))} ms`,
    ratio: `${fmt(median(ratios), 2)}× (min ${fmt(min(ratios), 2)}×)`,
    raw: { ours: ra.map((r) => r.rps), peer: rb.map((r) => r.rps), oursP99: ra.map((r) => r.p99), peerP99: rb.map((r) => r.p99) },
  };
}

function stripExtensions(body: unknown): unknown {
  return (body as { data?: unknown }).data;
}

async function inProcess(): Promise<Row> {
  const engine = await loadEngine(generate());
  const config = resolveConfig({ env: { HOME: '/tmp', PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory' } });
  const surface = createGraphqlSurface({ engine, logger: silentLogger(), values: config.values, resolvePrincipal: async () => LOCAL });
  const graphql = '{ Person(first: 100) { name KNOWS { name WORKS_AT { name } } } }';
  const cypher = 'MATCH (p:Person) RETURN p.name AS name, [(p)-[:KNOWS]->(f:Person) | f {.name, WORKS_AT: [(f)-[:WORKS_AT]->(o:Organization) | o {.name}]}] AS KNOWS LIMIT 100';
  // As many requests as fit in a second (at least 3), so a slow side does not stretch the run.
  const timed = async (one: () => Promise<unknown>): Promise<number> => {
    const t = performance.now();
    let n = 0;
    while (n < 3 || performance.now() - t < 1000) {
      await one();
      n++;
    }
    return (performance.now() - t) / n;
  };
  const timeGraphql = () => timed(() => surface.pipeline.run({ graph: GRAPH, principal: LOCAL, method: 'POST', params: { query: graphql } }));
  const timeCypher = () => timed(() => runCypher(engine, GRAPH, cypher));
  await timeGraphql();
  await timeCypher();
  const g: number[] = [];
  const c: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    g.push(await timeGraphql());
    c.push(await timeCypher());
  }
  const ratios = g.map((x, i) => c[i]! / x);
  await engine.close();
  return {
    suite: 'graphql', measure: 'in process: 100 people with every friend and employer, GraphQL vs Cypher (per request)',
    ours: `${fmt(median(g) * 1000)} µs (min ${fmt(min(g) * 1000)})`, peer: `Cypher ${fmt(median(c) * 1000)} µs (min ${fmt(min(c) * 1000)})`,
    ratio: `${fmt(median(ratios), 2)}× faster (min ${fmt(min(ratios), 2)}×)`, raw: { graphqlMs: g, cypherMs: c },
  };
}

async function main(): Promise<void> {
  const role = arg('--serve');
  if (role === 'toolgraph' || role === 'mercurius') {
    const port = role === 'toolgraph' ? await serveToolgraph() : await serveMercurius();
    process.stdout.write(`PORT ${port}\n`);
    return;
  }
  process.stdout.write(`GraphQL benchmark: ${PEOPLE} people, ${ORGS} organisations, ${PEOPLE * KNOWS_PER_PERSON} KNOWS edges; autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds A/B\n`);
  const ours = await startChild('toolgraph');
  const peer = await startChild('mercurius');
  const rows: Row[] = [];
  try {
    for (const [name, query] of Object.entries(SHAPES)) {
      const body = JSON.stringify({ query });
      // Same data from both servers, or the comparison means nothing.
      const a = JSON.stringify(stripExtensions(await post(ours.url, body)));
      const b = JSON.stringify(stripExtensions(await post(peer.url, body)));
      if (a !== b) throw new Error(`${name}: the two servers answer different data:\n${a.slice(0, 400)}\n${b.slice(0, 400)}`);
      rows.push(await compare(`${name} over HTTP`, () => load(ours.url, body), () => load(peer.url, body), ['toolgraph', 'Mercurius + graphql-jit']));
      process.stdout.write(`  ${rows.at(-1)!.measure}: ${rows.at(-1)!.ratio}\n`);
    }
    const query = SHAPES.deep100;
    const hash = sha256Hex(query);
    const full = JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    const hashOnly = JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    await post(ours.url, full);
    rows.push(await compare('APQ deep100: hash only vs full text', () => load(ours.url, hashOnly), () => load(ours.url, full), ['hash only', 'full text']));
    process.stdout.write(`  ${rows.at(-1)!.measure}: ${rows.at(-1)!.ratio}\n`);
  } finally {
    ours.process.kill('SIGTERM');
    peer.process.kill('SIGTERM');
  }
  rows.push(await inProcess());
  process.stdout.write('\n| suite | measure | toolgraph | peer in the same run | ratio |\n|---|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.suite} | ${r.measure} | ${r.ours} | ${r.peer} | ${r.ratio} |\n`);
  if (OUT) await writeFile(OUT, JSON.stringify({ rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, rows }, null, 2));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
