/**
 * A statement's parts, in order: each part's reading clauses over the rows the part before it
 * projected, its updates, then WITH into the next part or RETURN into the result. UNION runs each
 * statement it joins in turn into one result (UNION without ALL keeps each row once).
 */
import type { CallInTransactions, Query, ReadingClause, WithClause } from '../language/ast.ts';
import { emptyRow, readClauses } from './match.ts';
import { subqueryCall } from './subquery-call.ts';
import { branchesOf, importsVariables } from '../language/subquery-call.ts';
import { filterWhere } from './match-subqueries.ts';
import { containsAggregate, nonNegativeInteger, runReturn, type RowSink } from './project.ts';
import { evaluate } from './evaluate.ts';
import { chunksOf, collect, type ChunkStream } from './row-stream.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import type { PendingWrites } from './update.ts';
import { LIST_SLOT_BYTES, budgetedKey } from './value-size.ts';
import type { Value } from './values.ts';
import { exprsWeight } from '../plan/expr-weight.ts';

/** A sink that passes each distinct row on once (UNION without ALL), its keys charged to the budget. */
function distinctRows(sink: RowSink, ctx: RunContext): RowSink {
  const seen = new Set<string>();
  return {
    push(values) {
      const key = budgetedKey(values, ctx.budget);
      if (seen.has(key)) return;
      seen.add(key);
      sink.push(values);
    },
  };
}

/** Runs a whole statement (every UNION branch) into `sink`; answers the result's column names. */
export async function runStatement(query: Query, ctx: RunContext, pending: PendingWrites | null, sink: RowSink): Promise<string[]> {
  if (query.union === null) return runBranch(query, ctx, pending, sink);
  const distinctSink = query.union.all ? sink : distinctRows(sink, ctx);
  let columns: string[] | null = null;
  for (let branch: Query | null = query; branch !== null; branch = branch.union?.query ?? null) {
    const names = await runBranch(branch, ctx, pending, distinctSink);
    columns ??= names;
  }
  return columns ?? [];
}

/**
 * Runs a statement's parts up to its `CALL { … } IN TRANSACTIONS` (reading and WITH only) and answers
 * the rows the batches will take, with that clause.
 */
export async function rowsForTransactions(query: Query, ctx: RunContext): Promise<{ rows: Row[]; clause: CallInTransactions }> {
  let stream: ChunkStream = chunksOf([emptyRow(ctx)]);
  for (let part: Query = query; ; part = part.next!) {
    stream = await readPart(part, stream, ctx, null);
    if (part.transactions !== null) {
      const rows: Row[] = [];
      for (;;) {
        const next = stream.next();
        if (next.done) break;
        // The rows wait for their batches: charged by the slots they hold.
        ctx.budget.chargeBytes(next.value.rows.length * LIST_SLOT_BYTES * ctx.layout.width);
        for (const row of next.value.rows) rows.push(row);
        if (ctx.budget.yieldDue) await ctx.budget.pause();
      }
      return { rows, clause: part.transactions };
    }
    stream = await runWith(part.with!, stream, ctx);
  }
}

/** Runs a subquery's body over the rows given (a batch of CALL { … } IN TRANSACTIONS). */
export async function runBody(body: Query, rows: Row[], ctx: RunContext, pending: PendingWrites): Promise<void> {
  await runBranch(body, ctx, pending, { push: () => undefined }, chunksOf(rows));
}

/**
 * A part's reading clauses over `input`: runs of MATCH, UNWIND and procedure calls stream; each
 * `CALL { … }` between them runs its body per row (runtime/subquery-call.ts).
 */
async function readPart(part: Query, input: ChunkStream, ctx: RunContext, pending: PendingWrites | null): Promise<ChunkStream> {
  let stream = input;
  let segment: ReadingClause[] = [];
  for (const clause of part.reading) {
    if (clause.kind !== 'subqueryCall') {
      segment.push(clause);
      continue;
    }
    stream = readClauses(segment, stream, ctx);
    segment = [];
    stream = await subqueryCall(clause, stream, ctx, (body, row, sink) => runSubqueryBody(body, row, ctx, pending, sink));
  }
  return segment.length === 0 ? stream : readClauses(segment, stream, ctx);
}

