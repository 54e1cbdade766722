import { BUILTIN_PROCEDURES } from './builtins.ts';
import type { Procedure, ProcedureField } from './procedure.ts';
import { isProcedureType } from './procedure-types.ts';

/**
 * The procedures a statement may CALL, by name: the built-ins (`db.labels`, `db.propertyKeys`,
 * `db.relationshipTypes`) and any an embedder adds (`procedureRegistry([...])`, passed as
 * `RunOptions.procedures` and to `prepareCypher`). A prepared statement is checked against one
 * registry and runs the procedures it resolved there.
 */
export interface ProcedureRegistry {
  get(name: string): Procedure | undefined;
  /** Every procedure, in name order (code-point order). */
  readonly all: readonly Procedure[];
}

/** `ns.name`: dotted identifiers (letters, digits, `_`; not starting with a digit). */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function checkFields(procedure: string, what: string, fields: readonly ProcedureField[]): void {
  const seen = new Set<string>();
  for (const field of fields) {
    if (!NAME.test(field.name) || field.name.includes('.')) throw new TypeError(`Procedure ${procedure}: the ${what} name ${JSON.stringify(field.name)} is not an identifier.`);
    if (!isProcedureType(field.type)) throw new TypeError(`Procedure ${procedure}: ${what} ${field.name} has the unknown type ${JSON.stringify(field.type)} (ANY, BOOLEAN, STRING, NUMBER, INTEGER, FLOAT, LIST or MAP, with ? to admit null).`);
    if (seen.has(field.name)) throw new TypeError(`Procedure ${procedure}: two ${what}s are named ${field.name}.`);
    seen.add(field.name);
  }
}

class Registry implements ProcedureRegistry {
  readonly #byName: ReadonlyMap<string, Procedure>;
  readonly all: readonly Procedure[];

  constructor(procedures: readonly Procedure[]) {
    const byName = new Map<string, Procedure>();
    for (const procedure of procedures) {
      if (!NAME.test(procedure.name)) throw new TypeError(`The procedure name ${JSON.stringify(procedure.name)} is not a dotted name like ns.name.`);
      if (byName.has(procedure.name)) throw new TypeError(`Two procedures are named ${procedure.name} (the built-ins cannot be replaced).`);
      checkFields(procedure.name, 'parameter', procedure.parameters);
      checkFields(procedure.name, 'output', procedure.outputs);
      byName.set(procedure.name, procedure);
    }
    this.#byName = byName;
    this.all = Object.freeze([...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }

  get(name: string): Procedure | undefined {
    return this.#byName.get(name);
  }
}

/** The built-in procedures alone: what a statement may call unless its runner adds more. */
export const BUILTIN_REGISTRY: ProcedureRegistry = new Registry(BUILTIN_PROCEDURES);

/**
 * A registry of the built-ins plus `extra`. Refused with a TypeError: a name that is not `ns.name`,
 * two procedures of one name (a built-in included), an unknown type, duplicate field names.
 */
export function procedureRegistry(extra: readonly Procedure[]): ProcedureRegistry {
  return new Registry([...BUILTIN_PROCEDURES, ...extra]);
}
