/**
 * A variable-length relationship step (`-[:T*1..3]->`): a depth-first walk from each path's node,
 * with relationship uniqueness per path (and against the other relationships of the MATCH). The walk
 * is bounded by the statement's budget alone: a tick per edge visited, a row per path produced, and
 * its stack charged by bytes before it grows; it pauses between pieces when the budget asks.
 */
import type { EdgeHit, EdgeRecord, NodeRecord } from '../../engine/index.ts';
import { runtimeError } from '../language/cypher-error.ts';
import { expandFrontier, stepNodeFits, type ExpandPlan } from './match-expand.ts';
import { emptyPaths, valueAt, type PathStep, type Paths, type PatternPlan } from './match-paths.ts';
import { CHUNK_ROWS } from './row-stream.ts';
import type { RunContext } from './run-context.ts';
import { LIST_SLOT_BYTES } from './value-size.ts';
import { EdgeRef, NodeRef, type Value } from './values.ts';

/** One frame of the walk: the node reached, the edge taken to it (null at the start), the next neighbour to try. */
interface Frame {
  readonly node: NodeRecord;
  readonly edge: EdgeRecord | null;
  readonly key: string;
  hits: readonly EdgeHit[] | null;
  next: number;
}

/** Bytes one frame holds besides its key: node, edge, hits and counter slots (8 bytes per slot). */
const FRAME_BYTES = 4 * LIST_SLOT_BYTES;

function edgeKey(edge: EdgeRecord): string {
  return `${edge.src}\u0000${edge.tgt}\u0000${edge.type}`;
}

const NO_HITS: readonly EdgeHit[] = [];

export class VarExpand implements PathStep {
  readonly #p: ExpandPlan;
  readonly #ctx: RunContext;
  readonly #min: number;
  readonly #max: number;
  /** Neighbours by node id, fetched once per step (a hub is revisited at every depth), charged by bytes. */
  readonly #neighbours = new Map<string, readonly EdgeHit[]>();
  /** The uniqueness key of each edge in #neighbours' lists, made once with the list. */
  readonly #keys = new Map<string, readonly string[]>();
  plan!: PatternPlan;

  constructor(p: ExpandPlan, ctx: RunContext) {
    this.#p = p;
    this.#ctx = ctx;
    this.#min = p.rel.length!.min;
    this.#max = p.rel.length!.max ?? Infinity;
  }

