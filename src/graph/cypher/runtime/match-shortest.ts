/**
 * shortestPath((a)-[*]-(b)) and allShortestPaths(...) in MATCH: both ends are matched as node
 * patterns (bound, labelled, with properties, or scanned), then a breadth-first search per row
 * finds the shortest paths between them through the caller's view. Bounded by the budget: the
 * frontier and the visited set are charged before they grow, every relationship tried ticks, and
 * every path made is a row charged by its size.
 */
import type { EdgeHit, EdgeRecord, NodeRecord } from '../../engine/index.ts';
import type { Pattern } from '../language/ast.ts';
import type { Pushdown } from '../plan/match-plan.ts';
import { expandFrontier } from './match-expand.ts';
import { chargePath } from './match-named-path.ts';
import { matchPattern } from './match-pattern.ts';
import type { Chunk, ChunkStream } from './row-stream.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import { LIST_SLOT_BYTES } from './value-size.ts';
import { EdgeRef, NodeRef, PathRef } from './values.ts';

/** How a node was first reached: the nodes one hop nearer the start and the relationship from each. */
interface Reached {
  readonly depth: number;
  readonly from: { readonly node: NodeRecord; readonly edge: EdgeRecord }[];
}

/** Bytes one visited node holds: its entry, one predecessor and the frontier slot. */
const VISITED_BYTES = 6 * LIST_SLOT_BYTES;

export function* matchShortest(pattern: Pattern, input: ChunkStream, ctx: RunContext, pushdown: Pushdown): ChunkStream {
  const step = pattern.steps[0]!;
  const from: Pattern = { start: pattern.start, steps: [], offset: pattern.offset };
  const to: Pattern = { start: step.node, steps: [], offset: pattern.offset };
  const ends = matchPattern(to, matchPattern(from, input, ctx, pushdown), ctx, pushdown);
  const startSlot = ctx.layout.nodeSlot(pattern.start);
  const endSlot = ctx.layout.nodeSlot(step.node);
  const relSlot = ctx.layout.relSlot(step.rel);
  const pathSlot = pattern.path === undefined ? -1 : slotOf(ctx, pattern.path);
  const all = pattern.shortest === 'all';
  const min = step.rel.length?.min ?? 1;
  const max = step.rel.length === undefined ? 1 : (step.rel.length.max ?? Infinity);
  for (const chunk of ends) {
    let rows: Row[] = [];
    let origins: number[] = [];
    for (let i = 0; i < chunk.rows.length; i++) {
      // Between searches, the driver may pause when the budget asks.
      if (ctx.budget.yieldDue) {
        yield { rows, origins };
        rows = [];
        origins = [];
      }
      const row = chunk.rows[i]!;
      const a = row[startSlot];
      const b = row[endSlot];
      if (!(a instanceof NodeRef) || !(b instanceof NodeRef)) continue;
      for (const path of shortestPaths(pattern, a, b, min, max, all, ctx)) {
        ctx.budget.addRows(1);
        const out = row.slice();
        if (relSlot >= 0) out[relSlot] = step.rel.length === undefined ? path.edges[0]! : path.edges.slice();
        if (pathSlot >= 0) out[pathSlot] = path;
        rows.push(out);
        origins.push(chunk.origins[i]!);
      }
    }
    yield { rows, origins } satisfies Chunk;
  }
}

/** The shortest paths from a to b (one, or all of the shortest length), of at least min and at most max hops. */
function shortestPaths(pattern: Pattern, a: NodeRef, b: NodeRef, min: number, max: number, all: boolean, ctx: RunContext): PathRef[] {
  if (a.id === b.id) {
    if (min > 0) return [];
    chargePath(ctx.budget, 0);
    return [new PathRef([a], [])];
  }
  const step = pattern.steps[0]!;
  const budget = ctx.budget;
  const reached = new Map<string, Reached>();
  budget.chargeBytes(VISITED_BYTES);
  reached.set(a.id, { depth: 0, from: [] });
  let frontier: NodeRecord[] = [a.record];
  let found = false;
  for (let depth = 1; depth <= max && frontier.length > 0 && !found; depth++) {
    const hits: Map<string, readonly EdgeHit[]> = expandFrontier(frontier.map((n) => n.id), step.rel, step.rel.direction, ctx);
    const next: NodeRecord[] = [];
    for (const node of frontier) {
      for (const hit of hits.get(node.id) ?? []) {
        budget.tick();
        const seen = reached.get(hit.node.id);
        if (seen === undefined) {
          budget.chargeBytes(VISITED_BYTES);
          reached.set(hit.node.id, { depth, from: [{ node, edge: hit.edge }] });
          next.push(hit.node);
        } else if (all && seen.depth === depth) {
          budget.chargeBytes(2 * LIST_SLOT_BYTES);
          seen.from.push({ node, edge: hit.edge });
        }
        if (hit.node.id === b.id) found = true;
      }
    }
    frontier = next;
  }
  if (!found) return [];
  const out: PathRef[] = [];
  const target = reached.get(b.id)!;
  // Back from b through the predecessors: one chain, or every chain (each charged as it is made).
  const walk = (id: string, record: NodeRecord, nodes: NodeRef[], edges: EdgeRef[]): void => {
    const entry = reached.get(id)!;
    if (entry.depth === 0) {
      chargePath(budget, edges.length);
      out.push(new PathRef([new NodeRef(record), ...nodes], edges.slice()));
      return;
    }
    for (const pred of all ? entry.from : entry.from.slice(0, 1)) {
      budget.tick();
      nodes.unshift(new NodeRef(record));
      edges.unshift(new EdgeRef(pred.edge));
      walk(pred.node.id, pred.node, nodes, edges);
      nodes.shift();
      edges.shift();
    }
  };
  if (target.depth >= min) walk(b.id, b.record, [], []);
  return out;
}
