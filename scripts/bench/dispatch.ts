/**
 * Dispatch benchmark: requests per second of `POST /dispatch` with a small Cypher read (the README
 * tour's query on the demo graph), against a hand-written `node:http` server that reads the same body
 * and answers the same bytes: the floor. autocannon drives both from this process with 20
 * connections; the servers run in a child process, one side loaded at a time, taking turns.
 * Usage: node scripts/bench/dispatch.ts [--rounds N] [--seconds N] [--connections N] [--log-level L] [--out FILE]
 *        [--cpu-prof DIR] (profiles the server process with node --cpu-prof into DIR)
 * The toolgraph side is the real composition (`startToolgraph --only graph`, memory persistence, the
 * default log level `info`, lines written to /dev/null). Goal (issue 7, item 19): at least 0.5× the floor.
 * Besides requests per second, each side's server CPU time per request is read from the server process
 * (process.cpuUsage around each run): on a busy machine it moves much less than wall-clock throughput.
 *
 * `--through-nginx`: instead, the same toolgraph reached through Debian's nginx as the load balancer
 * of README "Scaling out" (an upstream with kept-alive connections) against reaching it directly,
 * in alternating rounds; the ratio is through-nginx / direct (the proxy's cost on the request path).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { arg } from './bench-args.ts';


const ROUNDS = Number(arg('--rounds') ?? 5);
const SECONDS = Number(arg('--seconds') ?? 3);
const CONNECTIONS = Number(arg('--connections') ?? 20);
const LOG_LEVEL = arg('--log-level') ?? 'info';
const OUT = arg('--out');
const CPU_PROF = arg('--cpu-prof');
const THROUGH_NGINX = process.argv.includes('--through-nginx');

const QUERIES: { name: string; body: string }[] = [
  {
    name: 'tour query: 2-step pattern, comprehension, ORDER BY … LIMIT 2',
    body: JSON.stringify({
      id: 18446744073709551615n.toString(), graph: 'demo',
      method: { Cypher: {
        query: 'MATCH (p:Person)-[:WORKS_AT]->(o:Organization {name: $org}) RETURN p.name AS name, [(p)-[:CONTRIBUTES_TO]->(x:Project) | x.name] AS projects ORDER BY name LIMIT 2',
        params: { org: 'Acme Analytics' },
      } },
    }),
  },
  {
    name: 'point read: one node by id',
    body: JSON.stringify({ id: 7, graph: 'demo', method: { Cypher: { query: 'MATCH (p:Person {id: $id}) RETURN p.name AS name, p', params: { id: 'person-001' } } } }),
  },
];

interface Ready { dispatch: string; floors: string[]; answers: string[] }

/** The child: toolgraph on one port, one floor server per query on others. */
async function serve(): Promise<void> {
  const { resolveConfig } = await import('../../src/config/index.ts');
  const { createLogger } = await import('../../src/log/index.ts');
  const { startToolgraph } = await import('../../src/serve/index.ts');
  const config = resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-bench-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', LOG_LEVEL } });
  const logger = createLogger({ level: LOG_LEVEL, destination: pino.destination({ dest: '/dev/null', sync: false }) });
  const running = await startToolgraph({ config, logger, only: ['graph'] });
  const dispatch = `${running.origin}/dispatch`;
  const answers: string[] = [];
  const floors: string[] = [];
  for (const q of QUERIES) {
    const res = await fetch(dispatch, { method: 'POST', headers: { 'content-type': 'application/json' }, body: q.body });
    const answer = await res.text();
    if (res.status !== 200 || !answer.includes('"result"')) throw new Error(`${q.name}: ${res.status} ${answer}`);
    answers.push(answer);
    const bytes = Buffer.from(answer);
    // The floor: read the whole body, answer the same bytes with the same headers.
    const floor = createServer((req, res) => {
      req.on('data', () => undefined);
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
        res.end(bytes);
      });
    });
    await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));
    const address = floor.address() as { port: number };
    floors.push(`http://127.0.0.1:${address.port}/dispatch`);
  }
  process.once('SIGINT', () => process.exit(0));
  // The parent asks for this process's CPU time around each run.
  process.on('message', () => {
    const usage = process.cpuUsage();
    process.send!({ cpuMicros: usage.user + usage.system });
  });
  process.send!({ dispatch, floors, answers } satisfies Ready);
}

interface Run {
  /** Requests per second. */
  rate: number;
  /** Server CPU microseconds per request. */
  cpu: number;
}

async function load(child: ChildProcess, url: string, body: string): Promise<Run> {
  const cpuBefore = await serverCpu(child);
  const result = await autocannon({
    url, method: 'POST', body, connections: CONNECTIONS, duration: SECONDS,
    headers: { 'content-type': 'application/json' },
  });
  const cpuAfter = await serverCpu(child);
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { rate: result.requests.average, cpu: (cpuAfter - cpuBefore) / Math.max(1, result.requests.total) };
}

function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve((m as { cpuMicros: number }).cpuMicros));
    child.send('cpu');
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

