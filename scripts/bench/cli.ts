/**
 * CLI benchmark (issue 18): the wall time of `toolgraph` commands run the way a user runs them, each
 * against `node -e 0` (the same pinned node starting and doing nothing) in the same run, the two
 * taking turns for ROUNDS rounds so load on the machine falls on both alike; min and median of each
 * side and of the per-round ratio. Commands run on the built dist/ of --root (default: this
 * checkout; build it first), with a fresh home whose store holds the seeded `demo` graph.
 * Usage: node scripts/bench/cli.ts [--rounds N] [--root DIR] [--skip case,case] [--out FILE]
 *   cases: version, help, graph-list, cypher, start (`npm start` until it listens; its prestart
 *   builds first where dist/ is stale, so a checkout with a stale dist/ measures the build too).
 * Targets: version and help ≤ 2× node -e 0; graph list ≤ 0.5 s; cypher ≤ 0.7 s; npm start ≤ 2 s.
 * Each round also measures both sides' CPU time (user + system, through bash's `time`, in runs of
 * their own so the wall times stay unwrapped): on a shared machine wall times swing with the load,
 * CPU times much less.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { arg } from './bench-args.ts';
import { median, printTable } from './bench-stats.ts';

const ROUNDS = Math.max(5, Number(arg('--rounds') ?? 7));
const ROOT = resolve(arg('--root') ?? join(import.meta.dirname, '..', '..'));
const SKIP = new Set((arg('--skip') ?? '').split(',').filter(Boolean));
const OUT = arg('--out');
const NODE = process.execPath;
const CLI = join(ROOT, 'dist/src/cli/toolgraph.js');
const LISTENING = /toolgraph listening on http:\/\/\S+/;
const BASH = existsSync('/bin/bash') ? '/bin/bash' : undefined;

if (!existsSync(CLI)) {
  process.stderr.write(`${CLI} does not exist: build ${ROOT} first (npm run build)\n`);
  process.exit(2);
}

const home = mkdtempSync(join(tmpdir(), 'tg-bench-cli-'));
// A home of its own: no config.json of the machine's user, the store in a fresh data dir.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'config'),
  XDG_DATA_HOME: join(home, 'data'),
  XDG_STATE_HOME: join(home, 'state'),
  XDG_CACHE_HOME: join(home, 'cache'),
  LOG_LEVEL: 'warn',
};
for (const name of Object.keys(env)) {
  if (/^(TOOLGRAPH_|SERVICE_GRAPHQL_|AUTH_TYPE$|PORT$|HOST$|DATABASE_URL$)/.test(name)) delete env[name];
}

interface Run {
  ms: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; its wall time from spawn to exit. Any failure stops the bench. */
function timed(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - start;
      if (code === 0) resolveRun({ ms, stdout, stderr });
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
    });
  });
}

/** The CPU time (user + system, ms) of one run of a command, by bash's `time`; undefined without bash. */
async function cpuOf(command: string, args: readonly string[]): Promise<number | undefined> {
  if (!BASH) return undefined;
  const run = await timed(BASH, ['-c', 'TIMEFORMAT="%3U %3S"; time "$@" >/dev/null 2>&1', 'bash', command, ...args]);
  const match = /(\d+\.\d+) (\d+\.\d+)\s*$/.exec(run.stderr);
  if (!match) throw new Error(`bash time printed no CPU times: ${run.stderr}`);
  return (Number(match[1]) + Number(match[2])) * 1000;
}

/** The file store's lock: held from the moment a server opens the store until its shutdown released it. */
const STORE_LOCK = join(home, 'data', 'toolgraph', 'graphs', 'LOCK');

/** Whether a live process holds the store (a lock left by a killed one is taken over by the next). */
function storeHeld(): boolean {
  let pid: number;
  try {
    pid = (JSON.parse(readFileSync(STORE_LOCK, 'utf8')) as { pid: number }).pid;
  } catch {
    return existsSync(STORE_LOCK);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a server, resolves with the time until it printed that it listens, then stops it (the
 * whole process group: npm, its shell and the server) and waits for it to go and to let go of the
 * store, so the next run finds the store free.
 */
async function timedListen(command: string, args: readonly string[]): Promise<Run> {
  const run = await startAndStop(command, args);
  for (const deadline = Date.now() + 30_000; storeHeld();) {
    if (Date.now() > deadline) throw new Error(`${STORE_LOCK} is still held 30 s after the server was stopped`);
    await setTimeout(50);
  }
  return run;
}

function startAndStop(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let listenedAt: number | undefined;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (listenedAt === undefined && LISTENING.test(stdout)) {
        listenedAt = performance.now() - start;
        process.kill(-child.pid!, 'SIGTERM');
      }
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (listenedAt !== undefined) resolveRun({ ms: listenedAt, stdout, stderr });
      else reject(new Error(`${command} ${args.join(' ')} ended (${code ?? signal}) before listening: ${stderr.trim().slice(-2000)}`));
    });
  });
}

interface Case {
  name: string;
  /** What the command is, as a user types it. */
  shown: string;
  run: () => Promise<Run>;
  /** The command and arguments whose CPU time is measured; none for a server (it is stopped by a signal). */
  argv?: readonly string[];
  /** Checks the first run's output, so the bench never times a command that does something else. */
  check: (stdout: string) => boolean;
  target: { ratio: number } | { ms: number };
}