  *run(paths: Paths): Generator<Paths, void, undefined> {
    const e = this.#p;
    if (e.constraint.impossible) return;
    // An empty hop range (`*2..1`) matches nothing, as in Cypher.
    if (this.#max < this.#min) return;
    const budget = this.#ctx.budget;
    let out = emptyPaths(paths.input, paths.cols.length);
    if (e.relBound) {
      for (let p = 0; p < paths.at.length; p++) {
        const stack = this.#boundWalk(paths, p);
        if (stack === null) continue;
        budget.addRows(1);
        this.#push(out, paths, p, stack[stack.length - 1]!.node, stack);
      }
      if (out.parent.length > 0) yield out;
      return;
    }
    for (let p = 0; p < paths.at.length; p++) {
      // Keys of the edges on the current path, and of those the MATCH's other relationships bound.
      const onPath = new Set<string>();
      for (const edge of this.#takenElsewhere(paths, p)) onPath.add(edgeKey(edge));
      budget.chargeBytes(FRAME_BYTES);
      const stack: Frame[] = [{ node: paths.at[p]!, edge: null, key: '', hits: null, next: 0 }];
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        const depth = stack.length - 1;
        if (top.hits === null) {
          // First visit: emit when long enough, then fetch the neighbours when another hop is allowed.
          if (depth >= this.#min && this.#nodeFits(top.node, paths, p)) {
            budget.addRows(1);
            this.#push(out, paths, p, top.node, stack);
            if (out.parent.length >= CHUNK_ROWS || budget.yieldDue) {
              yield out;
              out = emptyPaths(paths.input, paths.cols.length);
            }
          }
          budget.tick();
          top.hits = depth < this.#max ? this.#hitsOf(top.node) : NO_HITS;
        }
        if (top.next >= top.hits.length) {
          stack.pop();
          onPath.delete(top.key);
          continue;
        }
        const k = top.next++;
        const hit = top.hits[k]!;
        budget.tick();
        if (budget.yieldDue) {
          yield out;
          out = emptyPaths(paths.input, paths.cols.length);
        }
        const key = this.#keys.get(top.node.id)![k]!;
        if (onPath.has(key)) continue;
        budget.chargeBytes(FRAME_BYTES);
        onPath.add(key);
        stack.push({ node: hit.node, edge: hit.edge, key, hits: null, next: 0 });
      }
    }
    if (out.parent.length > 0) yield out;
  }

  #hitsOf(node: NodeRecord): readonly EdgeHit[] {
    let hits = this.#neighbours.get(node.id);
    if (hits === undefined) {
      hits = expandFrontier([node.id], this.#p.rel, this.#p.direction, this.#ctx).get(node.id) ?? NO_HITS;
      let bytes = LIST_SLOT_BYTES * (2 * hits.length + 4);
      for (const hit of hits) bytes += hit.edge.src.length + hit.edge.tgt.length + hit.edge.type.length + 2;
      this.#ctx.budget.chargeBytes(bytes);
      this.#neighbours.set(node.id, hits);
      this.#keys.set(node.id, hits.map((hit) => edgeKey(hit.edge)));
    }
    return hits;
  }

  /**
   * A bound relationship list (`WITH [r1, r2] AS rs MATCH (a)-[rs*]->(b)`) matches exactly that
   * list: walked from path p's node, each relationship must be one of the node's neighbours through
   * the view (of the step's types and direction), none twice nor bound elsewhere in the MATCH, and
   * the hops within the range. The frames of the walk, or null when the list does not match.
   */
  #boundWalk(paths: Paths, p: number): Frame[] | null {
    const e = this.#p;
    const bound: Value | undefined = valueAt(this.plan, paths, p, e.relSlot);
    if (bound === null || bound === undefined) return null;
    if (!Array.isArray(bound)) throw runtimeError(`Variable \`${e.rel.variable}\` is used as a relationship list but holds a ${bound instanceof NodeRef ? 'node' : 'value'}.`);
    const list = bound as readonly Value[];
    if (list.length < this.#min || list.length > this.#max) return null;
    const budget = this.#ctx.budget;
    budget.chargeBytes(FRAME_BYTES * (list.length + 1));
    const taken = new Set<string>();
    for (const edge of this.#takenElsewhere(paths, p)) taken.add(edgeKey(edge));
    const stack: Frame[] = [{ node: paths.at[p]!, edge: null, key: '', hits: null, next: 0 }];
    // The list is in pattern order; a pattern read from its far end walks it from its last relationship.
    for (let i = 0; i < list.length; i++) {
      const item = list[e.reversed ? list.length - 1 - i : i]!;
      if (!(item instanceof EdgeRef)) throw runtimeError(`Variable \`${e.rel.variable}\` is used as a relationship list but holds a ${item === null ? 'null' : 'value that is not a relationship'}.`);
      const key = edgeKey(item.edge);
      if (taken.has(key)) return null;
      const at = stack[stack.length - 1]!.node;
      const hits = this.#hitsOf(at);
      const keys = this.#keys.get(at.id)!;
      budget.tick(hits.length);
      const k = keys.indexOf(key);
      if (k < 0) return null;
      taken.add(key);
      stack.push({ node: hits[k]!.node, edge: hits[k]!.edge, key, hits: null, next: 0 });
    }
    return this.#nodeFits(stack[stack.length - 1]!.node, paths, p) ? stack : null;
  }

  /** Edges the other relationships of this MATCH already bound on path p: none of them may be walked again. */
  #takenElsewhere(paths: Paths, p: number): EdgeRecord[] {
    const out: EdgeRecord[] = [];
    for (const slot of this.#p.partners) {
      const other: Value | undefined = valueAt(this.plan, paths, p, slot);
      if (other instanceof EdgeRef) out.push(other.edge);
      else if (Array.isArray(other)) for (const r of other) if (r instanceof EdgeRef) out.push(r.edge);
    }
    return out;
  }

  #nodeFits(record: NodeRecord, paths: Paths, p: number): boolean {
    return stepNodeFits(this.plan, this.#p, record, paths, p, this.#ctx);
  }

  #push(out: Paths, paths: Paths, p: number, record: NodeRecord, stack: readonly Frame[]): void {
    const e = this.#p;
    out.parent.push(paths.parent[p]!);
    out.at.push(record);
    const cols = paths.cols;
    for (let k = 0; k < cols.length; k++) {
      if (k === e.nodeColumn) out.cols[k]!.push(new NodeRef(record));
      else if (k === e.relColumn) {
        this.#ctx.budget.chargeBytes(LIST_SLOT_BYTES * stack.length);
        const list: Value[] = [];
        for (let i = 1; i < stack.length; i++) list.push(new EdgeRef(stack[i]!.edge!));
        out.cols[k]!.push(e.reversed ? list.reverse() : list);
      } else out.cols[k]!.push(cols[k]![p]);
    }
  }
}
