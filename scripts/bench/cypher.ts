/**
 * Cypher benchmark: path queries through the Cypher executor (runCypherJson, as POST /dispatch runs it,
 * the result ending as canonical JSON text), timed per path row, against the engine's
 * own per-row cost for the same traversal written by hand on the GraphView API (label scan, then one
 * whole-frontier expandEach per step), in the same run, the two sides taking turns.
 * Write rows (issue 24, item 6): one UNWIND CREATE / UNWIND MERGE … SET statement of --write-rows rows (1000)
 * against the same rows as one CREATE / MATCH … SET statement each through runCypher, rows per second,
 * each turn on a fresh graph.
 * The `*1..3` row (scripts/bench/cypher-var-length.ts): a variable-length expansion against a BFS by hand.
 * Usage: node scripts/bench/cypher.ts [--people N] [--rounds N] [--write-rows N] [--only writes|var-length] [--out FILE]
 * The default graph has 200k nodes and 400k edges (issue 7, item 11): 100k Person, 100k Paper;
 * 200k KNOWS (Person→Person), 50k CITES Person→Paper and 150k CITES Paper→Paper, so
 * `MATCH (a:Person)-[:KNOWS]->(b)-[:CITES]->(c)` has about 100k paths. Target: Cypher within 3× of the engine.
 */
import { writeFile } from 'node:fs/promises';
import { runCypher, runCypherJson } from '../../src/graph/cypher/index.ts';
import { GraphEngine, type GraphView, type MutationInput, type NodeRecord } from '../../src/graph/engine/index.ts';
import { rng } from './seeded-random.ts';
import { arg } from './bench-args.ts';
import { NullPersistence } from './null-persistence.ts';
import { flattenFrontier } from './flatten-frontier.ts';
import { printVarLength, varLengthBench } from './cypher-var-length.ts';


const PEOPLE = Number(arg('--people') ?? 100_000);
const PAPERS = PEOPLE;
const ROUNDS = Number(arg('--rounds') ?? 7);
const OUT = arg('--out');
/** `--only writes` runs only the write rows, `--only var-length` only the `*1..3` row (no 200k-node graph to build). */
const ONLY = arg('--only');



const person = (i: number) => `p${String(i).padStart(7, '0')}`;
const paper = (i: number) => `d${String(i).padStart(7, '0')}`;

async function build(): Promise<GraphEngine> {
  const engine = await GraphEngine.open({ persistence: new NullPersistence(), snapshotEvery: 0 });
  await engine.createGraph('bench');
  const r = rng(7);
  let batch: MutationInput[] = [];
  const push = async (m: MutationInput) => {
    batch.push(m);
    if (batch.length >= 20_000) {
      await engine.commit({ graph: 'bench', mutations: batch });
      batch = [];
    }
  };
  for (let i = 0; i < PEOPLE; i++) await push({ op: 'createNode', id: person(i), label: 'Person', props: { name: `Person ${i}`, age: 18 + (i % 60) } });
  for (let i = 0; i < PAPERS; i++) await push({ op: 'createNode', id: paper(i), label: 'Paper', props: { title: `Paper ${i}` } });
  const edges = (count: number, src: (i: number) => string, tgt: () => string, type: string) => {
    const seen = new Set<string>();
    const out: MutationInput[] = [];
    for (let i = 0; out.length < count; i++) {
      const s = src(i);
      const t = tgt();
      const key = `${s}>${t}`;
      if (s === t || seen.has(key)) continue;
      seen.add(key);
      out.push({ op: 'addEdge', src: s, tgt: t, type });
    }
    return out;
  };
  const pick = (n: number, id: (i: number) => string) => () => id(Math.floor(r() * n));
  for (const m of edges(2 * PEOPLE, (i) => person(i % PEOPLE), pick(PEOPLE, person), 'KNOWS')) await push(m);
  for (const m of edges(PEOPLE / 2, pick(PEOPLE, person), pick(PAPERS, paper), 'CITES')) await push(m);
  for (const m of edges(1.5 * PAPERS, (i) => paper(i % PAPERS), pick(PAPERS, paper), 'CITES')) await push(m);
  if (batch.length > 0) await engine.commit({ graph: 'bench', mutations: batch });
  return engine;
}

/** The engine by hand: scan, then one expandEach per step over the whole frontier; the last step's lists. */
function twoSteps(view: GraphView): (readonly NodeRecord[])[] {
  const start = view.scan('Person');
  return view.expandEach(flattenFrontier(view.expandEach(start, 'KNOWS', 'out')), 'CITES', 'out');
}

/** The traversal counting path rows. */
function enginePaths(view: GraphView): number {
  const step2 = twoSteps(view);
  let rows = 0;
  for (let j = 0; j < step2.length; j++) rows += step2[j]!.length;
  return rows;
}

