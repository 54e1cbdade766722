/**
 * List comprehensions, quantifiers and reduce: expressions with local variables. Each evaluation
 * binds its local (and reduce's accumulator) in a copy of the row, made once per evaluation, so the
 * row itself never holds it: an outer variable of the same name keeps its value for the rest of the
 * row, and nothing else sees the local. A body that runs a subquery gets a fresh copy per item,
 * because subquery results are cached by row object (match-subqueries.ts): comprehensions and
 * quantifiers make those rows a batch at a time and compute the batch's subqueries together (one
 * expansion per pattern step for the batch, as for a chunk of MATCH rows); reduce, whose next row
 * depends on the last, runs them item by item.
 *
 * Bounds: the items are told to the budget before they are visited, in batches, as many units each as
 * the body weighs, so a million-item list with a heavy body is stopped by the time budget (one
 * evaluation cannot pause, so the clock readings of these ticks are what stop it). A comprehension's
 * output list is charged a slot per item before it grows; what the body builds charges itself (`+`).
 */
import type { Expr } from '../language/ast.ts';
import { runtimeError } from '../language/cypher-error.ts';
import { forEachOperand } from '../language/expr-operands.ts';
import { exprWeight } from '../plan/expr-weight.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import { LIST_SLOT_BYTES } from './value-size.ts';
import { typeName, type Value } from './values.ts';

type Evaluate = (expr: Expr, row: Row, ctx: RunContext) => Value;
type ListComprehension = Extract<Expr, { kind: 'listComprehension' }>;
type QuantifierExpr = Extract<Expr, { kind: 'quantifier' }>;
type ReduceExpr = Extract<Expr, { kind: 'reduce' }>;
type ScopedExpr = ListComprehension | QuantifierExpr | ReduceExpr;

/** Items told to the budget at once, before any of them is visited. */
const BATCH = 256;

const itemWeights = new WeakMap<ScopedExpr, number>();

/** Units of work one list item takes: one for the item, and the weight of the body that runs for it. */
function itemWeight(expr: ScopedExpr): number {
  let weight = itemWeights.get(expr);
  if (weight === undefined) {
    weight = 1;
    if (expr.kind === 'reduce') weight += exprWeight(expr.body);
    else {
      if (expr.where !== null) weight += exprWeight(expr.where);
      if (expr.kind === 'listComprehension' && expr.projection !== null) weight += exprWeight(expr.projection);
    }
    itemWeights.set(expr, weight);
  }
  return weight;
}

function hasSubquery(expr: Expr): boolean {
  switch (expr.kind) {
    case 'patternComprehension': case 'patternPredicate': case 'existsSubquery': case 'countSubquery':
      return true;
    default: {
      let found = false;
      forEachOperand(expr, (operand) => {
        found ||= hasSubquery(operand);
      });
      return found;
    }
  }
}

const freshRows = new WeakMap<ScopedExpr, boolean>();

/** Whether the body runs a subquery, so each item needs a row object of its own. */
function needsFreshRows(expr: ScopedExpr): boolean {
  let fresh = freshRows.get(expr);
  if (fresh === undefined) {
    const body = expr.kind === 'reduce' ? [expr.body] : expr.kind === 'quantifier' ? [expr.where] : [expr.where, expr.projection];
    fresh = body.some((e) => e !== null && hasSubquery(e));
    freshRows.set(expr, fresh);
  }
  return fresh;
}

function typeError(where: string, expected: string, got: Value): Error {
  return runtimeError(`Type error in ${where}: expected ${expected}, got ${typeName(got)}.`, { expected, got: typeName(got) });
}

/** The list operand: null stays null (the whole expression is then null); anything else but a list is a type error. */
function listOf(value: Value, where: string): readonly Value[] | null {
  if (value === null) return null;
  if (!Array.isArray(value)) throw typeError(where, 'a list', value);
  return value as readonly Value[];
}

function predicate(value: Value, where: string): boolean | null {
  if (value === null || typeof value === 'boolean') return value;
  throw typeError(where, 'a boolean predicate', value);
}

/** The slot of a local (slots.ts gives every local's name one). */
function localSlot(ctx: RunContext, name: string): number {
  const slot = slotOf(ctx, name);
  if (slot < 0) throw new Error(`No slot for the local variable ${name}: the slot layout missed an expression.`);
  return slot;
}

/** Copies of `row` binding `slot` to the items start..end-1, with the subqueries of `exprs` computed for all of them. */
function itemRows(row: Row, slot: number, list: readonly Value[], start: number, end: number, exprs: readonly Expr[], ctx: RunContext): Row[] {
  const rows: Row[] = [];
  for (let i = start; i < end; i++) {
    const r = row.slice();
    r[slot] = list[i]!;
    rows.push(r);
  }
  if (exprs.length > 0) ctx.prepare(exprs, rows);
  return rows;
}

