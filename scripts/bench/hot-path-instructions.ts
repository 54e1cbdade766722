/**
 * Instructions per request on the hot path against an earlier build
 * (`npm run bench -- hot-path-instructions --baseline DIR`): the same two servers and requests as
 * hot-path.ts, but counted by valgrind's callgrind instead of timed. On this project's shared 2-core
 * machines two processes of the same build differ by up to 10% in requests per second, so a timed
 * comparison cannot resolve a few percent; an instruction count does not depend on what else the
 * machine is doing (two runs of one build agree within about 1%).
 *
 * Each turn starts one side's server under `valgrind --tool=callgrind --instr-atstart=no`, with
 * `--single-threaded` (no background compiler or GC threads whose share would depend on timing),
 * warms it uncounted (20,000 byId requests, 12,000 of the others, 4,000 deep100; four at a time on
 * kept-alive connections), switches counting on (`callgrind_control -i on`), sends 5,000 (3,000;
 * 800) more on the same connections (see `send`), switches it off and stops the server. The count
 * per request leaves out what is not the request's work: V8's optimizing compilers (a function
 * tiering up inside the window is warm-up, on either side) and the event-loop-delay histogram's
 * reset and percentile (a timer every 250 ms of wall time, which callgrind's slowdown makes about
 * 50 times heavier per request than it is at full speed). Rounds alternate which side goes first.
 * `--scale F` multiplies every count.
 *
 * Usage: node scripts/bench/hot-path-instructions.ts --baseline DIR [--current DIR] [--rounds N] [--scale F] [--only byId,tour,…] [--env K=V,…]
 * Needs valgrind (with callgrind_control and callgrind_annotate) on PATH.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { arg, settingsArg } from './bench-args.ts';
import { fmt, median, printTable } from './bench-stats.ts';
import { REQUESTS, Side, sameAnswer, type Request } from './hot-path-sides.ts';
import { generate, toJsonLines } from './people-data.ts';

const run = promisify(execFile);

const BASELINE = arg('--baseline');
const ROUNDS = Math.max(1, Number(arg('--rounds') ?? 3));
const SCALE = Number(arg('--scale') ?? 1);
const ONLY = arg('--only')?.split(',');
const CURRENT_ENV = settingsArg('--env', 'hot-path-instructions');
const HERE = resolve(arg('--current') ?? resolve(import.meta.dirname, '..', '..'));

if (BASELINE === undefined) {
  process.stderr.write('hot-path-instructions: --baseline DIR is required (a checkout with a built dist/ to compare against)\n');
  process.exit(64);
}
for (const tool of ['valgrind', 'callgrind_control', 'callgrind_annotate']) {
  if (spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0) {
    process.stderr.write(`hot-path-instructions: ${tool} is not on PATH (Debian: apt-get install -y valgrind)\n`);
    process.exit(69);
  }
}

/** Uncounted and counted requests per turn, by request shape: deep100 does about twenty times a byId's work. */
function counts(request: Request): { warmup: number; counted: number } {
  const base = request.name.includes('deep100') ? { warmup: 4000, counted: 800 } : request.name.includes('byId') ? { warmup: 20_000, counted: 5000 } : { warmup: 12_000, counted: 3000 };
  return { warmup: Math.round(base.warmup * SCALE), counted: Math.max(1, Math.round(base.counted * SCALE)) };
}

/**
 * Sends `total` requests, four at a time on the agent's kept-alive connections; every answer must be
 * 200. One agent serves a whole turn: the first requests on new connections after warm-up deoptimize
 * a dozen of node:http's functions ("wrong map", on either build), so counting on fresh connections
 * counted their re-optimization (a third of the instructions), not the steady state.
 */
async function send(agent: http.Agent, origin: string, request: Request, total: number): Promise<void> {
  const url = new URL(origin);
  const one = (): Promise<void> => new Promise((done, fail) => {
    const req = http.request({
      host: url.hostname, port: url.port, path: request.path, method: 'POST', agent,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(request.body) },
    }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? done() : fail(new Error(`${request.name}: HTTP ${res.statusCode}`))));
    });
    req.on('error', fail);
    req.end(request.body);
  });
  let sent = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (sent++ < total) await one();
  }));
}

