/** One relationship step of a pattern, for a whole chunk of paths at once. */
import type { EdgeHit, EdgeRecord, NodeRecord } from '../../engine/index.ts';
import type { Direction, NodePattern, RelPattern } from '../language/ast.ts';
import { satisfies, type NodeConstraint } from './match-constraints.ts';
import { emptyPaths, valueAt, type PathStep, type Paths, type PatternPlan } from './match-paths.ts';
import { CHUNK_ROWS } from './row-stream.ts';
import type { RunContext } from './run-context.ts';
import { EdgeRef, NodeRef, compareCodePoints } from './values.ts';

export interface ExpandPlan {
  readonly node: NodePattern;
  readonly rel: RelPattern;
  readonly direction: Direction;
  readonly relSlot: number;
  readonly relBound: boolean;
  /** The relationship's column, or -1 when nothing later reads it. */
  readonly relColumn: number;
  readonly partners: readonly number[];
  readonly nodeSlot: number;
  readonly nodeBound: boolean;
  readonly nodeColumn: number;
  readonly constraint: NodeConstraint;
  /** The pattern is read from its last node back: a variable-length step's list is reversed into pattern order. */
  readonly reversed?: boolean;
}

function sameEdge(a: EdgeRecord, b: EdgeRecord): boolean {
  return a.src === b.src && a.tgt === b.tgt && a.type === b.type;
}

/**
 * One relationship step for a whole chunk of paths: one engine call for the chunk's frontier, then
 * each path grows by its neighbours. A relationship nothing reads (unnamed or unused, and compared
 * with no other) takes the engine's record-in, list-out path and builds no edge objects.
 */
/** Whether `record` may end path p of a step: the node a bound variable holds, and the node pattern's constraint. */
export function stepNodeFits(plan: PatternPlan, e: ExpandPlan, record: NodeRecord, paths: Paths, p: number, ctx: RunContext): boolean {
  if (e.nodeBound) {
    const bound = valueAt(plan, paths, p, e.nodeSlot);
    if (!(bound instanceof NodeRef) || bound.id !== record.id) return false;
  }
  return satisfies(record, e.constraint, paths.input.rows[paths.parent[p]!]!, ctx, true);
}

export class Expand implements PathStep {
  readonly #p: ExpandPlan;
  readonly #ctx: RunContext;
  readonly #fast: boolean;
  plan!: PatternPlan;

  constructor(p: ExpandPlan, ctx: RunContext) {
    this.#p = p;
    this.#ctx = ctx;
    this.#fast = p.relColumn < 0 && !p.relBound && p.partners.length === 0 && p.rel.types.length <= 1;
  }

  run(paths: Paths): Generator<Paths, void, undefined> {
    if (this.#p.constraint.impossible) return none();
    return this.#fast ? this.#runNodes(paths) : this.#runEdges(paths);
  }

  #nodeFits(record: NodeRecord, paths: Paths, p: number): boolean {
    return stepNodeFits(this.plan, this.#p, record, paths, p, this.#ctx);
  }

  /** Extends path p to `record` (over `edge` when the relationship has a column). */
  #push(out: Paths, paths: Paths, p: number, record: NodeRecord, edge: EdgeRecord | null): void {
    const e = this.#p;
    out.parent.push(paths.parent[p]!);
    out.at.push(record);
    const cols = paths.cols;
    for (let k = 0; k < cols.length; k++) {
      out.cols[k]!.push(k === e.nodeColumn ? new NodeRef(record) : k === e.relColumn ? new EdgeRef(edge!) : cols[k]![p]);
    }
  }