/** A comprehension whose body runs subqueries: a batch of item rows at a time, their subqueries together. */
function comprehendInBatches(expr: ListComprehension, list: readonly Value[], row: Row, ctx: RunContext, evaluate: Evaluate): Value[] {
  const { where, projection } = expr;
  const budget = ctx.budget;
  const slot = localSlot(ctx, expr.variable);
  const weight = itemWeight(expr);
  const out: Value[] = [];
  for (let start = 0; start < list.length; start += BATCH) {
    const end = Math.min(list.length, start + BATCH);
    budget.tick((end - start) * weight);
    let rows = itemRows(row, slot, list, start, end, where === null ? [] : [where], ctx);
    if (where !== null) {
      const kept: Row[] = [];
      for (let i = 0; i < rows.length; i++) {
        if (predicate(evaluate(where, rows[i]!, ctx), 'the WHERE of a list comprehension') !== true) continue;
        budget.chargeBytes(LIST_SLOT_BYTES);
        kept.push(rows[i]!);
      }
      rows = kept;
    }
    if (projection === null) for (let i = 0; i < rows.length; i++) out.push(rows[i]![slot]!);
    else {
      ctx.prepare([projection], rows);
      for (let i = 0; i < rows.length; i++) out.push(evaluate(projection, rows[i]!, ctx));
    }
  }
  return out;
}

/** `[x IN list WHERE pred | projection]`: the items for which pred is true (null drops one), projected. */
export function evaluateComprehension(expr: ListComprehension, row: Row, ctx: RunContext, evaluate: Evaluate): Value {
  const list = listOf(evaluate(expr.list, row, ctx), 'a list comprehension');
  if (list === null) return null;
  const { where, projection } = expr;
  // `[x IN list]` is the list itself: nothing to build.
  if (where === null && projection === null) return list as Value;
  const budget = ctx.budget;
  const n = list.length;
  // Without WHERE the output is as long as the list: charged whole before it grows; with one, per kept item.
  budget.chargeBytes(where === null ? n * LIST_SLOT_BYTES + 2 : 2);
  if (needsFreshRows(expr)) return comprehendInBatches(expr, list, row, ctx, evaluate);
  const slot = localSlot(ctx, expr.variable);
  const weight = itemWeight(expr);
  const out: Value[] = [];
  const scope = row.slice();
  for (let i = 0; i < n; i++) {
    if ((i & (BATCH - 1)) === 0) budget.tick(Math.min(BATCH, n - i) * weight);
    const item = list[i]!;
    scope[slot] = item;
    if (where !== null) {
      if (predicate(evaluate(where, scope, ctx), 'the WHERE of a list comprehension') !== true) continue;
      budget.chargeBytes(LIST_SLOT_BYTES);
    }
    out.push(projection === null ? item : evaluate(projection, scope, ctx));
  }
  return out;
}

/**
 * `all`, `any`, `none` and `single(x IN list WHERE pred)` in three-valued logic: a null predicate is
 * unknown, and decides the answer only when the known ones do not (any: true if some item is true,
 * else null if some is null, else false; all and none alike; single: false past a second true).
 */
export function evaluateQuantifier(expr: QuantifierExpr, row: Row, ctx: RunContext, evaluate: Evaluate): Value {
  const q = expr.quantifier;
  const list = listOf(evaluate(expr.list, row, ctx), `${q}()`);
  if (list === null) return null;
  const budget = ctx.budget;
  const n = list.length;
  const slot = localSlot(ctx, expr.variable);
  const fresh = needsFreshRows(expr);
  const weight = itemWeight(expr);
  const where = expr.where;
  let trues = 0;
  let unknown = false;
  const scope = row.slice();
  // With subqueries in the predicate, a batch of item rows at a time with their subqueries computed together.
  let batch: Row[] = [];
  for (let i = 0; i < n; i++) {
    if ((i & (BATCH - 1)) === 0) {
      budget.tick(Math.min(BATCH, n - i) * weight);
      if (fresh) batch = itemRows(row, slot, list, i, Math.min(n, i + BATCH), [where], ctx);
    }
    let item: Row = scope;
    if (fresh) item = batch[i & (BATCH - 1)]!;
    else scope[slot] = list[i]!;
    const v = predicate(evaluate(where, item, ctx), `the WHERE of ${q}()`);
    if (v === null) unknown = true;
    else if (v) {
      trues++;
      if (q === 'any') return true;
      if (q === 'none' || (q === 'single' && trues > 1)) return false;
    } else if (q === 'all') return false;
  }
  if (unknown) return null;
  switch (q) {
    case 'all': case 'none': return true;
    case 'any': return false;
    case 'single': return trues === 1;
  }
}

/** `reduce(acc = init, x IN list | body)`: the body's value for each item becomes the accumulator. */
export function evaluateReduce(expr: ReduceExpr, row: Row, ctx: RunContext, evaluate: Evaluate): Value {
  const init = evaluate(expr.init, row, ctx);
  const list = listOf(evaluate(expr.list, row, ctx), 'reduce()');
  if (list === null) return null;
  const budget = ctx.budget;
  const n = list.length;
  const accumulator = localSlot(ctx, expr.accumulator);
  const variable = localSlot(ctx, expr.variable);
  const fresh = needsFreshRows(expr);
  const weight = itemWeight(expr);
  let acc = init;
  let scope = row.slice();
  for (let i = 0; i < n; i++) {
    if ((i & (BATCH - 1)) === 0) budget.tick(Math.min(BATCH, n - i) * weight);
    if (fresh && i > 0) scope = row.slice();
    scope[accumulator] = acc;
    scope[variable] = list[i]!;
    acc = evaluate(expr.body, scope, ctx);
  }
  return acc;
}