/** A command run on the pinned node: timed as is, and its CPU time measured in runs of its own. */
const onNode = (argv: readonly string[]) => ({ run: () => timed(NODE, argv), argv });

const ALL_CASES: Case[] = [
  { name: 'version', shown: 'toolgraph --version', ...onNode([CLI, '--version']), check: (out) => out === '0.1.0\n', target: { ratio: 2 } },
  { name: 'help', shown: 'toolgraph --help', ...onNode([CLI, '--help']), check: (out) => out.includes('Commands:') && out.includes('cypher [options] <graph> <query>'), target: { ratio: 2 } },
  { name: 'graph-list', shown: 'toolgraph graph list', ...onNode([CLI, 'graph', 'list']), check: (out) => /^demo\s+\d+\s+94\s+293$/m.test(out), target: { ms: 500 } },
  { name: 'cypher', shown: "toolgraph cypher demo 'RETURN 1'", ...onNode([CLI, 'cypher', 'demo', 'RETURN 1']), check: (out) => out.startsWith('{"id":1,"result":{"columns":["1"],"rows":[[1]]'), target: { ms: 700 } },
  { name: 'start', shown: 'npm start (until it listens)', run: () => timedListen('npm', ['start', '--silent', '--', '--port', '0']), check: (out) => LISTENING.test(out), target: { ms: 2000 } },
];
const CASES = ALL_CASES.filter((c) => !SKIP.has(c.name));

const peer = () => timed(NODE, ['-e', '0']);

// The store `graph list` and `cypher` read: a first `serve` seeds the reference graph as demo.
process.stdout.write(`root ${ROOT}; seeding the demo store in ${home}\n`);
await timedListen(NODE, [CLI, 'serve', '--port', '0']);

interface Row {
  case: string;
  command: string;
  cli: number[];
  peer: number[];
  ratios: number[];
  /** CPU times (ms) of each side, when measured. */
  cliCpu: number[];
  peerCpu: number[];
  target: Case['target'];
}

const rows: Row[] = [];
for (const c of CASES) {
  // One untimed run of each side first (file cache, a first build where prestart needs one), and the output check.
  const first = await c.run();
  if (!c.check(first.stdout)) throw new Error(`${c.shown} printed something unexpected:\n${first.stdout.slice(0, 2000)}`);
  await peer();
  const row: Row = { case: c.name, command: c.shown, cli: [], peer: [], ratios: [], cliCpu: [], peerCpu: [], target: c.target };
  for (let round = 0; round < ROUNDS; round++) {
    const p = await peer();
    const x = await c.run();
    row.peer.push(p.ms);
    row.cli.push(x.ms);
    row.ratios.push(x.ms / p.ms);
    if (c.argv) {
      const [pc, xc] = [await cpuOf(NODE, ['-e', '0']), await cpuOf(NODE, c.argv)];
      if (pc !== undefined && xc !== undefined) {
        row.peerCpu.push(pc);
        row.cliCpu.push(xc);
      }
    }
  }
  rows.push(row);
}
rmSync(home, { recursive: true, force: true });

const ms = (v: number) => v.toFixed(0);
const meets = (r: Row) => ('ratio' in r.target ? median(r.ratios) <= r.target.ratio : median(r.cli) <= r.target.ms);
const cpu = (r: Row) => (r.cliCpu.length === 0 ? 'n/a' : `${ms(median(r.cliCpu))} / ${ms(median(r.peerCpu))} (${(median(r.cliCpu) / median(r.peerCpu)).toFixed(2)}×)`);
printTable([
  ['command', 'wall ms min / median', 'node -e 0 wall ms min / median', 'wall ratio min / median', 'CPU ms median: command / node -e 0', 'target (median)', 'meets'],
  ...rows.map((r) => [
    r.command,
    `${ms(Math.min(...r.cli))} / ${ms(median(r.cli))}`,
    `${ms(Math.min(...r.peer))} / ${ms(median(r.peer))}`,
    `${Math.min(...r.ratios).toFixed(2)} / ${median(r.ratios).toFixed(2)}`,
    cpu(r),
    'ratio' in r.target ? `≤ ${r.target.ratio}× node -e 0` : `≤ ${r.target.ms} ms`,
    meets(r) ? 'yes' : 'NO',
  ]),
]);
process.stdout.write(`(${ROUNDS} rounds, sides alternating; node ${process.version}; ${NODE}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})\n`);

if (OUT) {
  const results = rows.map((r) => ({
    case: r.case, command: r.command,
    msMin: Math.min(...r.cli), msMedian: median(r.cli),
    peerMsMin: Math.min(...r.peer), peerMsMedian: median(r.peer),
    ratioMin: Math.min(...r.ratios), ratioMedian: median(r.ratios),
    ...(r.cliCpu.length > 0 ? { cpuMsMedian: median(r.cliCpu), peerCpuMsMedian: median(r.peerCpu) } : {}),
    target: r.target, meets: meets(r),
  }));
  await writeFile(OUT, `${JSON.stringify({ bench: 'cli', node: process.version, root: ROOT, rounds: ROUNDS, loadAverage: loadavg(), results }, null, 2)}\n`);
  process.stdout.write(`wrote ${OUT}\n`);
}
