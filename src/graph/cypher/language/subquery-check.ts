/**
 * Scope rules of `CALL { … }` (ast.ts SubqueryCallClause), checked before anything runs: a body's
 * RETURN names each column (an expression needs AS), returns no name the row already binds, and
 * every union branch returns the same columns; the names returned are bound after the clause.
 */
import type { SubqueryCallClause } from './ast.ts';
import { syntaxProblem } from './cypher-error.ts';
import { bodyReturn } from './subquery-call.ts';

/** What a name holds, as the scope check tracks it (`unknown`: a local of a comprehension). */
export type ScopeKind = 'node' | 'rel' | 'path' | 'value' | 'unknown';

/**
 * Checks a `CALL { … }` clause in `scope` (the names bound before it) and binds what it returns there.
 * `checkBody` checks the body as a statement of its own, starting from the names a branch imports,
 * and answers the names its RETURN binds (null for a unit subquery).
 */
export function checkSubqueryCall(
  clause: SubqueryCallClause,
  scope: Map<string, ScopeKind>,
  source: string,
  checkBody: (outer: ReadonlyMap<string, ScopeKind>, body: SubqueryCallClause['body']) => ReadonlyMap<string, ScopeKind> | null,
): void {
  const returns = bodyReturn(clause.body);
  if (returns !== null) {
    for (const item of returns.items) {
      if (!item.aliased && item.expr.kind !== 'variable') {
        throw syntaxProblem(source, item.expr.offset, `the RETURN of a CALL { … } subquery must name each expression with AS (${item.name} AS name).`);
      }
    }
  }
  const returned = checkBody(scope, clause.body);
  if (returned === null) return;
  for (const [name, kind] of returned) {
    if (scope.has(name)) {
      throw syntaxProblem(source, returns?.offset ?? clause.offset, `variable \`${name}\` is already bound, so the CALL { … } subquery cannot return it; return it under another name (… AS other).`);
    }
    scope.set(name, kind);
  }
}
