import type { Expr } from './ast.ts';

/**
 * Calls `visit` on each direct sub-expression of `expr` that is evaluated in the same scope. Pattern
 * comprehensions and predicates, EXISTS and COUNT subqueries have none here: their insides bind their
 * own variables, so each walker decides how to enter them. List comprehensions, quantifiers and
 * reduce visit their bodies too (a walker looking for names, aggregates or weight wants them), though
 * the bodies also see the local variable: walkers of scope (check.ts) and of per-row preparation
 * (match-subqueries.ts) handle these kinds first.
 */
export function forEachOperand(expr: Expr, visit: (operand: Expr) => void): void {
  switch (expr.kind) {
    case 'list': for (const e of expr.items) visit(e); return;
    case 'map': for (const e of expr.entries) visit(e.value); return;
    case 'property': case 'hasLabel': visit(expr.target); return;
    case 'index': visit(expr.target); visit(expr.index); return;
    case 'slice':
      visit(expr.target);
      if (expr.from !== null) visit(expr.from);
      if (expr.to !== null) visit(expr.to);
      return;
    case 'case':
      if (expr.subject !== null) visit(expr.subject);
      for (const b of expr.branches) {
        visit(b.when);
        visit(b.then);
      }
      if (expr.otherwise !== null) visit(expr.otherwise);
      return;
    case 'and': case 'or': case 'xor': for (const e of expr.operands) visit(e); return;
    case 'not': case 'negate': case 'isNull': visit(expr.operand); return;
    case 'comparison': case 'arithmetic':
      visit(expr.first);
      for (const r of expr.rest) visit(r.expr);
      return;
    case 'in': visit(expr.element); visit(expr.list); return;
    case 'string': visit(expr.left); visit(expr.right); return;
    case 'regex': visit(expr.left); visit(expr.right); return;
    case 'call': for (const e of expr.args) visit(e); return;
    case 'mapProjection':
      for (const item of expr.items) if (item.kind === 'literalEntry') visit(item.value);
      return;
    case 'listComprehension':
      visit(expr.list);
      if (expr.where !== null) visit(expr.where);
      if (expr.projection !== null) visit(expr.projection);
      return;
    case 'quantifier': visit(expr.list); visit(expr.where); return;
    case 'reduce': visit(expr.init); visit(expr.list); visit(expr.body); return;
    case 'literal': case 'parameter': case 'variable': case 'patternComprehension': case 'patternPredicate':
    case 'existsSubquery': case 'countSubquery':
      return;
  }
}
