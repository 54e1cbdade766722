/**
 * `CALL { … }` as a reading clause (ast.ts SubqueryCallClause): the body runs once per row, in row
 * order, each run reading (and writing) as the statement does, into the statement's one batch. A
 * returning body joins the row with each row it returns, none dropping it; a unit body (ending with
 * updates) keeps the row as it came. The rows after the clause are held until the next clause reads
 * them: every run ticks the budget, and every row a run returns counts against `maxRows` and is
 * charged by the slots it holds before it is kept.
 */
import type { Query, SubqueryCallClause } from '../language/ast.ts';
import { bodyReturn } from '../language/subquery-call.ts';
import type { RowSink } from './project.ts';
import { chunksOf, type ChunkStream } from './row-stream.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import { LIST_SLOT_BYTES } from './value-size.ts';
import type { Value } from './values.ts';

/** Runs a body for one row into `sink`, answering its columns (pipeline.ts runSubqueryBody). */
export type BodyRunner = (body: Query, row: Row, sink: RowSink) => Promise<string[]>;

/** The rows after a `CALL { … }` clause over `input`. */
export async function subqueryCall(clause: SubqueryCallClause, input: ChunkStream, ctx: RunContext, runBody: BodyRunner): Promise<ChunkStream> {
  const budget = ctx.budget;
  const rowBytes = LIST_SLOT_BYTES * (ctx.layout.width + 1);
  const unit = bodyReturn(clause.body) === null;
  const out: Row[] = [];
  const discard: RowSink = { push: () => undefined };
  for (;;) {
    const next = input.next();
    if (next.done) break;
    for (const row of next.value.rows) {
      budget.tick(1);
      if (unit) {
        await runBody(clause.body, row, discard);
        budget.chargeBytes(rowBytes);
        out.push(row);
      } else await joinReturned(clause, row, ctx, runBody, out);
      if (budget.yieldDue) await budget.pause();
    }
  }
  return chunksOf(out);
}

/** Runs a returning body for `row` and appends the row joined with each row it returns to `out`. */
async function joinReturned(clause: SubqueryCallClause, row: Row, ctx: RunContext, runBody: BodyRunner, out: Row[]): Promise<void> {
  const budget = ctx.budget;
  const rowBytes = LIST_SLOT_BYTES * (ctx.layout.width + 1);
  const returned: (readonly Value[])[] = [];
  const columns = await runBody(clause.body, row, {
    push(values) {
      budget.addRows(1);
      budget.chargeBytes(rowBytes);
      returned.push(values);
    },
  });
  const slots = columns.map((name) => slotOf(ctx, name));
  for (const values of returned) {
    const joined = row.slice();
    for (let i = 0; i < slots.length; i++) joined[slots[i]!] = values[i]!;
    out.push(joined);
  }
}
