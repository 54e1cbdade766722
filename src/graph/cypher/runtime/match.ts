/**
 * MATCH and OPTIONAL MATCH: the reading part of a statement, clause by clause. A pattern is planned
 * in match-plan.ts, starts in match-start.ts, grows step by step in match-expand.ts (match-pattern.ts
 * runs the three); WHERE filters and pattern subqueries are match-subqueries.ts.
 */
import type { MatchClause, Pattern, ReadingClause, UnwindClause } from '../language/ast.ts';
import { evaluate } from './evaluate.ts';
import { EMPTY_PUSHDOWN, pushdownOf, type Pushdown } from '../plan/match-plan.ts';
import { matchPattern } from './match-pattern.ts';
import { matchShortest } from './match-shortest.ts';
import { procedureCall } from './procedure-call.ts';
import { filterWhere } from './match-subqueries.ts';
import { CHUNK_ROWS, collectSync, type Chunk, type ChunkStream } from './row-stream.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import type { Value } from './values.ts';

export { prepareSubqueries, prepareSubqueriesPausing, runSubquery } from './match-subqueries.ts';

/** A row with every slot unbound: the input of a statement's first clause. */
export function emptyRow(ctx: RunContext): Row {
  return new Array<Value | undefined>(ctx.layout.width).fill(undefined);
}

/** Reading clauses of one part of a statement (MATCH, OPTIONAL MATCH, UNWIND, CALL of a procedure) over its input rows; pipeline.ts runs `CALL { … }` between them. */
export function readClauses(clauses: readonly ReadingClause[], input: ChunkStream, ctx: RunContext): ChunkStream {
  let stream = input;
  for (const clause of clauses) {
    if (clause.kind === 'subqueryCall') throw new Error('a CALL { … } subquery among the synchronous reading clauses');
    stream = clause.kind === 'unwind' ? unwind(clause, stream, ctx) : clause.kind === 'procedureCall' ? procedureCall(clause, stream, ctx) : matchClause(clause, stream, ctx);
  }
  return stream;
}

/**
 * UNWIND: a row per item of the list (none for null or an empty list; a value that is no list is one
 * item). Rows are counted against the row budget as they are made, and come out in chunks.
 */
function* unwind(clause: UnwindClause, input: ChunkStream, ctx: RunContext): ChunkStream {
  const slot = slotOf(ctx, clause.variable);
  const budget = ctx.budget;
  let rows: Row[] = [];
  let origins: number[] = [];
  for (const chunk of input) {
    for (let i = 0; i < chunk.rows.length; i++) {
      const row = chunk.rows[i]!;
      const value = evaluate(clause.list, row, ctx);
      if (value === null) continue;
      const items: readonly Value[] = Array.isArray(value) ? value : [value];
      for (const item of items) {
        budget.addRows(1);
        const extended = row.slice();
        extended[slot] = item;
        rows.push(extended);
        origins.push(chunk.origins[i]!);
        if (rows.length >= CHUNK_ROWS) {
          yield { rows, origins };
          rows = [];
          origins = [];
        }
      }
    }
  }
  if (rows.length > 0) yield { rows, origins };
}

function matchClause(clause: MatchClause, input: ChunkStream, ctx: RunContext): ChunkStream {
  const pushdown = clause.where === null ? EMPTY_PUSHDOWN : pushdownOf(clause.where);
  return clause.optional ? optionalMatch(clause, input, ctx, pushdown) : clauseBody(clause, input, ctx, pushdown);
}

function clauseBody(clause: MatchClause, input: ChunkStream, ctx: RunContext, pushdown: Pushdown): ChunkStream {
  let stream = input;
  for (const pattern of clause.patterns) stream = pattern.shortest === undefined ? matchPattern(pattern, stream, ctx, pushdown) : matchShortest(pattern, stream, ctx, pushdown);
  if (clause.where !== null) stream = filterWhere(clause.where, stream, ctx);
  return stream;
}

function* once(chunk: Chunk): ChunkStream {
  yield chunk;
}

/** OPTIONAL MATCH keeps every input row: unmatched ones get null for each new variable. */
function* optionalMatch(clause: MatchClause, input: ChunkStream, ctx: RunContext, pushdown: Pushdown): ChunkStream {
  const introduced = new Set<number>();
  for (const pattern of clause.patterns) for (const name of patternVariables(pattern)) introduced.add(slotOf(ctx, name));
  for (const chunk of input) {
    const n = chunk.rows.length;
    if (n === 0) {
      yield chunk;
      continue;
    }
    const local: Chunk = { rows: chunk.rows, origins: Array.from({ length: n }, (_, i) => i) };
    const matched = collectSync(clauseBody(clause, once(local), ctx, pushdown), ctx.budget);
    const rows: Row[] = [];
    const origins: number[] = [];
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (k < matched.rows.length && matched.origins[k] === i) {
        for (; k < matched.rows.length && matched.origins[k] === i; k++) {
          rows.push(matched.rows[k]!);
          origins.push(chunk.origins[i]!);
        }
      } else {
        const extended = chunk.rows[i]!.slice();
        for (const slot of introduced) if (extended[slot] === undefined) extended[slot] = null;
        ctx.budget.addRows(1);
        rows.push(extended);
        origins.push(chunk.origins[i]!);
      }
    }
    yield { rows, origins };
  }
}

function patternVariables(pattern: Pattern): string[] {
  const names: string[] = [];
  if (pattern.path !== undefined) names.push(pattern.path);
  if (pattern.start.variable !== null) names.push(pattern.start.variable);
  for (const step of pattern.steps) {
    if (step.rel.variable !== null) names.push(step.rel.variable);
    if (step.node.variable !== null) names.push(step.node.variable);
  }
  return names;
}
