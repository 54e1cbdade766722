import type { Expr } from '../language/ast.ts';
import { forEachOperand } from '../language/expr-operands.ts';

const weights = new WeakMap<Expr, number>();

/**
 * Units of work one evaluation of `expr` does at most, besides what its operations tell of large
 * values: one per operation written (the statement cache keeps the tree, so each is counted once).
 * A WHERE of 2,000 conditions is 2,000 units a row, so the budget reads its clock by the work done,
 * not every 256 rows. Pattern comprehensions and predicates (EXISTS and COUNT too) count one: their
 * rows are counted as made. List comprehensions, quantifiers and reduce count their body once here;
 * they tell the budget the body's weight for every list item before visiting it (evaluate-scoped.ts).
 */
export function exprWeight(expr: Expr): number {
  let weight = weights.get(expr);
  if (weight === undefined) {
    let sum = 1;
    forEachOperand(expr, (operand) => {
      sum += exprWeight(operand);
    });
    weights.set(expr, (weight = sum));
  }
  return weight;
}

/** The summed weight of several expressions (the items of one RETURN, say). */
export function exprsWeight(exprs: readonly Expr[]): number {
  let sum = 0;
  for (let i = 0; i < exprs.length; i++) sum += exprWeight(exprs[i]!);
  return sum;
}
