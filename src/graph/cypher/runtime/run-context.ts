import type { GraphView, NodeRecord } from '../../engine/index.ts';
import type { QueryBudget } from '../../budget/index.ts';
import type { Expr } from '../language/ast.ts';
import type { SlotLayout } from '../plan/slots.ts';
import type { NodeRef, Value } from './values.ts';

/**
 * Variable bindings of one result row, one entry per slot of the statement's SlotLayout; `undefined`
 * means "not bound here" (null is a bound null, as after an unmatched OPTIONAL MATCH).
 */
export type Row = readonly (Value | undefined)[];

/** Expressions that run a pattern: evaluated for a whole row set at once (see match.ts). */
export type SubqueryExpr = Extract<Expr, { kind: 'patternComprehension' | 'patternPredicate' | 'existsSubquery' | 'countSubquery' }>;

/** What evaluation needs besides the row: the graph, parameters, slots, the budget and per-run caches. */
export interface RunContext {
  readonly view: GraphView;
  readonly params: ReadonlyMap<string, Value>;
  readonly layout: SlotLayout;
  readonly budget: QueryBudget;
  /** The current state of a bound node: live view, the statement's own pending writes, or null once deleted. */
  resolve(ref: NodeRef): NodeRecord | null;
  /** Results of pattern comprehensions and predicates computed for a whole row set (keyed by row). */
  readonly prepared: Map<SubqueryExpr, WeakMap<Row, Value>>;
  /** Evaluates a pattern comprehension or predicate for one row that was not prepared in bulk. */
  subquery(expr: SubqueryExpr, row: Row): Value;
  /**
   * Computes the subqueries of `exprs` for all `rows` at once into `prepared`, without pauses: for rows
   * made inside one evaluation (a list comprehension's items, a batch at a time).
   */
  prepare(exprs: readonly Expr[], rows: readonly Row[]): void;
  /** Aggregate results of the current group while projecting an aggregating RETURN. */
  aggregates: ReadonlyMap<Expr, Value> | null;
}

/** The slot of a variable (checkQuery made sure it is defined, so every name has one). */
export function slotOf(ctx: RunContext, name: string): number {
  const slot = ctx.layout.slots.get(name);
  return slot === undefined ? -1 : slot;
}
