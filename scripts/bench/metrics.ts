/**
 * Metrics benchmark: the cost of the Prometheus metrics on the hot path. `POST /dispatch` (the
 * dispatch suite's point read) and `POST /graphql/demo` (a small query) per second, with metrics on,
 * against the same requests to a baseline server, in alternating rounds. The baseline is a checkout
 * without the hooks when `--baseline-root DIR` names one (e.g. `git archive main | tar -x -C DIR` with
 * node_modules linked), else this checkout with TOOLGRAPH_METRICS=false (no wrapper, no registry).
 * Each server runs in a child process of its own (`startToolgraph --only graph`: dispatch and GraphQL, memory
 * persistence, log level info to /dev/null); autocannon drives one side at a time from this process.
 * Prints min and median requests per second of each side and of the ratio (metrics / baseline).
 * Usage: node scripts/bench/metrics.ts [--rounds N] [--seconds N] [--connections N] [--baseline-root DIR] [--out FILE]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { arg } from './bench-args.ts';
import { median } from './bench-stats.ts';

const ROUNDS = Number(arg('--rounds') ?? 5);
const SECONDS = Number(arg('--seconds') ?? 3);
const CONNECTIONS = Number(arg('--connections') ?? 20);
const BASELINE_ROOT = arg('--baseline-root');
const OUT = arg('--out');
const HERE = resolve(import.meta.dirname, '../..');

const CASES = [
  { name: 'dispatch: Cypher point read', path: '/dispatch', body: JSON.stringify({ id: 7, graph: 'demo', method: { Cypher: { query: 'MATCH (p:Person {id: $id}) RETURN p.name AS name, p', params: { id: 'person-001' } } } }) },
  { name: 'graphql: { Organization(first: 2) { name } }', path: '/graphql/demo', body: JSON.stringify({ query: '{ Organization(first: 2) { name } }' }) },
] as const;

/** The child: toolgraph from `root`, metrics as `metrics` says. */
async function serve(root: string, metrics: string): Promise<void> {
  const { resolveConfig } = await import(join(root, 'src/config/index.ts')) as typeof import('../../src/config/index.ts');
  const { createLogger } = await import(join(root, 'src/log/index.ts')) as typeof import('../../src/log/index.ts');
  const { startToolgraph } = await import(join(root, 'src/serve/index.ts')) as typeof import('../../src/serve/index.ts');
  const { pino } = await import('pino');
  const config = resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-bench-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', LOG_LEVEL: 'info', TOOLGRAPH_METRICS: metrics } });
  const logger = createLogger({ level: 'info', destination: pino.destination({ dest: '/dev/null', sync: false }) });
  const running = await startToolgraph({ config, logger, only: ['graph'] });
  for (const c of CASES) {
    const res = await fetch(`${running.origin}${c.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: c.body });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"error')) throw new Error(`${c.name}: ${res.status} ${text}`);
  }
  process.once('SIGINT', () => process.exit(0));
  process.send!({ origin: running.origin });
}

async function start(root: string, metrics: 'true' | 'false'): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(import.meta.filename, ['--serve', root, metrics], { stdio: 'inherit' });
  const origin = await new Promise<string>((resolveOrigin, reject) => {
    child.once('message', (m) => resolveOrigin((m as { origin: string }).origin));
    child.once('exit', (code) => reject(new Error(`the server process (${root}, metrics ${metrics}) exited with ${code}`)));
  });
  return { child, origin };
}

async function load(url: string, body: string): Promise<number> {
  const result = await autocannon({ url, method: 'POST', body, connections: CONNECTIONS, duration: SECONDS, headers: { 'content-type': 'application/json' } });
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

const round = (n: number, digits = 3): number => Math.round(n * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const on = await start(HERE, 'true');
  const off = await start(BASELINE_ROOT ?? HERE, 'false');
  const baseline = BASELINE_ROOT === undefined ? 'this checkout, TOOLGRAPH_METRICS=false' : `${BASELINE_ROOT} (no hooks)`;
  try {
    const results = [];
    for (const c of CASES) {
      await load(`${on.origin}${c.path}`, c.body); // warm-up, both sides
      await load(`${off.origin}${c.path}`, c.body);
      const withMetrics: number[] = [];
      const without: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        withMetrics.push(await load(`${on.origin}${c.path}`, c.body));
        without.push(await load(`${off.origin}${c.path}`, c.body));
      }
      const ratios = withMetrics.map((w, i) => w / without[i]!);
      results.push({
        case: c.name,
        metricsMin: Math.round(Math.min(...withMetrics)), metricsMedian: Math.round(median(withMetrics)),
        baselineMin: Math.round(Math.min(...without)), baselineMedian: Math.round(median(without)),
        ratioMin: round(Math.min(...ratios)), ratioMedian: round(median(ratios)),
      });
    }
    console.log(`autocannon -c ${CONNECTIONS}, ${SECONDS} s per side, ${ROUNDS} alternating rounds; baseline: ${baseline}`);
    console.table(results.map((r) => ({
      case: r.case,
      'metrics on req/s min/med': `${r.metricsMin} / ${r.metricsMedian}`,
      'baseline req/s min/med': `${r.baselineMin} / ${r.baselineMedian}`,
      'ratio on/baseline min/med': `${r.ratioMin} / ${r.ratioMedian}`,
    })));
    if (OUT) await writeFile(OUT, `${JSON.stringify({ bench: 'metrics', node: process.version, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, baseline, results }, null, 2)}\n`);
  } finally {
    for (const side of [on, off]) {
      const exited = new Promise((done) => side.child.once('exit', done));
      side.child.kill('SIGINT');
      await exited;
    }
  }
}

const serveIndex = process.argv.indexOf('--serve');
if (serveIndex >= 0) await serve(process.argv[serveIndex + 1]!, process.argv[serveIndex + 2]!);
else await main();
