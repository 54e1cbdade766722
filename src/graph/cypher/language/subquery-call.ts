/**
 * What `CALL { … }` subqueries (ast.ts SubqueryCallClause) mean before they run: which union branch of
 * a body imports the row's variables, which names a body returns, and the statement's subquery bodies.
 */
import type { Query, ReadingClause, ReturnClause, SubqueryCallClause } from './ast.ts';

/**
 * Whether a union branch starts with an importing WITH: `WITH a, b` of plain variables (or `WITH *`),
 * first and alone in its part, with no DISTINCT, ORDER BY, SKIP, LIMIT or WHERE. Any other first WITH
 * is an ordinary projection, over a body that sees none of the row's variables.
 */
export function importsVariables(branch: Query): boolean {
  const clause = branch.with;
  if (clause === null || branch.reading.length > 0 || branch.updating.length > 0 || branch.transactions !== null) return false;
  if (clause.distinct || clause.orderBy.length > 0 || clause.skip !== null || clause.limit !== null || clause.where !== null) return false;
  return clause.items.every((item) => item.expr.kind === 'variable' && !item.aliased);
}

/** The RETURN that ends a body's first union branch, or null for a unit subquery (ending with updates). */
export function bodyReturn(body: Query): ReturnClause | null {
  let last = body;
  while (last.next !== null) last = last.next;
  return last.returns;
}

/** The union branches of a body, each run on its own (see importsVariables). */
export function branchesOf(body: Query): Query[] {
  const branches: Query[] = [];
  for (let branch: Query | null = body; branch !== null; branch = branch.union?.query ?? null) branches.push(branch);
  return branches;
}

/** The `CALL { … }` clauses among a part's reading clauses. */
export function subqueryCallsOf(part: Query): SubqueryCallClause[] {
  return part.reading.filter((clause): clause is SubqueryCallClause => clause.kind === 'subqueryCall');
}

/** Every part of a body, nested `CALL { … }` bodies included. */
function* bodyParts(body: Query): Generator<Query> {
  for (const branch of branchesOf(body)) {
    for (let part: Query | null = branch; part !== null; part = part.next) {
      yield part;
      for (const call of subqueryCallsOf(part)) yield* bodyParts(call.body);
    }
  }
}

/** Whether a `CALL { … }` body (or one nested in it) updates the graph. */
export function bodyWrites(body: Query): boolean {
  for (const part of bodyParts(body)) if (part.updating.length > 0) return true;
  return false;
}

/** The first clause of a body (or of one nested in it) that reads the graph as MATCH does: a MATCH or a procedure call. */
export function bodyGraphRead(body: Query): { readonly kind: 'match' | 'procedureCall'; readonly offset: number } | null {
  for (const part of bodyParts(body)) {
    for (const clause of part.reading) if (clause.kind === 'match' || clause.kind === 'procedureCall') return clause;
  }
  return null;
}

/** A `CALL { … } IN TRANSACTIONS` inside a body: its offset, or null. */
export function bodyTransactions(body: Query): number | null {
  for (const part of bodyParts(body)) if (part.transactions !== null) return part.transactions.offset;
  return null;
}

/** Whether reading clauses end with a unit `CALL { … }` (one whose body ends with updates): a statement may end there. */
export function endsWithUnitSubquery(reading: readonly ReadingClause[]): boolean {
  const last = reading.at(-1);
  return last?.kind === 'subqueryCall' && bodyReturn(last.body) === null;
}
