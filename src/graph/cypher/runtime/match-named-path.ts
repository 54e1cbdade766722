/** Named paths (`p = (a)-[*]->(b)`): the path value a matched pattern's row spells out, node by node. */
import type { Pattern } from '../language/ast.ts';
import type { QueryBudget } from '../../budget/index.ts';
import type { Chunk } from './row-stream.ts';
import type { Row, RunContext } from './run-context.ts';
import { LIST_SLOT_BYTES } from './value-size.ts';
import { EdgeRef, NodeRef, PathRef, type Value } from './values.ts';

/**
 * Charges `edges` relationships (and the node after each) of a path before they are added to it:
 * two list slots each, and one unit of work each.
 */
export function chargePath(budget: QueryBudget, edges: number): void {
  budget.chargeBytes(LIST_SLOT_BYTES * (2 * edges + 1));
  budget.tick(edges + 1);
}

/**
 * The path of one row: the pattern's nodes and relationships read from their slots, a
 * variable-length step's list walked from the node before it (each relationship's other end is the
 * next node, read through the caller's view). Null when a node on it is not in the view (a walk
 * only reaches nodes the view shows, so only a node deleted meanwhile can be missing).
 */
function pathOfRow(pattern: Pattern, row: Row, ctx: RunContext): PathRef | null {
  const layout = ctx.layout;
  const first = row[layout.nodeSlot(pattern.start)];
  if (!(first instanceof NodeRef)) return null;
  const nodes: NodeRef[] = [first];
  const edges: EdgeRef[] = [];
  let at = first;
  for (const step of pattern.steps) {
    const rel: Value | undefined = row[layout.relSlot(step.rel)];
    const hops: readonly Value[] = Array.isArray(rel) ? rel : [rel ?? null];
    chargePath(ctx.budget, hops.length);
    for (const hop of hops) {
      if (!(hop instanceof EdgeRef)) return null;
      const next = hop.edge.src === at.id ? hop.edge.tgt : hop.edge.src;
      const record = ctx.view.node(next);
      if (record === undefined || record === null) return null;
      at = new NodeRef(record);
      edges.push(hop);
      nodes.push(at);
    }
    const end = row[layout.nodeSlot(step.node)];
    if (!(end instanceof NodeRef) || end.id !== at.id) return null;
    nodes[nodes.length - 1] = end;
  }
  return new PathRef(nodes, edges);
}

/** The rows of a chunk of complete matches with the pattern's path bound (rows whose path is gone dropped). */
export function bindPaths(pattern: Pattern, slot: number, chunk: Chunk, ctx: RunContext): Chunk {
  const rows: Row[] = [];
  const origins: number[] = [];
  for (let i = 0; i < chunk.rows.length; i++) {
    const path = pathOfRow(pattern, chunk.rows[i]!, ctx);
    if (path === null) continue;
    const row = chunk.rows[i]!.slice();
    row[slot] = path;
    rows.push(row);
    origins.push(chunk.origins[i]!);
  }
  return { rows, origins };
}
