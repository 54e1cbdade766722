/**
 * Pattern comprehensions and predicates, computed for a whole set of rows at once, and the WHERE
 * filter that prepares them per chunk. Both run matchPattern, so both live here (no import cycle).
 */
import type { Expr } from '../language/ast.ts';
import { asBoolean, evaluate } from './evaluate.ts';
import { forEachOperand } from '../language/expr-operands.ts';
import { exprWeight } from '../plan/expr-weight.ts';
import { EMPTY_PUSHDOWN, pushdownOf } from '../plan/match-plan.ts';
import { matchPattern, NOTHING_YET } from './match-pattern.ts';
import { chunksOf, type ChunkStream } from './row-stream.ts';
import type { Row, RunContext, SubqueryExpr } from './run-context.ts';
import { chargeValue } from './value-size.ts';
import type { Value } from './values.ts';

/** Keeps the rows WHERE holds for, with the WHERE's subqueries prepared chunk by chunk. */
export function* filterWhere(where: Expr, input: ChunkStream, ctx: RunContext): ChunkStream {
  for (const chunk of input) {
    if (chunk.rows.length === 0) {
      yield chunk;
      continue;
    }
    // The WHERE's subqueries for the chunk; an empty chunk down the stream lets the driver pause.
    const steps = prepareSteps([where], chunk.rows, ctx);
    while (steps.next().done !== true) yield NOTHING_YET;
    const weight = exprWeight(where);
    const budget = ctx.budget;
    let rows: Row[] = [];
    let origins: number[] = [];
    for (let i = 0; i < chunk.rows.length; i++) {
      const row = chunk.rows[i]!;
      budget.tick(weight);
      if (asBoolean(evaluate(where, row, ctx), 'WHERE') === true) {
        rows.push(row);
        origins.push(chunk.origins[i]!);
      }
      // A WHERE over large values can take long a row: the rows kept so far go down the stream, so
      // the driver pauses inside the chunk, not only between chunks.
      if (budget.yieldDue && i + 1 < chunk.rows.length) {
        yield { rows, origins };
        rows = [];
        origins = [];
      }
    }
    yield { rows, origins };
  }
}

/**
 * Finds pattern comprehensions, predicates and EXISTS/COUNT subqueries, not looking inside them (they
 * prepare their own insides). Nor inside the bodies of list comprehensions, quantifiers and reduce:
 * those run once per list item with the local variable bound, so their subqueries run then.
 */
function collectSubqueries(expr: Expr, out: SubqueryExpr[]): void {
  switch (expr.kind) {
    case 'patternComprehension': case 'patternPredicate': case 'existsSubquery': case 'countSubquery':
      out.push(expr);
      return;
    case 'listComprehension': case 'quantifier':
      collectSubqueries(expr.list, out);
      return;
    case 'reduce':
      collectSubqueries(expr.init, out);
      collectSubqueries(expr.list, out);
      return;
    default:
      forEachOperand(expr, (operand) => collectSubqueries(operand, out));
  }
}

/**
 * Work that may pause: it yields (nothing) whenever the budget's slice is used up and returns its
 * result when done. `drive` runs it with pauses between slices, `finish` without (nested in one evaluation).
 */
type Steps<T> = Generator<void, T, undefined>;

/** Runs `steps` to the end, pausing the event loop whenever it yields. Synchronous unless a pause comes. */
function drive<T>(steps: Steps<T>, ctx: RunContext): T | Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (ctx.budget.yieldDue) return ctx.budget.pause().then(() => drive(steps, ctx));
  }
}

/** Runs `steps` to the end without yielding the event loop (for work nested in one evaluation). */
function finish<T>(steps: Steps<T>, ctx: RunContext): T {
  return ctx.budget.withoutPauses(() => {
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  });
}

/**
 * Computes every pattern comprehension and predicate in `exprs` for all `rows` together, so a
 * nested result costs one expand per pattern step for the whole row set, not one per row.
 */
function* prepareSteps(exprs: readonly Expr[], rows: readonly Row[], ctx: RunContext): Steps<void> {
  if (rows.length === 0) return;
  // Indexed loops: a for-of over an array inside a generator calls the array iterator's next() per item.
  for (let e = 0; e < exprs.length; e++) {
    const subs = subqueriesOf(exprs[e]!);
    for (let s = 0; s < subs.length; s++) {
      const sub = subs[s]!;
      const results = yield* subquerySteps(sub, rows, ctx);
      let cache = ctx.prepared.get(sub);
      if (!cache) ctx.prepared.set(sub, (cache = new WeakMap()));
      for (let i = 0; i < rows.length; i++) cache.set(rows[i]!, results[i]!);
    }
  }
}

