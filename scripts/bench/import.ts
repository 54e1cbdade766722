/**
 * Import benchmark: node scripts/bench/import.ts [--lines 500000,2000000] [--rounds 5] [--only import|catalogue] [--out FILE]
 *
 * 1. `importJsonlFile` of a generated JSON Lines file (1 node line in 5, the rest edges, nodes first as
 *    `graph export` writes them) into a fresh in-memory graph, against the strongest simple peer doing
 *    the parsing part of the same work: read the same file and `JSON.parse` every line. The two sides
 *    alternate (A B A B) for --rounds rounds; lines per second, min and median of each side and of the
 *    per-round ratio. Equal lines per second at 0.5M and 2M lines means the import is linear. Memory:
 *    the used heap at its peak during the timed imports (garbage included) and, in one more untimed
 *    import with a full GC at every progress report, the live heap at its peak, each against the heap
 *    the finished graph holds.
 * 2. Commit latency of a label-adding commit on a graph the schema catalogue watches (the demo graph
 *    under the static catalogue, as `serve` runs it), against the same commit on a graph nobody
 *    watches; and the cost of `Catalogue.putSource` for that graph's source.
 * Persistence is a no-op adapter: this measures parsing, validation and the engine, not the disk.
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { GraphEngine } from '../../src/graph/engine/index.ts';
import { loadReferenceGraph } from '../../src/graph/fixtures/index.ts';
import { importJsonlFile } from '../../src/graph/jsonl/index.ts';
import { sdlFromCatalogue } from '../../src/graph/schema/index.ts';
import { buildCatalogueEntries, createStaticCatalogue, graphqlSource, watchGraphCatalogue } from '../../src/manifest/index.ts';
import { rng } from './seeded-random.ts';
import { arg } from './bench-args.ts';
import { NullPersistence } from './null-persistence.ts';
import { median } from './bench-stats.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;


const SIZES = (arg('--lines') ?? '500000,2000000').split(',').map(Number);
const ROUNDS = Number(arg('--rounds') ?? 5);
const ONLY = arg('--only');
const OUT = arg('--out');



const TEAMS = ['red', 'green', 'blue', 'amber', 'teal', 'plum', 'rust', 'sand', 'jade', 'onyx'];

async function generate(file: string, lines: number): Promise<void> {
  const random = rng(lines);
  const nodes = Math.floor(lines / 5);
  const out = createWriteStream(file);
  let chunk = '';
  const write = async (line: string) => {
    chunk += `${line}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  };
  const id = (i: number) => `p${String(i).padStart(8, '0')}`;
  for (let i = 0; i < nodes; i++) {
    await write(JSON.stringify({ label: 'Person', id: id(i), props: { name: `Person ${i}`, team: TEAMS[i % TEAMS.length], age: 18 + (i % 60), score: Math.round(random() * 1000) / 10 + 0.05 } }));
  }
  for (let i = nodes; i < lines; i++) {
    await write(JSON.stringify({ src: id(Math.floor(random() * nodes)), tgt: id(Math.floor(random() * nodes)), type: i % 4 === 0 ? 'WORKS_WITH' : 'KNOWS' }));
  }
  out.end(chunk);
  await once(out, 'finish');
}


const min = (values: readonly number[]) => Math.min(...values);
const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** The peer: read the file and JSON.parse every non-blank line. */
function parseEveryLine(file: string): number {
  const text = readFileSync(file, 'utf8');
  let records = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) {
      JSON.parse(text.slice(start, end));
      records++;
    }
    start = end + 1;
  }
  return records;
}

/** CPU time of the process since `from` (all threads): steadier than wall time on a shared machine. */
function cpuSecondsSince(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1e6;
}

interface ImportRun { seconds: number; cpuSeconds: number; records: number; peakHeap: number; graphHeap: number }

/** Untimed: the live heap (after a full GC at every progress report) at its peak during an import, and after it. */
async function liveHeapOf(file: string): Promise<{ peak: number; graph: number }> {
  const engine = await GraphEngine.open({ persistence: new NullPersistence(), snapshotEvery: 0 });
  await engine.createGraph('g');
  gc();
  const base = getHeapStatistics().used_heap_size;
  let peak = 0;
  await importJsonlFile(engine, 'g', file, {
    onProgress: () => {
      gc();
      peak = Math.max(peak, getHeapStatistics().used_heap_size - base);
    },
  });
  gc();
  const graph = getHeapStatistics().used_heap_size - base;
  await engine.close();
  return { peak: Math.max(peak, graph), graph };
}

