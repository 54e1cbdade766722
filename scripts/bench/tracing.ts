/**
 * Tracing benchmark: what OpenTelemetry traces cost on the request path. Three `toolgraph serve`
 * processes (memory persistence, AUTH_TYPE=none, log level silent) take turns under the same load:
 *   before  the code before tracing existed (a checkout of --before-ref, default the merge base with main)
 *   off     this code with no OTEL_* variable (the default: no SDK loaded)
 *   on      this code exporting every span (the default parent-based always-on sampler) over OTLP/HTTP
 *           to a receiver in this process that reads and discards each export (OTEL_BSP_SCHEDULE_DELAY 200 ms)
 * Workloads: POST /dispatch (a Cypher point read: 2 spans), POST /graphql/{graph} (a small query:
 * 2 spans, parse and validate cached), and the REST tool call POST /mcp/tools/call running graph.cypher,
 * which calls the graph service over HTTP (5 spans, a traceparent sent downstream).
 * autocannon drives each side for --seconds with --connections, sides rotating for --rounds rounds.
 * Besides requests per second, each side's server CPU time per request is read from /proc/<pid>/stat.
 * Ratios (off/before, on/before, on/off) of both are per round, then min and median; on a shared,
 * busy machine the CPU time per request moves much less than the wall-clock rate.
 * Usage: node scripts/bench/tracing.ts [--rounds 5] [--seconds 3] [--connections 16] [--before DIR | --before-ref REF] [--out FILE]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { arg } from './bench-args.ts';
import { median, printTable } from './bench-stats.ts';

const ROUNDS = Number(arg('--rounds') ?? 5);
const SECONDS = Number(arg('--seconds') ?? 3);
const CONNECTIONS = Number(arg('--connections') ?? 16);
const OUT = arg('--out');
const ROOT = resolve(import.meta.dirname, '..', '..');

const QUERY = 'MATCH (p:Person {id: $id}) RETURN p.name AS name';
const WORKLOADS = [
  { name: 'dispatch (Cypher point read)', path: '/dispatch', body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: QUERY, params: { id: 'person-001' } } } }) },
  { name: 'graphql (small query)', path: '/graphql/demo', body: JSON.stringify({ query: '{ Person(first: 2) { name } }' }) },
  { name: 'tool call (graph.cypher → /dispatch)', path: '/mcp/tools/call', body: JSON.stringify({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: "MATCH (p:Person {id: 'person-001'}) RETURN p.name AS name" } }) },
] as const;

type SideName = 'before' | 'off' | 'on';
interface Side { name: SideName; child: ChildProcess; origin: string }

/** A checkout of the code before tracing, sharing this checkout's node_modules. */
function beforeCheckout(): string {
  const given = arg('--before');
  if (given) return resolve(given);
  const ref = arg('--before-ref') ?? execFileSync('git', ['merge-base', 'HEAD', 'main'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-before-'));
  execFileSync('sh', ['-c', `git archive ${JSON.stringify(ref)} | tar -x -C ${JSON.stringify(dir)}`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  process.stdout.write(`before: ${ref} in ${dir}\n`);
  return dir;
}

/** The OTLP/HTTP receiver of the `on` side: reads each export whole, counts its spans, answers 200. */
async function startSink(): Promise<{ endpoint: string; spans: () => number; close: () => void }> {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      spans += Buffer.concat(chunks).toString('utf8').split('"spanId"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans: () => spans, close: () => server.close() };
}

async function start(name: SideName, root: string, env: Record<string, string>): Promise<Side> {
  const home = mkdtempSync(join(tmpdir(), 'tg-bench-tracing-'));
  const child = spawn(process.execPath, [join(root, 'src/cli/toolgraph.ts'), 'serve', '--port', '0', '--persistence', 'memory', '--log-level', 'silent'], {
    cwd: root, env: { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const origin = await new Promise<string>((done, fail) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /toolgraph listening on (http:\/\/[^\s]+)/.exec(out);
      if (match && out.includes('/healthz')) done(match[1]!);
    });
    child.once('exit', (code) => fail(new Error(`${name}: serve exited with ${code}`)));
  });
  return { name, child, origin };
}

/** utime + stime of a process in microseconds (Linux /proc; the clock-tick is 10 ms). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function load(side: Side, path: string, body: string, seconds: number): Promise<{ rate: number; cpu: number }> {
  const before = cpuMicros(side.child.pid!);
  const result = await autocannon({ url: `${side.origin}${path}`, method: 'POST', body, connections: CONNECTIONS, duration: seconds, headers: { 'content-type': 'application/json' } });
  const cpu = cpuMicros(side.child.pid!) - before;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${side.name} ${path}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { rate: result.requests.average, cpu: cpu / Math.max(1, result.requests.total) };
}

const sink = await startSink();
const sides = [
  await start('before', beforeCheckout(), {}),
  await start('off', ROOT, {}),
  await start('on', ROOT, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' }),
];
const rows: string[][] = [['workload', 'side', 'req/s min', 'req/s median', 'cpu µs/req min', 'cpu µs/req median', 'req/s ratio min', 'req/s ratio median', 'cpu ratio min', 'cpu ratio median']];
const json: Record<string, unknown>[] = [];
try {
  for (const workload of WORKLOADS) {
    const rates: Record<SideName, number[]> = { before: [], off: [], on: [] };
    const cpus: Record<SideName, number[]> = { before: [], off: [], on: [] };
    // A short warm-up per side (JIT, caches), not counted.
    for (const side of sides) await load(side, workload.path, workload.body, 1);
    for (let round = 0; round < ROUNDS; round++) {
      // The order rotates every round, so no side always runs first (or right after the same other).
      const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
      for (const side of order) {
        const { rate, cpu } = await load(side, workload.path, workload.body, SECONDS);
        rates[side.name].push(rate);
        cpus[side.name].push(cpu);
      }
    }
    const ratio = (of: Record<SideName, number[]>, a: SideName, b: SideName) => of[a].map((r, i) => r / of[b][i]!);
    const pairs = [['off', 'before'], ['on', 'before'], ['on', 'off']] as const;
    const ratios = Object.fromEntries(pairs.map(([a, b]) => [`${a}/${b}`, ratio(rates, a, b)]));
    const cpuRatios = Object.fromEntries(pairs.map(([a, b]) => [`${a}/${b}`, ratio(cpus, a, b)]));
    for (const name of ['before', 'off', 'on'] as const) {
      rows.push([workload.name, name, Math.min(...rates[name]).toFixed(0), median(rates[name]).toFixed(0), Math.min(...cpus[name]).toFixed(0), median(cpus[name]).toFixed(0), '', '', '', '']);
    }
    for (const [name, values] of Object.entries(ratios)) {
      const cpu = cpuRatios[name]!;
      rows.push([workload.name, name, '', '', '', '', Math.min(...values).toFixed(3), median(values).toFixed(3), Math.min(...cpu).toFixed(3), median(cpu).toFixed(3)]);
    }
    json.push({ workload: workload.name, rates, cpuMicrosPerRequest: cpus, ratios, cpuRatios });
  }
} finally {
  for (const side of sides) side.child.kill('SIGTERM');
  sink.close();
}
printTable(rows);
process.stdout.write(`spans received by the on side's receiver: ${sink.spans()}\n`);
if (OUT) await writeFile(OUT, `${JSON.stringify({ bench: 'tracing', rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, results: json, spansReceived: sink.spans() }, null, 2)}\n`);
