/**
 * Snapshot benchmark: a snapshot of a large graph through the file adapter, and recovery from it.
 * - snapshot: wall time of `engine.snapshot(g)`, the longest event-loop stall and the heap/RSS growth
 *   (peak over the start) while it runs, and the latency of single-node commits to the same graph
 *   issued back to back while it runs (how long a writer waits behind the snapshot).
 * - recovery: a fresh process opens the engine from that snapshot; wall time and its peak RSS.
 * The graph has NODES nodes (5 properties each) and 5 × NODES edges. Snapshot rounds: ROUNDS.
 * Usage: node scripts/bench/snapshot.ts [--nodes N] [--rounds R] [--out FILE]
 *   (or SNAPSHOT_BENCH_NODES / SNAPSHOT_BENCH_ROUNDS; the defaults, 100,000 nodes and 3 rounds, run in
 *   about a minute on two shared cores; the issue's 2,000,000 nodes need several GB and minutes).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { GraphEngine, type MutationInput } from '../../src/graph/engine/index.ts';
import { FilePersistence } from '../../src/graph/persist/file/index.ts';
import { arg } from './bench-args.ts';
import { median } from './bench-stats.ts';


const NODES = Number(arg('--nodes') ?? process.env['SNAPSHOT_BENCH_NODES'] ?? 100_000);
const ROUNDS = Number(arg('--rounds') ?? process.env['SNAPSHOT_BENCH_ROUNDS'] ?? 3);
const EDGES_PER_NODE = 5;
const OUT = arg('--out');
const RECOVER = arg('--recover');
const GRAPH = 'big';
const MB = 1024 * 1024;


const nodeId = (i: number): string => `n${i}`;

async function build(engine: GraphEngine): Promise<void> {
  await engine.createGraph(GRAPH);
  const per = 5_000;
  for (let start = 0; start < NODES; start += per) {
    const mutations: MutationInput[] = [];
    for (let i = start; i < Math.min(NODES, start + per); i++) {
      mutations.push({ op: 'createNode', id: nodeId(i), label: i % 3 === 0 ? 'Person' : 'Doc', props: { name: `node ${i}`, seq: i, score: i / 7, tags: ['a', 'b'], ok: i % 2 === 0 } });
    }
    await engine.commit({ graph: GRAPH, mutations });
  }
  // Edge j of node i goes to a pseudo-random node; duplicates are fine (addEdge is idempotent).
  const perEdges = 20_000;
  let batch: MutationInput[] = [];
  for (let i = 0; i < NODES; i++) {
    for (let j = 1; j <= EDGES_PER_NODE; j++) {
      batch.push({ op: 'addEdge', src: nodeId(i), tgt: nodeId((i * 7919 + j * 104729) % NODES), type: j % 2 ? 'LINKS' : 'CITES' });
      if (batch.length >= perEdges) {
        await engine.commit({ graph: GRAPH, mutations: batch });
        batch = [];
      }
    }
  }
  if (batch.length > 0) await engine.commit({ graph: GRAPH, mutations: batch });
}

interface SnapshotRound {
  seconds: number;
  stallMs: number;
  heapGrowthMb: number;
  rssGrowthMb: number;
  commits: number;
  commitP50Ms: number;
  commitMaxMs: number;
}

async function snapshotRound(engine: GraphEngine, round: number): Promise<SnapshotRound> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  let lastTick = performance.now();
  let longestGap = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - lastTick);
    lastTick = now;
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 5);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let done = false;
  const latencies: number[] = [];
  const started = performance.now();
  const snapshot = engine.snapshot(GRAPH).finally(() => { done = true; });
  // A writer committing back to back while the snapshot runs.
  const writer = (async () => {
    for (let k = 0; !done; k++) {
      const t = performance.now();
      await engine.commit({ graph: GRAPH, mutations: [{ op: 'createNode', id: `w${round}-${k}`, label: 'Doc', props: { seq: k } }] });
      latencies.push(performance.now() - t);
    }
  })();
  await snapshot;
  const seconds = (performance.now() - started) / 1000;
  await writer;
  delay.disable();
  clearInterval(sampler);
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakRss = Math.max(peakRss, m.rss);
  return {
    seconds, stallMs: Math.max(delay.max / 1e6, longestGap - 5), heapGrowthMb: (peakHeap - before.heapUsed) / MB, rssGrowthMb: (peakRss - before.rss) / MB,
    commits: latencies.length, commitP50Ms: median(latencies), commitMaxMs: Math.max(...latencies),
  };
}

/** In a child process: open the engine over `dir` and report time and peak RSS. */
async function recoverChild(dir: string): Promise<void> {
  const started = performance.now();
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const engine = await GraphEngine.open({ persistence: await FilePersistence.open({ directory: dir }), snapshotEvery: 0 });
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  const summary = engine.listGraphs().find((g) => g.name === GRAPH);
  await engine.close();
  process.stdout.write(`${JSON.stringify({ seconds, peakRssMb: process.resourceUsage().maxRSS / 1024, nodes: summary?.nodes, edges: summary?.edges })}\n`);
}

async function main(): Promise<void> {
  if (RECOVER) return recoverChild(RECOVER);
  const dir = await mkdtemp(join(tmpdir(), 'tg-bench-snapshot-'));
  try {
    const engine = await GraphEngine.open({ persistence: await FilePersistence.open({ directory: dir }), snapshotEvery: 0 });
    const builtAt = performance.now();
    await build(engine);
    const summary = engine.listGraphs().find((g) => g.name === GRAPH)!;
    process.stdout.write(`graph: ${summary.nodes} nodes, ${summary.edges} edges, built in ${((performance.now() - builtAt) / 1000).toFixed(1)} s\n`);
    const rounds: SnapshotRound[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await snapshotRound(engine, r));
    await engine.close();

    const child = spawnSync(process.execPath, [process.argv[1]!, '--recover', dir], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`recovery child failed: ${child.stderr}`);
    const recovery = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { seconds: number; peakRssMb: number; nodes: number; edges: number };

    const col = (pick: (r: SnapshotRound) => number): string => `min ${Math.min(...rounds.map(pick)).toFixed(1)} / median ${median(rounds.map(pick)).toFixed(1)}`;
    const rows: [string, string][] = [
      ['snapshot time (s)', col((r) => r.seconds)],
      ['longest event-loop stall (ms)', col((r) => r.stallMs)],
      ['heap growth, peak (MB)', col((r) => r.heapGrowthMb)],
      ['RSS growth, peak (MB)', col((r) => r.rssGrowthMb)],
      ['commits during the snapshot', col((r) => r.commits)],
      ['commit latency p50 (ms)', col((r) => r.commitP50Ms)],
      ['commit latency max (ms)', col((r) => r.commitMaxMs)],
      ['recovery time (s)', recovery.seconds.toFixed(1)],
      ['recovery peak RSS (MB)', recovery.peakRssMb.toFixed(0)],
    ];
    const width = Math.max(...rows.map((r) => r[0].length));
    process.stdout.write(`${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`);
    if (recovery.nodes < summary.nodes || recovery.edges !== summary.edges) throw new Error('recovery did not give back the graph');
    if (OUT) await writeFile(OUT, `${JSON.stringify({ nodes: summary.nodes, edges: summary.edges, rounds, recovery }, null, 2)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
