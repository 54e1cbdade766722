/** Planning a pattern: which end to start from (WHERE equalities pushed down into the scan), which slots get columns. */
import type { Direction, Expr, NodePattern, Pattern, RelPattern } from '../language/ast.ts';
import { constraintOf } from '../runtime/match-constraints.ts';
import { Expand, type ExpandPlan } from '../runtime/match-expand.ts';
import type { PatternPlan } from '../runtime/match-paths.ts';
import { BoundStart, ScanStart } from '../runtime/match-start.ts';
import { VarExpand } from '../runtime/match-var-expand.ts';
import type { Row, RunContext } from '../runtime/run-context.ts';
import type { SlotLayout } from './slots.ts';

/** Equalities `v.key = constant` from the WHERE clause, usable as scan filters for v. */
export type Pushdown = ReadonlyMap<string, ReadonlyMap<string, Expr>>;

export const EMPTY_PUSHDOWN: Pushdown = new Map();

/** Top-level `v.key = constant` conjuncts of a WHERE clause (a parameter or literal on one side). */
export function pushdownOf(where: Expr): Pushdown {
  const out = new Map<string, Map<string, Expr>>();
  const conjuncts = where.kind === 'and' ? where.operands : [where];
  for (const c of conjuncts) {
    if (c.kind !== 'comparison' || c.rest.length !== 1 || c.rest[0]!.op !== '=') continue;
    const sides: [Expr, Expr][] = [[c.first, c.rest[0]!.expr], [c.rest[0]!.expr, c.first]];
    for (const [prop, constant] of sides) {
      if (prop.kind !== 'property' || prop.target.kind !== 'variable') continue;
      if (constant.kind !== 'literal' && constant.kind !== 'parameter') continue;
      const name = prop.target.name;
      let entry = out.get(name);
      if (!entry) out.set(name, (entry = new Map()));
      if (!entry.has(prop.key)) entry.set(prop.key, constant);
      break;
    }
  }
  return out;
}

function flip(direction: Direction): Direction {
  return direction === 'out' ? 'in' : direction === 'in' ? 'out' : 'both';
}

/** How cheap a node is to start from: bound beats property-filtered beats labelled beats bare. */
function startScore(node: NodePattern, bound: boolean, pushdown: Pushdown): number {
  if (bound) return 3;
  if (node.properties !== null || (node.variable !== null && pushdown.has(node.variable))) return 2;
  return node.label !== null ? 1 : 0;
}

/** The part of a pattern's plan that depends only on the statement: order, slots, columns. */
interface PatternShape {
  readonly start: NodePattern;
  readonly startSlot: number;
  readonly startBound: boolean;
  readonly startColumn: number;
  readonly tracked: readonly number[];
  readonly column: Int32Array;
  readonly steps: readonly (Omit<ExpandPlan, 'constraint'> & { readonly node: NodePattern })[];
}

/**
 * Shapes by pattern and by which of its slots arrive bound (always the same for one pattern of one
 * statement, so one entry each): a statement served from the statement cache plans no pattern again.
 */
const shapes = new WeakMap<Pattern, Map<string, PatternShape>>();

function shapeOf(pattern: Pattern, first: Row, layout: SlotLayout, pushdown: Pushdown): PatternShape {
  const own: number[] = [layout.nodeSlot(pattern.start)];
  for (const step of pattern.steps) own.push(layout.relSlot(step.rel), layout.nodeSlot(step.node));
  let key = '';
  for (const slot of own) key += slot >= 0 && first[slot] !== undefined ? '1' : '0';
  let byKey = shapes.get(pattern);
  if (byKey === undefined) shapes.set(pattern, (byKey = new Map()));
  let shape = byKey.get(key);
  if (shape === undefined) byKey.set(key, (shape = buildShape(pattern, first, layout, pushdown)));
  return shape;
}

function buildShape(pattern: Pattern, first: Row, layout: SlotLayout, pushdown: Pushdown): PatternShape {
  const isBound = (slot: number): boolean => first[slot] !== undefined;
  let nodes: NodePattern[] = [pattern.start, ...pattern.steps.map((s) => s.node)];
  let rels: RelPattern[] = pattern.steps.map((s) => s.rel);
  let directions: Direction[] = rels.map((r) => r.direction);
  const last = nodes[nodes.length - 1]!;
  // Start from whichever end is cheaper; reading the path backwards flips each direction.
  if (nodes.length > 1 && startScore(last, isBound(layout.nodeSlot(last)), pushdown) > startScore(pattern.start, isBound(layout.nodeSlot(pattern.start)), pushdown)) {
    nodes = nodes.reverse();
    rels = rels.reverse();
    directions = directions.reverse().map(flip);
  }
  const reversed = nodes[0] !== pattern.start;
  const bound = new Set<number>();
  for (let i = 0; i < first.length; i++) if (first[i] !== undefined) bound.add(i);
  // Columns for the live slots this pattern binds; everything else is read from the input row.
  const tracked: number[] = [];
  const column = new Int32Array(layout.width).fill(-1);
  const track = (slot: number): number => {
    if (slot < 0 || bound.has(slot) || !layout.isLive(slot)) return -1;
    if (column[slot] === -1) {
      column[slot] = tracked.length;
      tracked.push(slot);
    }
    return column[slot]!;
  };
  const start = nodes[0]!;
  const startSlot = layout.nodeSlot(start);
  const startBound = bound.has(startSlot);
  const startColumn = track(startSlot);
  bound.add(startSlot);
  const steps: PatternShape['steps'][number][] = [];
  for (let i = 0; i < rels.length; i++) {
    const rel = rels[i]!;
    const node = nodes[i + 1]!;
    const relSlot = layout.relSlot(rel);
    const nodeSlot = layout.nodeSlot(node);
    const relBound = relSlot >= 0 && bound.has(relSlot);
    const nodeBound = bound.has(nodeSlot);
    steps.push({
      rel, direction: directions[i]!, relSlot, relBound, relColumn: track(relSlot), partners: layout.partners(rel),
      node, nodeSlot, nodeBound, nodeColumn: track(nodeSlot), reversed,
    });
    if (relSlot >= 0) bound.add(relSlot);
    bound.add(nodeSlot);
  }
  return { start, startSlot, startBound, startColumn, tracked, column, steps };
}

/** A pattern's plan for one run: its shape, with the property constraints evaluated (parameters differ per run). */
export function planPattern(pattern: Pattern, first: Row, ctx: RunContext, pushdown: Pushdown): PatternPlan {
  const shape = shapeOf(pattern, first, ctx.layout, pushdown);
  const { start, startBound, tracked } = shape;
  const c = constraintOf(start, ctx, startBound || start.variable === null ? undefined : pushdown.get(start.variable));
  const steps = shape.steps.map((step) => {
    const p = { ...step, constraint: constraintOf(step.node, ctx, undefined) };
    // Variable-length steps get their own operator; one-hop steps keep Expand's fast paths.
    return step.rel.length ? new VarExpand(p, ctx) : new Expand(p, ctx);
  });
  const plan: PatternPlan = {
    tracked, column: shape.column,
    start: startBound ? new BoundStart(start, shape.startSlot, c, tracked.length, ctx) : new ScanStart(shape.startColumn, c, tracked.length, ctx),
    steps,
  };
  for (const step of steps) step.plan = plan;
  return plan;
}
