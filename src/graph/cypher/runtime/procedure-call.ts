/**
 * `CALL ns.name(args) YIELD …` as a reading clause: for each row, the procedure's rows for the row's
 * arguments, joined to it (the yielded outputs bound in their slots); a void procedure passes the row
 * through. The procedure is the one resolved when the statement was prepared (language/procedure-resolve.ts).
 */
import type { ProcedureCallClause } from '../language/ast.ts';
import { runtimeError } from '../language/cypher-error.ts';
import { resolvedProcedure } from '../language/procedure-resolve.ts';
import { evaluate } from './evaluate.ts';
import { filterWhere } from './match-subqueries.ts';
import type { ProcedureContext, ProcedureValue } from './procedures/procedure.ts';
import { argumentValue, outputValue } from './procedures/procedure-types.ts';
import { CHUNK_ROWS, type ChunkStream } from './row-stream.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';

export function procedureCall(clause: ProcedureCallClause, input: ChunkStream, ctx: RunContext): ChunkStream {
  const stream = callRows(clause, input, ctx);
  return clause.where === null ? stream : filterWhere(clause.where, stream, ctx);
}

function* callRows(clause: ProcedureCallClause, input: ChunkStream, ctx: RunContext): ChunkStream {
  const procedure = resolvedProcedure(clause);
  const { name, parameters, outputs } = procedure;
  // Resolution gave a call without parentheses its parameters as arguments.
  const args = clause.args ?? [];
  const items = (clause.yields ?? []).map((item) => {
    const index = outputs.findIndex((output) => output.name === item.field);
    return { index, type: outputs[index]!.type, field: item.field, slot: slotOf(ctx, item.variable) };
  });
  const budget = ctx.budget;
  const context: ProcedureContext = { view: ctx.view, budget };
  let rows: Row[] = [];
  let origins: number[] = [];
  for (const chunk of input) {
    for (let i = 0; i < chunk.rows.length; i++) {
      const row = chunk.rows[i]!;
      const values = args.map((arg, k) => argumentValue(evaluate(arg, row, ctx), parameters[k]!.type, name, parameters[k]!.name, budget));
      const produced = procedure.rows(values, context)[Symbol.iterator]();
      try {
        for (;;) {
          // The work of asking for the next row is told before it is done; the row is counted as it comes.
          budget.tick(1);
          const next = produced.next();
          if (next.done === true) break;
          const out: readonly ProcedureValue[] = next.value;
          if (!Array.isArray(out) || out.length !== outputs.length) {
            throw runtimeError(`Procedure ${name} broke its signature: it gave a row of ${Array.isArray(out) ? out.length : 'no'} values for its ${outputs.length} outputs.`, { procedure: name });
          }
          if (outputs.length === 0) continue;
          budget.addRows(1);
          const extended = row.slice();
          for (const item of items) extended[item.slot] = outputValue(out[item.index]!, item.type, name, item.field, budget);
          rows.push(extended);
          origins.push(chunk.origins[i]!);
          if (rows.length >= CHUNK_ROWS) {
            yield { rows, origins };
            rows = [];
            origins = [];
          }
        }
      } finally {
        produced.return?.();
      }
      if (outputs.length === 0) {
        // A void procedure: the row goes on as it came.
        rows.push(row);
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
