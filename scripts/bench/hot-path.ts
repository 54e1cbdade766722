/**
 * Hot-path benchmark against an earlier build (`npm run bench -- hot-path --baseline DIR`): what the
 * budgets, limits and guards added since cost ordinary reads. Two real `toolgraph serve --only graph`
 * processes run side by side, one from this checkout and one from DIR (another checkout with a built
 * `dist/`, e.g. `git worktree add ../base <commit> && (cd ../base && npm run build)`), each on its own
 * fresh file store holding the seeded `demo` graph and the 22,000-node people graph of the GraphQL
 * benchmark (imported with `toolgraph graph import`). autocannon loads one side at a time, taking turns
 * (A B A B …, the order flipped every round) for `--rounds` rounds per request shape: the GraphQL
 * shapes byId, filtered20 and deep100 on /graphql/people, and the README tour's Cypher query and a
 * point read on /dispatch. The ratio is this checkout / baseline in requests per second.
 * Every turn starts its server afresh (on the store prepared once) and loads it unmeasured
 * for `--warmup` seconds (8 by default): one process's JIT and heap layout moved throughput by up to
 * 15% between two servers of the same build, so a comparison across one pair of processes measured
 * their luck; and with 2 s of warm-up this checkout (more code for V8 to optimize) measured 0.79x of
 * 2591d14 on byId where 8 s measured 0.98x, so a short warm-up measured tiering, not the steady state. With two or
 * more cores and `taskset` (Linux), the servers run on core 1 and autocannon on core 0 (`--no-pin`
 * to share); the servers' CPU time per request (from /proc) is reported beside the throughput, with
 * its ratio per round (baseline µs / this checkout's µs, so above 1 is cheaper here, as for req/s),
 * and each median ratio gets a 95% bootstrap interval: on a shared 2-core machine one pair of fresh
 * processes of the same build can differ by 10%, so the interval says what the rounds can resolve.
 * `--current DIR` measures another built checkout in this one's place (to find which commit between
 * two builds a cost came in with).
 * Usage: node scripts/bench/hot-path.ts --baseline DIR [--current DIR] [--rounds N] [--seconds S] [--warmup S] [--connections C] [--only byId,tour,…] [--env K=V,…] [--no-pin] [--out FILE]
 * (`--only` keeps the requests whose name contains one of the given words; `--env` sets settings of
 * this checkout's server only, e.g. TOOLGRAPH_METRICS=false to leave out what a baseline without
 * metrics never did)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { arg, settingsArg } from './bench-args.ts';
import { fmt, median, medianInterval, printTable } from './bench-stats.ts';
import { REQUESTS, Side, sameAnswer, type Request } from './hot-path-sides.ts';
import { generate, toJsonLines } from './people-data.ts';

const BASELINE = arg('--baseline');
const ROUNDS = Math.max(5, Number(arg('--rounds') ?? 5));
const SECONDS = Number(arg('--seconds') ?? 3);
const CONNECTIONS = Number(arg('--connections') ?? 20);
/** Unmeasured load before each measured turn: V8 needs several seconds to optimize a server's hot code. */
const WARMUP = Number(arg('--warmup') ?? 8);
const OUT = arg('--out');
const ONLY = arg('--only')?.split(',');
/** Settings for this checkout's server only (`--env K=V,K=V`). */
const CURRENT_ENV = settingsArg('--env', 'hot-path');
const HERE = resolve(arg('--current') ?? resolve(import.meta.dirname, '..', '..'));
const PIN = !process.argv.includes('--no-pin') && availableParallelism() >= 2 && spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' }).status === 0;

if (BASELINE === undefined) {
  process.stderr.write('hot-path: --baseline DIR is required (a checkout with a built dist/ to compare against)\n');
  process.exit(64);
}

/** User plus system CPU milliseconds the process has used (Linux /proc), or undefined elsewhere. */
function cpuMs(pid: number | undefined): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(stat)) return undefined;
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Measured {
  readonly perSecond: number;
  /** The server's CPU microseconds per request, when /proc can tell. */
  readonly cpuMicros: number | undefined;
}

async function load(side: Side, request: Request, seconds = SECONDS): Promise<Measured> {
  const before = cpuMs(side.child?.pid);
  const result = await autocannon({
    url: `${side.origin}${request.path}`, method: 'POST', connections: CONNECTIONS, duration: seconds, body: request.body,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
  });
  const after = cpuMs(side.child?.pid);
  const failed = result.errors + result.non2xx;
  if (failed > 0) throw new Error(`${side.name} ${request.name}: ${failed} failed requests`);
  const cpuMicros = before === undefined || after === undefined ? undefined : ((after - before) * 1000) / result.requests.total;
  return { perSecond: result.requests.average, cpuMicros };
}