/**
 * A `CALL { … }` body for one row: each union branch in turn, from the row when it imports its
 * variables and from an empty row otherwise; UNION without ALL keeps each of the run's rows once.
 */
async function runSubqueryBody(body: Query, row: Row, ctx: RunContext, pending: PendingWrites | null, sink: RowSink): Promise<string[]> {
  const target = body.union === null || body.union.all ? sink : distinctRows(sink, ctx);
  let columns: string[] | null = null;
  for (const branch of branchesOf(body)) {
    const names = await runBranch(branch, ctx, pending, target, chunksOf([importsVariables(branch) ? row : emptyRow(ctx)]));
    columns ??= names;
  }
  return columns ?? [];
}

async function runBranch(statement: Query, ctx: RunContext, pending: PendingWrites | null, sink: RowSink, input?: ChunkStream): Promise<string[]> {
  let stream: ChunkStream = input ?? chunksOf([emptyRow(ctx)]);
  for (let part: Query = statement; ; part = part.next!) {
    stream = await readPart(part, stream, ctx, pending);
    if (part.updating.length > 0) {
      if (pending === null) throw new Error('an update clause in a read statement');
      let rows = await collect(stream, ctx.budget);
      for (const clause of part.updating) rows = await pending.run(clause, rows, ctx);
      stream = chunksOf(rows);
    }
    if (part.with !== null) {
      stream = await runWith(part.with, stream, ctx);
      continue;
    }
    if (part.returns !== null) return runReturn(part.returns, stream, ctx, sink);
    // A statement ending with its updates: the rows are done with.
    for (const _ of stream) {
      // drained
    }
    return [];
  }
}

/**
 * WITH: projects rows into the next part. Only the projected names are bound afterwards. Without
 * aggregates, DISTINCT or ORDER BY rows stream through (SKIP and LIMIT stop the reading early);
 * otherwise RETURN's projection runs and the rows it keeps are charged as they are kept.
 */
async function runWith(clause: WithClause, input: ChunkStream, ctx: RunContext): Promise<ChunkStream> {
  const buffered = clause.distinct || clause.orderBy.length > 0 || clause.items.some((item) => containsAggregate(item.expr));
  let stream: ChunkStream;
  if (!buffered) stream = streamWith(clause, input, ctx);
  else {
    const kept: (readonly Value[])[] = [];
    const columns = await runReturn(clause, input, ctx, {
      push(values) {
        ctx.budget.chargeBytes(LIST_SLOT_BYTES * (values.length + 1));
        kept.push(values);
      },
    });
    const slots = columns.map((name) => slotOf(ctx, name));
    const rows: Row[] = kept.map((values) => {
      const row = emptyRow(ctx) as (Value | undefined)[];
      for (let i = 0; i < slots.length; i++) row[slots[i]!] = values[i]!;
      return row;
    });
    stream = chunksOf(rows);
  }
  return clause.where === null ? stream : filterWhere(clause.where, stream, ctx);
}

function* streamWith(clause: WithClause, input: ChunkStream, ctx: RunContext): ChunkStream {
  const skip = nonNegativeInteger(clause.skip, 'SKIP', ctx) ?? 0;
  const limit = nonNegativeInteger(clause.limit, 'LIMIT', ctx);
  if (limit === 0) return;
  const exprs = clause.items.map((item) => item.expr);
  const slots = clause.items.map((item) => slotOf(ctx, item.name));
  const weight = exprsWeight(exprs);
  const budget = ctx.budget;
  let passed = 0;
  let emitted = 0;
  for (const chunk of input) {
    const rows: Row[] = [];
    const origins: number[] = [];
    for (let r = 0; r < chunk.rows.length; r++) {
      budget.tick(weight);
      if (passed++ < skip) continue;
      const row = chunk.rows[r]!;
      let out: Row = row;
      if (!clause.star) {
        const values = exprs.map((expr) => evaluate(expr, row, ctx));
        const fresh = emptyRow(ctx) as (Value | undefined)[];
        for (let i = 0; i < slots.length; i++) fresh[slots[i]!] = values[i]!;
        out = fresh;
      }
      rows.push(out);
      origins.push(chunk.origins[r]!);
      emitted++;
      if (limit !== null && emitted >= limit) {
        yield { rows, origins };
        return;
      }
    }
    if (rows.length > 0) yield { rows, origins };
  }
}
