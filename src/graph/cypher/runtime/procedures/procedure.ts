import type { GraphView } from '../../../engine/index.ts';

/**
 * The value types a procedure's parameters and outputs are declared with, as openCypher writes them
 * (`INTEGER?`): a trailing `?` admits null. Numbers are one type here (64-bit floats), so INTEGER is a
 * number with no fraction, FLOAT any number (an integer is a float too), NUMBER either.
 */
export type ProcedureBaseType = 'ANY' | 'BOOLEAN' | 'STRING' | 'NUMBER' | 'INTEGER' | 'FLOAT' | 'LIST' | 'MAP';
export type ProcedureType = ProcedureBaseType | `${ProcedureBaseType}?`;

/** A named, typed parameter or output field. */
export interface ProcedureField {
  readonly name: string;
  readonly type: ProcedureType;
}

/** What a procedure takes and gives: JSON values (maps are plain objects, never nodes). */
export type ProcedureValue = null | boolean | number | string | readonly ProcedureValue[] | { readonly [key: string]: ProcedureValue };

/** The part of the statement's execution budget a procedure charges its own work to. */
export interface ProcedureBudget {
  /** Counts `units` of work (a unit is about one row's worth): throws once the time budget is spent. */
  tick(units: number): void;
  /** Charges `bytes` the procedure is about to allocate, before it allocates them. */
  chargeBytes(bytes: number): void;
}

/** What a procedure reads: the graph as the caller may see it (row rules applied), and the budget. */
export interface ProcedureContext {
  readonly view: GraphView;
  readonly budget: ProcedureBudget;
}

/**
 * A procedure `CALL ns.name(args) YIELD …` runs: a read-only function of its arguments and the graph
 * that produces rows, one value per output in `outputs` order (`outputs` empty: a void procedure,
 * whose calls pass each row through unchanged). Arguments arrive checked against `parameters`.
 *
 * `rows` is pulled one row at a time: the statement counts each row against its row budget as it
 * arrives (before it copies it into its own rows) and stops pulling when the statement stops (a
 * LIMIT, a budget). Work a procedure does between rows, and anything it allocates beyond one row,
 * it charges to `context.budget` first.
 */
export interface Procedure {
  /** The dotted name as CALL writes it: `db.labels`. Names are case-sensitive. */
  readonly name: string;
  /** One line for error messages and listings. */
  readonly description: string;
  readonly parameters: readonly ProcedureField[];
  readonly outputs: readonly ProcedureField[];
  rows(args: readonly ProcedureValue[], context: ProcedureContext): Iterable<readonly ProcedureValue[]>;
}

/** `test.my.proc(name :: STRING?, in :: INTEGER?) :: (out :: INTEGER?)`: a signature as messages show it. */
export function signatureOf(procedure: Procedure): string {
  const fields = (list: readonly ProcedureField[]) => list.map((f) => `${f.name} :: ${f.type}`).join(', ');
  return `${procedure.name}(${fields(procedure.parameters)}) :: (${fields(procedure.outputs)})`;
}