/**
 * One measured turn of one side: its server started afresh on its store, warmed unmeasured, measured
 * at once, stopped. Measuring right after the warm-up matters: a server left idle while the other
 * side warmed measured up to 20% slower in its turn.
 */
async function turn(side: Side, request: Request): Promise<Measured> {
  await side.stop();
  await side.start();
  try {
    // Two warm-up loads, each on connections of its own: the first requests on new connections after
    // a warm-up deoptimize a dozen of node:http's functions ("wrong map"; on either build), and their
    // re-optimization belongs to the warm-up, not to the measured load, which opens its own too.
    await load(side, request, WARMUP / 2);
    await load(side, request, WARMUP / 2);
    return await load(side, request);
  } finally {
    await side.stop();
  }
}

/** `min / median` of the values, each with `digits` decimals and `unit` after it. */
const minAndMedian = (values: readonly number[], digits = 0, unit = ''): string => `${fmt(Math.min(...values), digits)}${unit} / ${fmt(median(values), digits)}${unit}`;
const interval = (ratios: readonly number[]): string => {
  const { low, high } = medianInterval(ratios);
  return `${fmt(low, 2)}–${fmt(high, 2)}×`;
};

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tg-hot-path-data-'));
  const jsonl = join(work, 'people.jsonl');
  writeFileSync(jsonl, toJsonLines(generate()));
  const pinned = PIN ? { wrapper: ['taskset', '-c', '1'] } : {};
  const current = new Side('this checkout', HERE, CURRENT_ENV, pinned);
  const baseline = new Side('baseline', resolve(BASELINE!), {}, pinned);
  try {
    await current.prepare(jsonl);
    await baseline.prepare(jsonl);
    const rows: string[][] = [['request', 'this checkout req/s (min / median)', 'baseline req/s (min / median)', 'ratio (min / median)', 'server CPU µs/req median: this / baseline', 'CPU ratio baseline/this (min / median)', 'median ratios\' 95% bootstrap intervals: req/s; CPU']];
    const raw: Record<string, { current: Measured[]; baseline: Measured[] }> = {};
    for (const request of REQUESTS.filter((r) => ONLY === undefined || ONLY.some((word) => r.name.includes(word)))) {
      for (const side of [current, baseline]) if (!side.running) await side.start();
      await sameAnswer(current, baseline, request);
      const ours: Measured[] = [];
      const theirs: Measured[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        // Alternate which side goes first, so neither always runs on the warmer machine.
        if (i % 2 === 0) {
          ours.push(await turn(current, request));
          theirs.push(await turn(baseline, request));
        } else {
          theirs.push(await turn(baseline, request));
          ours.push(await turn(current, request));
        }
      }
      const ratios = ours.map((r, i) => r.perSecond / theirs[i]!.perSecond);
      const cpu = (side: Measured[]) => {
        const known = side.flatMap((m) => (m.cpuMicros === undefined ? [] : [m.cpuMicros]));
        return known.length === 0 ? 'n/a' : fmt(median(known), 1);
      };
      const cpuRatios = ours.flatMap((m, i) => (m.cpuMicros === undefined || theirs[i]!.cpuMicros === undefined ? [] : [theirs[i]!.cpuMicros! / m.cpuMicros]));
      raw[request.name] = { current: ours, baseline: theirs };
      const perSecond = (side: Measured[]) => side.map((m) => m.perSecond);
      rows.push([
        request.name,
        minAndMedian(perSecond(ours)),
        minAndMedian(perSecond(theirs)),
        minAndMedian(ratios, 2, '×'),
        `${cpu(ours)} / ${cpu(theirs)}`,
        cpuRatios.length === 0 ? 'n/a' : minAndMedian(cpuRatios, 2, '×'),
        `${interval(ratios)}; ${cpuRatios.length === 0 ? 'n/a' : interval(cpuRatios)}`,
      ]);
      process.stderr.write(`${request.name}: median ratio ${fmt(median(ratios), 2)}×\n`);
    }
    const settings = Object.keys(CURRENT_ENV).length === 0 ? '' : ` (this checkout with ${Object.entries(CURRENT_ENV).map(([k, v]) => `${k}=${v}`).join(', ')})`;
    process.stdout.write(`hot path: ${HERE}${settings} against ${resolve(BASELINE!)}, ${ROUNDS} alternating rounds of ${SECONDS} s on fresh server processes warmed ${WARMUP} s, ${CONNECTIONS} connections${PIN ? ', servers on core 1, load on core 0' : ''}\n`);
    printTable(rows);
    if (OUT) await writeFile(OUT, JSON.stringify({ rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, raw }, null, 2));
  } finally {
    await current.stop();
    await baseline.stop();
    for (const dir of [current.dataDir, baseline.dataDir, work]) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