/** Functions whose instructions are not the request's work (see the header). */
const NOT_THE_REQUEST = /compiler::|maglev::|turboshaft|Turboshaft|CodeGenerator|RegisterAllocat|hdr_|memset/;

/** Instructions in a callgrind profile, those of NOT_THE_REQUEST left out. */
async function requestInstructions(file: string): Promise<number> {
  const { stdout } = await run('callgrind_annotate', ['--threshold=100', file], { maxBuffer: 256 * 1024 * 1024 });
  let total = 0;
  for (const line of stdout.split('\n')) {
    const found = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (found === null || found[2]!.includes('PROGRAM TOTALS') || NOT_THE_REQUEST.test(found[2]!)) continue;
    total += Number(found[1]!.replaceAll(',', ''));
  }
  return total;
}

/** One counted turn: the side's server under callgrind, warmed, counted over `counted` requests, stopped. */
async function turn(side: Side, request: Request, dir: string): Promise<number> {
  const { warmup, counted } = counts(request);
  const out = join(dir, `${side.name.replaceAll(' ', '-')}-${Date.now()}.callgrind`);
  await side.start({ wrapper: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`], nodeFlags: ['--single-threaded'] });
  const pid = String(side.child!.pid);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    await send(agent, side.origin, request, warmup);
    await run('callgrind_control', ['-i', 'on', pid]);
    await send(agent, side.origin, request, counted);
    await run('callgrind_control', ['-i', 'off', pid]);
  } finally {
    agent.destroy();
    await side.stop();
  }
  const files = readdirSync(dir).filter((name) => join(dir, name).startsWith(out));
  if (files.length !== 1) throw new Error(`${side.name}: expected one callgrind profile, found ${files.length}`);
  return (await requestInstructions(join(dir, files[0]!))) / counted;
}


async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tg-hot-path-instructions-'));
  const jsonl = join(work, 'people.jsonl');
  writeFileSync(jsonl, toJsonLines(generate()));
  const current = new Side('this checkout', HERE, CURRENT_ENV);
  const baseline = new Side('baseline', resolve(BASELINE!));
  try {
    await current.prepare(jsonl);
    await baseline.prepare(jsonl);
    const requests = REQUESTS.filter((r) => ONLY === undefined || ONLY.some((word) => r.name.includes(word)));
    for (const request of requests) await sameAnswer(current, baseline, request);
    await current.stop();
    await baseline.stop();
    const rows: string[][] = [['request', 'this checkout instructions/req (min / median)', 'baseline instructions/req (min / median)', 'ratio this/baseline (min / median / max)']];
    const raw: Record<string, { current: number[]; baseline: number[] }> = {};
    for (const request of requests) {
      const ours: number[] = [];
      const theirs: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        // Alternate which side goes first, as the timed bench does (here it should not matter).
        const order = i % 2 === 0 ? [current, baseline] : [baseline, current];
        for (const side of order) (side === current ? ours : theirs).push(await turn(side, request, work));
        process.stderr.write(`${request.name} round ${i + 1}: ${fmt(ours.at(-1)!)} / ${fmt(theirs.at(-1)!)} instructions per request\n`);
      }
      raw[request.name] = { current: ours, baseline: theirs };
      const ratios = ours.map((n, i) => n / theirs[i]!);
      rows.push([
        request.name,
        `${fmt(Math.min(...ours))} / ${fmt(median(ours))}`,
        `${fmt(Math.min(...theirs))} / ${fmt(median(theirs))}`,
        `${fmt(Math.min(...ratios), 3)} / ${fmt(median(ratios), 3)} / ${fmt(Math.max(...ratios), 3)}×`,
      ]);
    }
    const settings = Object.keys(CURRENT_ENV).length === 0 ? '' : ` (this checkout with ${Object.entries(CURRENT_ENV).map(([k, v]) => `${k}=${v}`).join(', ')})`;
    process.stdout.write(`hot path, instructions per request under callgrind: ${HERE}${settings} against ${resolve(BASELINE!)}, ${ROUNDS} alternating rounds, node --single-threaded, compiler and event-loop-histogram instructions left out\n`);
    printTable(rows);
    const out = arg('--out');
    if (out) writeFileSync(out, JSON.stringify({ rounds: ROUNDS, scale: SCALE, raw }, null, 2));
  } finally {
    await current.stop();
    await baseline.stop();
    for (const dir of [current.dataDir, baseline.dataDir, work]) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
