/**
 * Procedure argument and output types: which values a declared type admits (checked on the literal
 * when the statement is prepared, on the value when it runs), and the copy of a procedure's outputs
 * into the executor's values.
 */
import type { Expr } from '../../language/ast.ts';
import { runtimeError } from '../../language/cypher-error.ts';
import { EdgeRef, NodeRef, PathRef, newMap, typeName, type Value } from '../values.ts';
import type { ProcedureBaseType, ProcedureBudget, ProcedureType, ProcedureValue } from './procedure.ts';

const BASE_TYPES: ReadonlySet<string> = new Set<ProcedureBaseType>(['ANY', 'BOOLEAN', 'STRING', 'NUMBER', 'INTEGER', 'FLOAT', 'LIST', 'MAP']);

/** Whether text names a procedure type (`INTEGER?`, `STRING`). */
export function isProcedureType(text: string): text is ProcedureType {
  return BASE_TYPES.has(text.endsWith('?') ? text.slice(0, -1) : text);
}

function baseOf(type: ProcedureType): ProcedureBaseType {
  return (type.endsWith('?') ? type.slice(0, -1) : type) as ProcedureBaseType;
}

/** The type of a value as procedure types name it: null, or the narrowest base type. */
type Kind = 'null' | 'BOOLEAN' | 'STRING' | 'INTEGER' | 'FLOAT' | 'LIST' | 'MAP' | 'NODE' | 'RELATIONSHIP' | 'PATH';

function kindOf(value: Value): Kind {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'BOOLEAN';
  if (typeof value === 'string') return 'STRING';
  if (typeof value === 'number') return Number.isInteger(value) ? 'INTEGER' : 'FLOAT';
  if (value instanceof NodeRef) return 'NODE';
  if (value instanceof EdgeRef) return 'RELATIONSHIP';
  if (value instanceof PathRef) return 'PATH';
  return Array.isArray(value) ? 'LIST' : 'MAP';
}

/** Whether `type` admits a value of `kind` (an INTEGER is a FLOAT and a NUMBER too; `?` admits null). */
function admits(type: ProcedureType, kind: Kind): boolean {
  if (kind === 'null') return type.endsWith('?');
  const base = baseOf(type);
  if (kind === 'NODE' || kind === 'RELATIONSHIP' || kind === 'PATH') return false;
  switch (base) {
    case 'ANY': return true;
    case 'NUMBER':
    case 'FLOAT': return kind === 'INTEGER' || kind === 'FLOAT';
    default: return base === kind;
  }
}

/** The kind of an argument written as a literal (`true`, `42`, `-1.5`, `'x'`, `[…]`, `{…}`), or null when only running it tells. */
function literalKind(expr: Expr): Kind | null {
  switch (expr.kind) {
    case 'literal': return kindOf(expr.value);
    case 'list': return 'LIST';
    case 'map': return 'MAP';
    case 'negate': return expr.operand.kind === 'literal' && typeof expr.operand.value === 'number' ? kindOf(-expr.operand.value) : null;
    default: return null;
  }
}

/** Why a literal argument cannot be passed as `type` (`a Boolean literal`), or null when it can or only running it tells. */
export function literalMismatch(type: ProcedureType, expr: Expr): string | null {
  const kind = literalKind(expr);
  if (kind === null || admits(type, kind)) return null;
  return kind === 'null' ? 'null' : `a ${describeKind(kind)} literal`;
}

function describeKind(kind: Kind): string {
  return kind === 'null' ? 'null' : kind.charAt(0) + kind.slice(1).toLowerCase();
}

/** Depth past which a procedure value is refused (as a parameter nesting deeper is). */
const MAX_DEPTH = 64;

/**
 * An argument as the procedure receives it: checked against its declared type (TG_CYPHER_RUNTIME
 * naming the procedure, the parameter and what came) and free of nodes and relationships, which
 * procedures do not take. Runtime maps and lists are JSON-shaped already; nested items are looked at
 * one budget unit each.
 */
export function argumentValue(value: Value, type: ProcedureType, procedure: string, parameter: string, budget: ProcedureBudget): ProcedureValue {
  const kind = kindOf(value);
  if (!admits(type, kind)) {
    throw runtimeError(`${procedure}() takes ${parameter} :: ${type}, got ${kind === 'null' ? 'null' : `a ${typeName(value)}`}.`, { procedure, parameter, expected: type, got: typeName(value) });
  }
  if (kind === 'LIST' || kind === 'MAP') checkNoEntities(value, procedure, parameter, budget, 0);
  return value as ProcedureValue;
}

function checkNoEntities(value: Value, procedure: string, parameter: string, budget: ProcedureBudget, depth: number): void {
  if (value === null || typeof value !== 'object') return;
  if (value instanceof NodeRef || value instanceof EdgeRef || value instanceof PathRef) {
    throw runtimeError(`${procedure}() takes ${parameter} as a value, but it holds a ${typeName(value)}: procedures take numbers, strings, booleans, lists and maps.`, { procedure, parameter });
  }
  if (depth > MAX_DEPTH) throw runtimeError(`${procedure}()'s argument ${parameter} nests deeper than ${MAX_DEPTH} levels.`, { procedure, parameter });
  const items: readonly Value[] = Array.isArray(value) ? value : Object.values(value);
  budget.tick(items.length);
  for (const item of items) checkNoEntities(item, procedure, parameter, budget, depth + 1);
}

/**
 * One output value of a procedure's row as the executor holds it: checked against the declared type
 * (a procedure that breaks its own signature is a TG_CYPHER_RUNTIME error naming it), numbers finite,
 * and maps copied into null-prototype maps (any key is then safe to read), each item a budget unit
 * and charged before it is copied.
 */
export function outputValue(value: ProcedureValue, type: ProcedureType, procedure: string, output: string, budget: ProcedureBudget): Value {
  if (typeof value !== 'object' || value === null) {
    const kind = value === undefined ? null : kindOf(value);
    if (kind === null || !admits(type, kind) || (typeof value === 'number' && !Number.isFinite(value))) throw badOutput(procedure, output, type, value);
    return value;
  }
  const kind: Kind = Array.isArray(value) ? 'LIST' : 'MAP';
  if (!admits(type, kind)) throw badOutput(procedure, output, type, value);
  return copyValue(value, procedure, output, budget, 0);
}

function copyValue(value: ProcedureValue, procedure: string, output: string, budget: ProcedureBudget, depth: number): Value {
  if (value === null) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw badOutput(procedure, output, 'ANY', value);
      return value;
    case 'object':
      break;
    default:
      throw badOutput(procedure, output, 'ANY', value);
  }
  if (depth > MAX_DEPTH) throw runtimeError(`Procedure ${procedure} gave ${output} a value nesting deeper than ${MAX_DEPTH} levels.`, { procedure, output });
  if (Array.isArray(value)) {
    const list = value as readonly ProcedureValue[];
    budget.chargeBytes(8 * list.length);
    return list.map((item) => copyValue(item, procedure, output, budget, depth + 1));
  }
  const entries = Object.entries(value);
  budget.chargeBytes(16 * entries.length);
  const map = newMap();
  for (const [key, item] of entries) map[key] = copyValue(item, procedure, output, budget, depth + 1);
  return map;
}

function badOutput(procedure: string, output: string, type: ProcedureType, value: unknown): Error {
  const got = value === undefined ? 'nothing' : typeof value === 'object' && value !== null ? (Array.isArray(value) ? 'a list' : 'a map') : typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
  return runtimeError(`Procedure ${procedure} broke its signature: its output ${output} :: ${type} got ${got}.`, { procedure, output, expected: type });
}