async function importOnce(file: string): Promise<ImportRun> {
  const engine = await GraphEngine.open({ persistence: new NullPersistence(), snapshotEvery: 0 });
  await engine.createGraph('g');
  gc();
  const base = getHeapStatistics().used_heap_size;
  let peakHeap = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const outcome = await importJsonlFile(engine, 'g', file, {
    onProgress: () => {
      peakHeap = Math.max(peakHeap, getHeapStatistics().used_heap_size - base);
    },
  });
  const seconds = (performance.now() - start) / 1000;
  const cpuSeconds = cpuSecondsSince(cpu);
  peakHeap = Math.max(peakHeap, getHeapStatistics().used_heap_size - base);
  gc();
  const graphHeap = getHeapStatistics().used_heap_size - base;
  const view = engine.view('g');
  await engine.close();
  if (view.nodeCount === 0) throw new Error('nothing was imported');
  return { seconds, cpuSeconds, records: outcome.records, peakHeap, graphHeap };
}

type Row = Record<string, string | number>;

async function importSuite(json: Record<string, unknown>, rows: Row[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-import-'));
  const results: unknown[] = [];
  try {
    for (const lines of SIZES) {
      const file = join(dir, `g-${lines}.jsonl`);
      await generate(file, lines);
      const bytes = statSync(file).size;
      const ours: ImportRun[] = [];
      const peer: number[] = [];
      const peerCpu: number[] = [];
      // One untimed warm-up of each side, then A B A B.
      await importOnce(file);
      parseEveryLine(file);
      for (let r = 0; r < ROUNDS; r++) {
        ours.push(await importOnce(file));
        gc();
        const cpu = process.cpuUsage();
        const start = performance.now();
        const parsed = parseEveryLine(file);
        peer.push((performance.now() - start) / 1000);
        peerCpu.push(cpuSecondsSince(cpu));
        if (parsed !== lines) throw new Error(`the peer parsed ${parsed} lines of ${lines}`);
        gc();
      }
      const oursRate = ours.map((o) => lines / o.seconds);
      const peerRate = peer.map((s) => lines / s);
      const ratios = ours.map((o, i) => peer[i]! / o.seconds);
      const cpuRatios = ours.map((o, i) => peerCpu[i]! / o.cpuSeconds);
      const peak = median(ours.map((o) => o.peakHeap));
      const graph = median(ours.map((o) => o.graphHeap));
      const live = await liveHeapOf(file);
      rows.push({
        measure: `import ${(lines / 1e6).toFixed(1)}M lines (${(bytes / 2 ** 20).toFixed(0)} MiB)`,
        'toolgraph lines/s min/median': `${(min(oursRate) / 1e3).toFixed(0)}k / ${(median(oursRate) / 1e3).toFixed(0)}k`,
        'JSON.parse lines/s min/median': `${(min(peerRate) / 1e3).toFixed(0)}k / ${(median(peerRate) / 1e3).toFixed(0)}k`,
        'ratio (toolgraph/peer) min/median': `${min(ratios).toFixed(3)}x / ${median(ratios).toFixed(3)}x`,
        'ratio by CPU time min/median': `${min(cpuRatios).toFixed(3)}x / ${median(cpuRatios).toFixed(3)}x`,
        'import s median': round(median(ours.map((o) => o.seconds))),
        'peak heap / graph heap': `${(peak / 2 ** 20).toFixed(0)} / ${(graph / 2 ** 20).toFixed(0)} MiB (${(peak / graph).toFixed(2)}x)`,
        'live heap peak / graph': `${(live.peak / 2 ** 20).toFixed(0)} / ${(live.graph / 2 ** 20).toFixed(0)} MiB (${(live.peak / live.graph).toFixed(2)}x)`,
      });
      results.push({
        lines, bytes, rounds: ROUNDS,
        importSeconds: ours.map((o) => round(o.seconds, 3)), peerSeconds: peer.map((s) => round(s, 3)),
        importLinesPerSecondMedian: round(median(oursRate)), peerLinesPerSecondMedian: round(median(peerRate)),
        ratioMin: round(min(ratios), 4), ratioMedian: round(median(ratios), 4),
        importCpuSeconds: ours.map((o) => round(o.cpuSeconds, 3)), peerCpuSeconds: peerCpu.map((s) => round(s, 3)),
        cpuRatioMin: round(min(cpuRatios), 4), cpuRatioMedian: round(median(cpuRatios), 4),
        peakHeapBytesMedian: peak, graphHeapBytesMedian: graph, livePeakHeapBytes: live.peak, liveGraphHeapBytes: live.graph,
      });
      rmSync(file);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  json['import'] = results;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Times label-adding commits; waits between them so a background rebuild never lands inside the next one. */
async function labelCommits(engine: GraphEngine, graph: string, prefix: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await engine.commit({ graph, mutations: [{ op: 'createNode', id: `${prefix}-${i}`, label: `${prefix}${i}`, props: { name: 'x' } }] });
    times.push(performance.now() - start);
    await sleep(60);
  }
  return times;
}

async function catalogueSuite(json: Record<string, unknown>, rows: Row[]): Promise<void> {
  const watched = await GraphEngine.open({ persistence: new NullPersistence(), snapshotEvery: 0 });
  const plain = await GraphEngine.open({ persistence: new NullPersistence(), snapshotEvery: 0 });
  await loadReferenceGraph(watched, 'demo');
  await loadReferenceGraph(plain, 'demo');
  const catalogue = createStaticCatalogue({ publicBaseUrl: 'http://127.0.0.1:4000' });
  const watch = watchGraphCatalogue(catalogue, watched, 'demo', { sdlOf: sdlFromCatalogue, sourceName: 'graph' });
  const perRound = 10;
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  await labelCommits(watched, 'demo', 'Warm', 3);
  await labelCommits(plain, 'demo', 'Warm', 3);
  for (let r = 0; r < ROUNDS; r++) {
    const ours = median(await labelCommits(watched, 'demo', `W${r}L`, perRound));
    const peer = median(await labelCommits(plain, 'demo', `P${r}L`, perRound));
    a.push(ours);
    b.push(peer);
    ratios.push(ours / peer);
  }
  watch.close();
  // What one rebuild of the demo graph's source costs in the catalogue itself (index + maps), and the
  // whole rebuild (SDL, canonical documents, digests, validation, then putSource).
  const entries = buildCatalogueEntries(graphqlSource('graph', sdlFromCatalogue(watched.view('demo').catalogue))).entries;
  const put: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < 20; i++) {
    let start = performance.now();
    catalogue.putSource('graph', entries);
    put.push(performance.now() - start);
    start = performance.now();
    catalogue.putSource('graph', buildCatalogueEntries(graphqlSource('graph', sdlFromCatalogue(watched.view('demo').catalogue))).entries);
    whole.push(performance.now() - start);
  }
  await watched.close();
  await plain.close();
  rows.push({
    measure: 'label-adding commit, catalogue watching the graph',
    'toolgraph ms min/median': `${min(a).toFixed(2)} / ${median(a).toFixed(2)}`,
    'unwatched commit ms min/median': `${min(b).toFixed(2)} / ${median(b).toFixed(2)}`,
    'ratio min/median': `${min(ratios).toFixed(2)}x / ${median(ratios).toFixed(2)}x`,
  });
  rows.push({
    measure: `Catalogue.putSource of the demo graph source (${entries.length} operations; catalogue of ${catalogue.size})`,
    'toolgraph ms min/median': `${min(put).toFixed(2)} / ${median(put).toFixed(2)}`,
    'unwatched commit ms min/median': '-',
    'ratio min/median': '-',
  });
  rows.push({
    measure: 'whole rebuild of that source (SDL, documents, digests, validation, putSource)',
    'toolgraph ms min/median': `${min(whole).toFixed(2)} / ${median(whole).toFixed(2)}`,
    'unwatched commit ms min/median': '-',
    'ratio min/median': '-',
  });
  json['catalogue'] = {
    rounds: ROUNDS, commitsPerRound: perRound,
    watchedCommitMsMedians: a.map((v) => round(v, 3)), unwatchedCommitMsMedians: b.map((v) => round(v, 3)),
    ratioMin: round(min(ratios), 3), ratioMedian: round(median(ratios), 3),
    putSourceMsMedian: round(median(put), 3), wholeRebuildMsMedian: round(median(whole), 3),
  };
}

const json: Record<string, unknown> = { bench: 'import', node: process.version };
if (ONLY !== 'catalogue') {
  const rows: Row[] = [];
  await importSuite(json, rows);
  console.table(rows);
}
if (ONLY !== 'import') {
  const rows: Row[] = [];
  await catalogueSuite(json, rows);
  console.table(rows);
}
if (OUT) await writeFile(OUT, `${JSON.stringify(json, null, 2)}\n`);