/** The same traversal collecting one property per path row, written out as JSON (what the result costs). */
function enginePathValues(view: GraphView): number {
  const step2 = twoSteps(view);
  const titles: unknown[] = [];
  for (let j = 0; j < step2.length; j++) {
    const list = step2[j]!;
    for (let i = 0; i < list.length; i++) titles.push(list[i]!.props['title']);
  }
  // A list of strings is already canonical JSON as JSON.stringify writes it.
  sink = JSON.stringify(titles);
  return titles.length;
}

/** Keeps the baseline's JSON text alive so the work is not optimised away. */
let sink = '';

interface Case {
  name: string;
  query: string;
  engine: (view: GraphView) => number;
  rowsOf: (result: { rows: unknown[][] }) => number;
}

const CASES: Case[] = [
  {
    name: 'count of 2-step paths (issue 7 item 11)',
    query: 'MATCH (a:Person)-[:KNOWS]->(b)-[:CITES]->(c) RETURN count(c)',
    engine: enginePaths,
    rowsOf: (r) => r.rows[0]![0] as number,
  },
  {
    name: 'same paths, collect(c.title)',
    query: 'MATCH (a:Person)-[:KNOWS]->(b)-[:CITES]->(c) RETURN collect(c.title) AS t',
    engine: enginePathValues,
    rowsOf: (r) => (r.rows[0]![0] as unknown[]).length,
  },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Rows per write statement in the write rows (issue 24, item 6). */
const WRITE_ROWS = Number(arg('--write-rows') ?? 1000);

interface WriteCase {
  name: string;
  /** Prepares round `round`'s graph (fresh per round, so both sides do the same work) and returns its name. */
  setup: (engine: GraphEngine, round: number, side: string) => Promise<string>;
  /** One UNWIND statement over all the rows. */
  unwind: (engine: GraphEngine, graph: string, rows: { id: string; name: string }[]) => Promise<void>;
  /** The same rows, one statement each. */
  single: (engine: GraphEngine, graph: string, rows: { id: string; name: string }[]) => Promise<void>;
}

const writeRows = (round: number) => Array.from({ length: WRITE_ROWS }, (_, i) => ({ id: `w${String(i).padStart(6, '0')}`, name: `Name ${i} round ${round}` }));

const CREATE_UNWIND = 'UNWIND $rows AS r CREATE (:Person {id: r.id, name: r.name})';

const WRITE_CASES: WriteCase[] = [
  {
    name: `UNWIND CREATE of ${WRITE_ROWS} rows vs ${WRITE_ROWS} CREATE statements`,
    setup: async (engine, round, side) => {
      const graph = `create-${side}-${round}`;
      await engine.createGraph(graph);
      return graph;
    },
    unwind: async (engine, graph, rows) => {
      await runCypher(engine, graph, CREATE_UNWIND, { rows });
    },
    single: async (engine, graph, rows) => {
      for (const r of rows) await runCypher(engine, graph, 'CREATE (:Person {id: $id, name: $name})', r);
    },
  },
  {
    name: `UNWIND MERGE … SET upsert of ${WRITE_ROWS} rows, all matching, vs ${WRITE_ROWS} MATCH … SET statements`,
    setup: async (engine, round, side) => {
      const graph = `upsert-${side}-${round}`;
      await engine.createGraph(graph);
      await runCypher(engine, graph, CREATE_UNWIND, { rows: writeRows(-1) });
      return graph;
    },
    unwind: async (engine, graph, rows) => {
      await runCypher(engine, graph, 'UNWIND $rows AS r MERGE (p:Person {id: r.id}) SET p.name = r.name', { rows });
    },
    single: async (engine, graph, rows) => {
      for (const r of rows) await runCypher(engine, graph, 'MATCH (p:Person {id: $id}) SET p.name = $name', r);
    },
  },
];

async function checkWritten(engine: GraphEngine, graph: string, rows: { id: string; name: string }[]): Promise<void> {
  const result = await runCypher(engine, graph, 'MATCH (p:Person) RETURN count(p) AS n, count(DISTINCT p.id) AS ids, min(p.name) AS lo, max(p.name) AS hi');
  const [n, ids] = result.rows[0] as [number, number];
  const names = rows.map((r) => r.name).sort();
  const [lo, hi] = [(result.rows[0] as unknown[])[2], (result.rows[0] as unknown[])[3]];
  if (n !== rows.length || ids !== rows.length || lo !== names[0] || hi !== names[names.length - 1]) {
    throw new Error(`${graph}: ${JSON.stringify(result.rows[0])} after writing ${rows.length} rows`);
  }
}

/** Write rows: rows per second of one UNWIND statement against one statement per row, sides taking turns. */
async function writeBench(): Promise<unknown[]> {
  const engine = await GraphEngine.open({ persistence: new NullPersistence(), snapshotEvery: 0 });
  const results = [];
  for (const c of WRITE_CASES) {
    const unwindRps: number[] = [];
    const singleRps: number[] = [];
    const ratios: number[] = [];
    // Turns -2 and -1 warm both sides.
    for (let turn = -2; turn < ROUNDS; turn++) {
      const rows = writeRows(turn);
      const timeSide = async (side: 'unwind' | 'single') => {
        const graph = await c.setup(engine, turn, side);
        const t = process.hrtime.bigint();
        await c[side](engine, graph, rows);
        const s = Number(process.hrtime.bigint() - t) / 1e9;
        await checkWritten(engine, graph, rows);
        await engine.dropGraph(graph);
        return rows.length / s;
      };
      // A B, then B A in the next round, so other load falls on both alike.
      const u = turn % 2 === 0 ? await timeSide('unwind') : 0;
      const s = await timeSide('single');
      const u2 = turn % 2 === 0 ? u : await timeSide('unwind');
      if (turn < 0) continue;
      unwindRps.push(u2);
      singleRps.push(s);
      ratios.push(u2 / s);
    }
    results.push({
      case: c.name, rows: WRITE_ROWS,
      unwindRowsPerSecMin: Math.round(Math.min(...unwindRps)), unwindRowsPerSecMedian: Math.round(median(unwindRps)),
      singleRowsPerSecMin: Math.round(Math.min(...singleRps)), singleRowsPerSecMedian: Math.round(median(singleRps)),
      ratioMin: round(Math.min(...ratios)), ratioMedian: round(median(ratios)),
    });
  }
  console.table(results.map((r) => ({
    case: r.case,
    'UNWIND rows/s min/med': `${r.unwindRowsPerSecMin} / ${r.unwindRowsPerSecMedian}`,
    'one per row rows/s min/med': `${r.singleRowsPerSecMin} / ${r.singleRowsPerSecMedian}`,
    'speed-up min/med': `${r.ratioMin} / ${r.ratioMedian}`,
  })));
  await engine.close();
  return results;
}

async function main(): Promise<void> {
  if (ONLY === 'writes') {
    const writes = await writeBench();
    if (OUT) await writeFile(OUT, `${JSON.stringify({ bench: 'cypher', node: process.version, rounds: ROUNDS, writes }, null, 2)}\n`);
    return;
  }
  if (ONLY === 'var-length') {
    const varLength = await varLengthBench(Number(arg('--rounds') ?? 9));
    printVarLength(varLength);
    if (OUT) await writeFile(OUT, `${JSON.stringify({ bench: 'cypher', node: process.version, varLength }, null, 2)}\n`);
    return;
  }
  const t0 = performance.now();
  const engine = await build();
  const view = engine.view('bench');
  console.log(`graph: ${view.nodeCount} nodes, ${view.edgeCount} edges; built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const results = [];
  for (const c of CASES) {
    const expected = c.engine(view);
    const cypherNs: number[] = [];
    const engineNs: number[] = [];
    const ratios: number[] = [];
    // Warm both sides, then take turns so other load on the machine falls on both alike.
    for (let i = 0; i < 2; i++) {
      c.engine(view);
      await runCypherJson(engine, 'bench', c.query);
    }
    for (let round = 0; round < ROUNDS; round++) {
      let t = process.hrtime.bigint();
      const rows = c.engine(view);
      const e = Number(process.hrtime.bigint() - t) / rows;
      t = process.hrtime.bigint();
      // The executor as POST /dispatch runs it: the result ends as canonical JSON text.
      const text = await runCypherJson(engine, 'bench', c.query);
      const y = Number(process.hrtime.bigint() - t) / expected;
      const result = JSON.parse(text) as { rows: unknown[][] };
      if (c.rowsOf(result) !== expected) throw new Error(`${c.name}: Cypher counted ${c.rowsOf(result)} rows, the engine ${expected}`);
      engineNs.push(e);
      cypherNs.push(y);
      ratios.push(y / e);
    }
    results.push({
      case: c.name, rows: expected,
      cypherNsPerRowMin: round(Math.min(...cypherNs)), cypherNsPerRowMedian: round(median(cypherNs)),
      engineNsPerRowMin: round(Math.min(...engineNs)), engineNsPerRowMedian: round(median(engineNs)),
      ratioMin: round(Math.min(...ratios)), ratioMedian: round(median(ratios)),
      cypherMsMedian: round((median(cypherNs) * expected) / 1e6),
      target: 3,
    });
  }
  console.table(results.map((r) => ({
    case: r.case, rows: r.rows, 'cypher ms (median)': r.cypherMsMedian,
    'cypher ns/row min/med': `${r.cypherNsPerRowMin} / ${r.cypherNsPerRowMedian}`,
    'engine ns/row min/med': `${r.engineNsPerRowMin} / ${r.engineNsPerRowMedian}`,
    'ratio min/med': `${r.ratioMin} / ${r.ratioMedian}`, target: `≤ ${r.target}`,
  })));
  const writes = await writeBench();
  const varLength = await varLengthBench(Math.max(ROUNDS, 9));
  printVarLength(varLength);
  if (OUT) {
    await writeFile(OUT, `${JSON.stringify({ bench: 'cypher', node: process.version, rounds: ROUNDS, results, writes, varLength }, null, 2)}\n`);
    console.log(`wrote ${OUT}`);
  }
  await engine.close();
  if (sink.length === 0) console.log('(no baseline output)');
}

await main();
