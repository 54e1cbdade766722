/**
 * The `*1..3` row of the cypher bench (issue 24, item 6): `MATCH (a:Person {id: $id})-[:KNOWS*1..3]->(b)
 * RETURN DISTINCT b.name` through runCypher against a breadth-first search written by hand on the
 * engine's GraphView (the same start, up to three KNOWS hops out, the distinct names reached), on a
 * graph of --var-people Person nodes (30,000) with --var-degree KNOWS edges each (8: 240,000 edges).
 *
 * Both sides answer the same sequence of start nodes; before any timing the bench checks that they
 * return the same set of names for each start, so a wrong search on either side fails the bench. A
 * round times one pass of every start on each side, the sides taking turns (A B, then B A).
 */
import { runCypher } from '../../src/graph/cypher/index.ts';
import { GraphEngine, type GraphView, type MutationInput } from '../../src/graph/engine/index.ts';
import { arg } from './bench-args.ts';
import { median } from './bench-stats.ts';
import { NullPersistence } from './null-persistence.ts';
import { rng } from './seeded-random.ts';

const PEOPLE = Number(arg('--var-people') ?? 30_000);
const DEGREE = Number(arg('--var-degree') ?? 8);
const STARTS = Number(arg('--var-starts') ?? 200);
const QUERY = 'MATCH (a:Person {id: $id})-[:KNOWS*1..3]->(b) RETURN DISTINCT b.name';

const roundTo = (n: number) => Math.round(n * 100) / 100;
const personId = (i: number) => `v${String(i).padStart(6, '0')}`;

async function buildKnowsGraph(): Promise<GraphEngine> {
  const engine = await GraphEngine.open({ persistence: new NullPersistence(), snapshotEvery: 0 });
  await engine.createGraph('var');
  const random = rng(24);
  let batch: MutationInput[] = [];
  const push = async (m: MutationInput) => {
    batch.push(m);
    if (batch.length >= 20_000) {
      await engine.commit({ graph: 'var', mutations: batch });
      batch = [];
    }
  };
  for (let i = 0; i < PEOPLE; i++) await push({ op: 'createNode', id: personId(i), label: 'Person', props: { name: `Person ${i}` } });
  for (let i = 0; i < PEOPLE; i++) {
    // At most one KNOWS edge from a node to another (the graph model's rule), none to itself.
    const targets = new Set<number>();
    while (targets.size < DEGREE) {
      const t = Math.floor(random() * PEOPLE);
      if (t !== i) targets.add(t);
    }
    for (const t of targets) await push({ op: 'addEdge', src: personId(i), tgt: personId(t), type: 'KNOWS' });
  }
  if (batch.length > 0) await engine.commit({ graph: 'var', mutations: batch });
  return engine;
}

/** The baseline: a level-by-level search, each node expanded once, the names of every node reached in 1 to 3 hops. */
function bfsNames(view: GraphView, start: string): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  let frontier: string[] = [start];
  for (let depth = 1; depth <= 3 && frontier.length > 0; depth++) {
    const next: string[] = [];
    const lists = view.expandEach(frontier, 'KNOWS', 'out');
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i]!;
      for (let j = 0; j < list.length; j++) {
        const node = list[j]!;
        if (seen.has(node.id)) continue;
        seen.add(node.id);
        names.push(node.props['name'] as string);
        next.push(node.id);
      }
    }
    frontier = next;
  }
  return names;
}

async function cypherNames(engine: GraphEngine, start: string): Promise<string[]> {
  const result = await runCypher(engine, 'var', QUERY, { id: start });
  return result.rows.map((row) => row[0] as string);
}

export interface VarLengthResult {
  readonly case: string;
  readonly starts: number;
  readonly namesPerStart: number;
  readonly cypherUsMin: number;
  readonly cypherUsMedian: number;
  readonly bfsUsMin: number;
  readonly bfsUsMedian: number;
  readonly ratioMin: number;
  readonly ratioMedian: number;
  readonly target: number;
}

/** Times both sides over `rounds` alternating rounds; microseconds per query. */
export async function varLengthBench(rounds: number): Promise<VarLengthResult> {
  const t0 = performance.now();
  const engine = await buildKnowsGraph();
  const view = engine.view('var');
  console.log(`var-length graph: ${view.nodeCount} nodes, ${view.edgeCount} edges; built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const random = rng(3);
  const starts = Array.from({ length: STARTS }, () => personId(Math.floor(random() * PEOPLE)));
  let names = 0;
  for (const start of starts) {
    const expected = bfsNames(view, start).sort();
    const got = (await cypherNames(engine, start)).sort();
    if (expected.length !== got.length || expected.some((n, i) => n !== got[i])) {
      throw new Error(`var-length: from ${start} the search reached ${expected.length} names, Cypher returned ${got.length} (or other names)`);
    }
    names += expected.length;
  }
  const timeBfs = () => {
    const t = process.hrtime.bigint();
    for (const start of starts) bfsNames(view, start);
    return Number(process.hrtime.bigint() - t) / 1e3 / starts.length;
  };
  const timeCypher = async () => {
    const t = process.hrtime.bigint();
    for (const start of starts) await cypherNames(engine, start);
    return Number(process.hrtime.bigint() - t) / 1e3 / starts.length;
  };
  const cypherUs: number[] = [];
  const bfsUs: number[] = [];
  const ratios: number[] = [];
  // Rounds -2 and -1 warm both sides.
  for (let round = -2; round < rounds; round++) {
    let c: number;
    let b: number;
    if (round % 2 === 0) {
      c = await timeCypher();
      b = timeBfs();
    } else {
      b = timeBfs();
      c = await timeCypher();
    }
    if (round < 0) continue;
    cypherUs.push(c);
    bfsUs.push(b);
    ratios.push(c / b);
  }
  await engine.close();
  return {
    case: `${QUERY} (${view.nodeCount} nodes, ${view.edgeCount} edges) vs a BFS on the engine`,
    starts: starts.length,
    namesPerStart: Math.round(names / starts.length),
    cypherUsMin: roundTo(Math.min(...cypherUs)), cypherUsMedian: roundTo(median(cypherUs)),
    bfsUsMin: roundTo(Math.min(...bfsUs)), bfsUsMedian: roundTo(median(bfsUs)),
    ratioMin: roundTo(Math.min(...ratios)), ratioMedian: roundTo(median(ratios)),
    target: 5,
  };
}

export function printVarLength(r: VarLengthResult): void {
  console.table([{
    case: r.case, starts: r.starts, 'names per start': r.namesPerStart,
    'cypher µs/query min/med': `${r.cypherUsMin} / ${r.cypherUsMedian}`,
    'BFS µs/query min/med': `${r.bfsUsMin} / ${r.bfsUsMedian}`,
    'ratio min/med': `${r.ratioMin} / ${r.ratioMedian}`, target: `≤ ${r.target}`,
  }]);
}