async function main(): Promise<void> {
  const execArgv = CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : [];
  const child = fork(import.meta.filename, ['--serve', '--log-level', LOG_LEVEL], { stdio: 'inherit', execArgv });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`the server process exited with ${code}`)));
  });
  try {
    if (THROUGH_NGINX) {
      await throughNginx(child, ready);
      return;
    }
    const results = [];
    for (const [i, q] of QUERIES.entries()) {
      const floorUrl = ready.floors[i]!;
      await load(child, ready.dispatch, q.body); // warm-up, both sides
      await load(child, floorUrl, q.body);
      const tg: Run[] = [];
      const floor: Run[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        tg.push(await load(child, ready.dispatch, q.body));
        floor.push(await load(child, floorUrl, q.body));
      }
      const ratios = tg.map((t, r) => t.rate / floor[r]!.rate);
      const cpuRatios = tg.map((t, r) => floor[r]!.cpu / t.cpu);
      results.push({
        case: q.name, responseBytes: Buffer.byteLength(ready.answers[i]!),
        toolgraphMin: round(Math.min(...tg.map((t) => t.rate)), 0), toolgraphMedian: round(median(tg.map((t) => t.rate)), 0),
        floorMin: round(Math.min(...floor.map((t) => t.rate)), 0), floorMedian: round(median(floor.map((t) => t.rate)), 0),
        ratioMin: round(Math.min(...ratios)), ratioMedian: round(median(ratios)),
        toolgraphCpuMicrosMedian: round(median(tg.map((t) => t.cpu)), 1), floorCpuMicrosMedian: round(median(floor.map((t) => t.cpu)), 1),
        cpuRatioMin: round(Math.min(...cpuRatios)), cpuRatioMedian: round(median(cpuRatios)),
        goal: 0.5,
      });
    }
    console.log(`autocannon -c ${CONNECTIONS}, ${SECONDS} s per side, ${ROUNDS} rounds, log level ${LOG_LEVEL}`);
    console.table(results.map((r) => ({
      case: r.case, bytes: r.responseBytes,
      'toolgraph req/s min/med': `${r.toolgraphMin} / ${r.toolgraphMedian}`,
      'node:http floor req/s min/med': `${r.floorMin} / ${r.floorMedian}`,
      'ratio min/med': `${r.ratioMin} / ${r.ratioMedian}`, goal: `≥ ${r.goal}`,
    })));
    console.log('server CPU per request (µs), and the floor\'s share of it (floor / toolgraph):');
    console.table(results.map((r) => ({
      case: r.case, 'toolgraph µs (med)': r.toolgraphCpuMicrosMedian, 'floor µs (med)': r.floorCpuMicrosMedian,
      'ratio min/med': `${r.cpuRatioMin} / ${r.cpuRatioMedian}`,
    })));
    if (OUT) {
      await writeFile(OUT, `${JSON.stringify({ bench: 'dispatch', node: process.version, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, logLevel: LOG_LEVEL, results }, null, 2)}\n`);
      console.log(`wrote ${OUT}`);
    }
  } finally {
    // SIGINT lets --cpu-prof write its profile on the way out.
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
}

/** `--through-nginx`: the toolgraph side through nginx against it directly, alternating rounds. */
async function throughNginx(child: ChildProcess, ready: Ready): Promise<void> {
  const { startNginx } = await import('../../test/replicas/support/nginx.ts');
  const { freePort } = await import('../../test/replicas/support/replicas.ts');
  const port = await freePort();
  const upstream = new URL(ready.dispatch);
  const nginx = await startNginx(() => `
  access_log off;
  upstream toolgraph {
    server ${upstream.host};
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://toolgraph;
      proxy_http_version 1.1;
      # The child binds without TOOLGRAPH_PUBLIC_URL, so it answers only its own Host (DNS rebinding check).
      proxy_set_header Host ${upstream.host};
      proxy_set_header Connection "";
    }
  }`, [port]);
  try {
    const proxied = `http://127.0.0.1:${port}/dispatch`;
    const results = [];
    for (const q of QUERIES) {
      await load(child, ready.dispatch, q.body); // warm-up, both sides
      await load(child, proxied, q.body);
      const direct: Run[] = [];
      const through: Run[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        direct.push(await load(child, ready.dispatch, q.body));
        through.push(await load(child, proxied, q.body));
      }
      const ratios = through.map((t, r) => t.rate / direct[r]!.rate);
      results.push({
        case: q.name,
        directMedian: round(median(direct.map((t) => t.rate)), 0), throughNginxMedian: round(median(through.map((t) => t.rate)), 0),
        ratioMin: round(Math.min(...ratios)), ratioMedian: round(median(ratios)),
      });
    }
    console.log(`POST /dispatch through nginx (upstream keepalive) against direct: autocannon -c ${CONNECTIONS}, ${SECONDS} s per side, ${ROUNDS} alternating rounds`);
    console.table(results.map((r) => ({
      case: r.case, 'direct req/s (med)': r.directMedian, 'through nginx req/s (med)': r.throughNginxMedian, 'ratio min/med': `${r.ratioMin} / ${r.ratioMedian}`,
    })));
    if (OUT) {
      await writeFile(OUT, `${JSON.stringify({ bench: 'dispatch', mode: 'through-nginx', node: process.version, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, results }, null, 2)}\n`);
      console.log(`wrote ${OUT}`);
    }
  } finally {
    await nginx.stop();
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