/**
 * `prepareSteps` pausing the event loop between slices: a comprehension over a hub's 10,000
 * neighbours for a chunk of rows is millions of rows of work, which must not hold the loop.
 */
export function prepareSubqueriesPausing(exprs: readonly Expr[], rows: readonly Row[], ctx: RunContext): void | Promise<void> {
  // Most projections have no subquery: no steps to build and drive for each chunk of theirs.
  if (rows.length > 0 && exprs.some(hasSubqueries)) return drive(prepareSteps(exprs, rows, ctx), ctx);
}

/** `prepareSteps` run to the end without pauses, for rows made inside one evaluation. */
export function prepareSubqueries(exprs: readonly Expr[], rows: readonly Row[], ctx: RunContext): void {
  if (rows.length > 0 && exprs.some(hasSubqueries)) finish(prepareSteps(exprs, rows, ctx), ctx);
}

function hasSubqueries(expr: Expr): boolean {
  return subqueriesOf(expr).length > 0;
}

const subqueries = new WeakMap<Expr, readonly SubqueryExpr[]>();

/** The pattern comprehensions and predicates of an expression (not inside each other), found once per expression. */
function subqueriesOf(expr: Expr): readonly SubqueryExpr[] {
  let found = subqueries.get(expr);
  if (found === undefined) {
    const list: SubqueryExpr[] = [];
    collectSubqueries(expr, list);
    subqueries.set(expr, (found = list));
  }
  return found;
}

/** The value of a pattern comprehension (a list) or predicate (a boolean) for each row, without pauses. */
export function runSubquery(sub: SubqueryExpr, rows: readonly Row[], ctx: RunContext): Value[] {
  return finish(subquerySteps(sub, rows, ctx), ctx);
}

/**
 * The value of a pattern comprehension, predicate or EXISTS/COUNT subquery for each row, matched chunk
 * by chunk: each chunk's items are projected and charged before the next chunk is matched (the matched
 * rows are not all held at once), and the work yields between chunks when the budget's slice is used up.
 */
function* subquerySteps(sub: SubqueryExpr, rows: readonly Row[], ctx: RunContext): Steps<Value[]> {
  const simple = sub.kind === 'patternComprehension' || sub.kind === 'patternPredicate';
  const patterns = simple ? [sub.pattern] : sub.patterns;
  const where = sub.kind === 'patternPredicate' ? null : sub.where;
  const pushdown = where === null ? EMPTY_PUSHDOWN : pushdownOf(where);
  let stream = chunksOf(rows);
  for (let p = 0; p < patterns.length; p++) stream = matchPattern(patterns[p]!, stream, ctx, pushdown);
  if (where !== null) stream = filterWhere(where, stream, ctx);
  const budget = ctx.budget;
  if (sub.kind !== 'patternComprehension') {
    // A predicate or EXISTS is whether a row matched at all; COUNT, how often.
    const counts = new Float64Array(rows.length);
    for (const chunk of stream) {
      const origins = chunk.origins;
      // Counting is work as projecting is: told, so the clock is read and the loop paused in time.
      budget.tick(origins.length);
      for (let i = 0; i < origins.length; i++) {
        const o = origins[i]!;
        counts[o] = counts[o]! + 1;
      }
      if (budget.yieldDue) yield;
    }
    return sub.kind === 'countSubquery' ? Array.from(counts) : rows.map((_, i) => counts[i]! > 0);
  }
  const lists: Value[][] = rows.map(() => []);
  for (const chunk of stream) {
    if (chunk.rows.length > 0) {
      if (hasSubqueries(sub.projection)) yield* prepareSteps([sub.projection], chunk.rows, ctx);
      for (let i = 0; i < chunk.rows.length; i++) {
        const item = evaluate(sub.projection, chunk.rows[i]!, ctx);
        // Each row's list grows by this item: charged before it is kept.
        chargeValue(budget, item, ctx.resolve);
        lists[chunk.origins[i]!]!.push(item);
      }
    }
    if (budget.yieldDue) yield;
  }
  return lists;
}
