/**
 * Procedure calls checked against the registry when a statement is prepared, so every error that
 * does not depend on the data comes before anything runs (TG_CYPHER_SYNTAX with line and column): an
 * unknown procedure, the wrong number of arguments, a literal argument of the wrong type, YIELD of an
 * output the procedure does not have, an in-query call that binds nothing of a procedure that has
 * outputs, arguments taken from the parameters (no parentheses) anywhere but a standalone call.
 *
 * A standalone call becomes the statement it means: `CALL p(…) [YIELD …]` returns the yielded
 * outputs (all of them, in signature order, without YIELD or with YIELD *), and `CALL p` without
 * parentheses passes the parameters named as the procedure's parameters (`$name`).
 */
import type { Expr, ProcedureCallClause, Query, ReturnClause, YieldItem } from './ast.ts';
import { syntaxProblem } from './cypher-error.ts';
import type { Procedure } from '../runtime/procedures/procedure.ts';
import { signatureOf } from '../runtime/procedures/procedure.ts';
import { literalMismatch } from '../runtime/procedures/procedure-types.ts';
import type { ProcedureRegistry } from '../runtime/procedures/registry.ts';
import { subqueryCallsOf } from './subquery-call.ts';

/** The procedure each call of a prepared statement resolved to (the clause objects are the statement's own). */
const RESOLVED = new WeakMap<ProcedureCallClause, Procedure>();

/** The procedure a call resolved to when its statement was prepared. */
export function resolvedProcedure(clause: ProcedureCallClause): Procedure {
  const procedure = RESOLVED.get(clause);
  if (procedure === undefined) throw new Error(`the call of ${clause.name} was not resolved when its statement was prepared`);
  return procedure;
}

/** Every part of a statement, with the bodies of its subqueries. */
function* partsOf(query: Query): Generator<Query> {
  for (let statement: Query | null = query; statement !== null; statement = statement.union?.query ?? null) {
    for (let part: Query | null = statement; part !== null; part = part.next) {
      yield part;
      if (part.transactions !== null) yield* partsOf(part.transactions.body);
      for (const call of subqueryCallsOf(part)) yield* partsOf(call.body);
    }
  }
}

/** Resolves every procedure call of `query` in `registry`; answers the query, a standalone call rewritten as a statement. */
export function resolveProcedureCalls(query: Query, registry: ProcedureRegistry, source: string): Query {
  let rewritten: Query | null = null;
  for (const part of partsOf(query)) {
    for (const clause of part.reading) {
      if (clause.kind !== 'procedureCall') continue;
      const procedure = lookUp(clause, registry, source);
      if (!clause.standalone) {
        checkCall(clause, procedure, source);
        RESOLVED.set(clause, procedure);
        continue;
      }
      const call = standaloneCall(clause, procedure, source);
      RESOLVED.set(call, procedure);
      rewritten = { ...part, reading: [call], returns: returnOf(call) };
    }
  }
  return rewritten ?? query;
}

function lookUp(clause: ProcedureCallClause, registry: ProcedureRegistry, source: string): Procedure {
  const procedure = registry.get(clause.name);
  if (procedure !== undefined) return procedure;
  const near = registry.all.find((p) => p.name.toLowerCase() === clause.name.toLowerCase());
  const hint = near !== undefined ? ` (names are case-sensitive: did you mean ${near.name}?)` : '';
  const list = registry.all.map((p) => `${p.name}()`).join(', ');
  throw syntaxProblem(source, clause.offset, `there is no procedure named ${clause.name}${hint}. The procedures are ${list} (docs/cypher.md, "Procedures").`);
}

/** The checks every call gets: arguments (count, literal types) and YIELD items (outputs that exist). */
function checkCall(clause: ProcedureCallClause, procedure: Procedure, source: string): void {
  const signature = signatureOf(procedure);
  if (clause.args === null) {
    if (!clause.standalone && procedure.parameters.length > 0) {
      const explicit = procedure.parameters.map((p) => `$${p.name}`).join(', ');
      throw syntaxProblem(source, clause.offset, `CALL ${procedure.name} without parentheses takes its arguments from the parameters, which only a CALL that is the whole statement may do; write them here: CALL ${procedure.name}(${explicit}). Its signature: ${signature}.`);
    }
  } else {
    checkArguments(clause.args, clause, procedure, source);
  }
  if (clause.yields !== null) {
    for (const item of clause.yields) {
      if (procedure.outputs.some((o) => o.name === item.field)) continue;
      const outputs = procedure.outputs.length === 0 ? 'it has no outputs (a void procedure: call it without YIELD)' : `its outputs are ${procedure.outputs.map((o) => o.name).join(', ')}`;
      throw syntaxProblem(source, item.offset, `${procedure.name} has no output named ${item.field}: ${outputs}. Its signature: ${signature}.`);
    }
  } else if (!clause.standalone && procedure.outputs.length > 0) {
    throw syntaxProblem(source, clause.offset, `CALL ${procedure.name} inside a larger statement must name the outputs it binds: YIELD ${procedure.outputs.map((o) => o.name).join(', ')}. Its signature: ${signature}.`);
  }
}

function checkArguments(args: readonly Expr[], clause: ProcedureCallClause, procedure: Procedure, source: string): void {
  const wanted = procedure.parameters.length;
  if (args.length !== wanted) {
    throw syntaxProblem(source, clause.offset, `${procedure.name}() takes ${wanted} argument${wanted === 1 ? '' : 's'}, got ${args.length}. Its signature: ${signatureOf(procedure)}.`);
  }
  args.forEach((arg, i) => {
    const parameter = procedure.parameters[i]!;
    const mismatch = literalMismatch(parameter.type, arg);
    if (mismatch !== null) throw syntaxProblem(source, arg.offset, `type mismatch: ${procedure.name}() takes ${parameter.name} :: ${parameter.type}, but this argument is ${mismatch}.`);
  });
}

/** A standalone call with its implicit arguments and YIELD made explicit. */
function standaloneCall(clause: ProcedureCallClause, procedure: Procedure, source: string): ProcedureCallClause {
  checkCall(clause, procedure, source);
  const args = clause.args ?? procedure.parameters.map((p): Expr => ({ kind: 'parameter', name: p.name, offset: clause.offset }));
  const yields: readonly YieldItem[] = clause.yields ?? procedure.outputs.map((o) => ({ field: o.name, variable: o.name, offset: clause.offset }));
  return { ...clause, args, yields };
}

/** The RETURN a standalone call means: its yielded variables, in YIELD order (none for a void procedure). */
function returnOf(call: ProcedureCallClause): ReturnClause | null {
  const yields = call.yields ?? [];
  if (yields.length === 0) return null;
  return {
    kind: 'return',
    distinct: false,
    star: false,
    items: yields.map((item) => ({ expr: { kind: 'variable', name: item.variable, offset: item.offset }, name: item.variable, aliased: false })),
    orderBy: [],
    skip: null,
    limit: null,
    offset: call.offset,
  };
}