  *#runNodes(paths: Paths): Generator<Paths, void, undefined> {
    const e = this.#p;
    const budget = this.#ctx.budget;
    const lists = this.#ctx.view.expandEach(paths.at, e.rel.types[0] ?? null, e.direction);
    const c = e.constraint;
    const simple = !e.nodeBound && c.label === null && c.constants.length === 0 && c.perRow.length === 0;
    const columns = paths.cols.length;
    let out = emptyPaths(paths.input, columns);
    for (let p = 0; p < lists.length; p++) {
      const list = lists[p]!;
      if (simple && columns === 0) {
        // The common inner loop: every neighbour extends the path, and nothing but the node is kept.
        budget.addRows(list.length);
        const parent = paths.parent[p]!;
        for (let j = 0; j < list.length; j++) {
          out.parent.push(parent);
          out.at.push(list[j]!);
        }
      } else {
        for (let j = 0; j < list.length; j++) {
          const record = list[j]!;
          if (!simple && !this.#nodeFits(record, paths, p)) {
            budget.tick();
            continue;
          }
          budget.addRows(1);
          this.#push(out, paths, p, record, null);
        }
      }
      if (out.parent.length >= CHUNK_ROWS || budget.yieldDue) {
        yield out;
        out = emptyPaths(paths.input, columns);
      }
    }
    if (out.parent.length > 0) yield out;
  }

  *#runEdges(paths: Paths): Generator<Paths, void, undefined> {
    const e = this.#p;
    const budget = this.#ctx.budget;
    const ids = new Set<string>();
    // Indexed loops here: a for-of over an array inside a generator calls the array iterator's next() per item.
    for (let p = 0; p < paths.at.length; p++) ids.add(paths.at[p]!.id);
    const hitsById = expandFrontier([...ids], e.rel, e.direction, this.#ctx);
    let out = emptyPaths(paths.input, paths.cols.length);
    for (let p = 0; p < paths.at.length; p++) {
      const hits = hitsById.get(paths.at[p]!.id);
      if (!hits) continue;
      for (let h = 0; h < hits.length; h++) {
        const hit = hits[h]!;
        if (!this.#edgeFits(hit.edge, paths, p) || !this.#nodeFits(hit.node, paths, p)) {
          budget.tick();
          continue;
        }
        budget.addRows(1);
        this.#push(out, paths, p, hit.node, hit.edge);
      }
      if (out.parent.length >= CHUNK_ROWS || budget.yieldDue) {
        yield out;
        out = emptyPaths(paths.input, paths.cols.length);
      }
    }
    if (out.parent.length > 0) yield out;
  }

  /** A bound relationship must be this edge; Cypher never binds one relationship twice in a MATCH. */
  #edgeFits(edge: EdgeRecord, paths: Paths, p: number): boolean {
    const e = this.#p;
    if (e.relBound) {
      const bound = valueAt(this.plan, paths, p, e.relSlot);
      if (!(bound instanceof EdgeRef) || !sameEdge(bound.edge, edge)) return false;
    }
    for (const slot of e.partners) {
      const other = valueAt(this.plan, paths, p, slot);
      if (other instanceof EdgeRef && sameEdge(other.edge, edge)) return false;
      // A variable-length partner holds its relationships as a list.
      if (Array.isArray(other)) for (const r of other) if (r instanceof EdgeRef && sameEdge(r.edge, edge)) return false;
    }
    return true;
  }
}

function* none(): Generator<Paths, void, undefined> {
  // Nothing can match: no paths.
}

/** One whole-frontier expand per relationship type; several types are merged in (neighbour id, type) order. */
export function expandFrontier(frontier: string[], rel: RelPattern, direction: Direction, ctx: RunContext): Map<string, readonly EdgeHit[]> {
  if (rel.types.length <= 1) return ctx.view.edges(frontier, rel.types[0] ?? null, direction);
  const merged = new Map<string, EdgeHit[]>();
  for (const type of new Set(rel.types)) {
    for (const [id, hits] of ctx.view.edges(frontier, type, direction)) {
      const list = merged.get(id);
      if (list) list.push(...hits);
      else merged.set(id, [...hits]);
    }
  }
  for (const list of merged.values()) {
    list.sort((a, b) => compareCodePoints(a.node.id, b.node.id) || compareCodePoints(a.edge.type, b.edge.type));
  }
  return merged;
}
