/** What a node pattern asks of a node: its label and property map, split into per-run constants and per-row values. */
import type { NodeRecord } from '../../engine/index.ts';
import type { Expr, NodePattern } from '../language/ast.ts';
import { runtimeError } from '../language/cypher-error.ts';
import { equals, evaluate } from './evaluate.ts';
import type { Row, RunContext } from './run-context.ts';
import { isMap, storedProperty, type Value } from './values.ts';

/** A node pattern's property map, split into constants (evaluated once) and row-dependent entries. */
export interface NodeConstraint {
  readonly label: string | null;
  /** Evaluated constant equalities; `impossible` when one is null (null never equals anything). */
  readonly constants: readonly (readonly [string, Value])[];
  readonly impossible: boolean;
  readonly perRow: readonly { key: string; expr: Expr }[];
}

function isConstant(expr: Expr): boolean {
  switch (expr.kind) {
    case 'literal': case 'parameter': return true;
    case 'list': return expr.items.every(isConstant);
    case 'map': return expr.entries.every((e) => isConstant(e.value));
    case 'negate': return isConstant(expr.operand);
    default: return false;
  }
}

/** Constraints of node patterns without a property map: the same for every run. */
const labelOnly = new WeakMap<NodePattern, NodeConstraint>();

export function constraintOf(node: NodePattern, ctx: RunContext, extra: ReadonlyMap<string, Expr> | undefined): NodeConstraint {
  if (node.properties === null && extra === undefined) {
    let c = labelOnly.get(node);
    if (c === undefined) labelOnly.set(node, (c = Object.freeze({ label: node.label, constants: [], impossible: false, perRow: [] })));
    return c;
  }
  const constants = new Map<string, Value>();
  const perRow: { key: string; expr: Expr }[] = [];
  const none: Row = [];
  const props = node.properties;
  if (props !== null) {
    if (props.kind === 'map') {
      for (const entry of props.entries) {
        if (isConstant(entry.value)) constants.set(entry.key, evaluate(entry.value, none, ctx));
        else perRow.push({ key: entry.key, expr: entry.value });
      }
    } else {
      const value = evaluate(props, none, ctx);
      if (!isMap(value)) throw runtimeError(`A node pattern's property parameter must be a map, got ${value === null ? 'null' : typeof value}.`);
      for (const key of Object.keys(value)) constants.set(key, value[key]!);
    }
  }
  if (extra) {
    for (const [key, expr] of extra) {
      if (constants.has(key)) continue;
      constants.set(key, evaluate(expr, none, ctx));
    }
  }
  let impossible = false;
  for (const v of constants.values()) if (v === null) impossible = true;
  return { label: node.label, constants: [...constants], impossible, perRow };
}

function propertyValue(record: NodeRecord, key: string): Value {
  if (key === 'id') return record.id;
  return storedProperty(record.props, key);
}

export function satisfies(record: NodeRecord, c: NodeConstraint, row: Row, ctx: RunContext, checkConstants: boolean): boolean {
  if (c.label !== null && record.label !== c.label) return false;
  if (checkConstants) for (const [key, v] of c.constants) if (equals(propertyValue(record, key), v) !== true) return false;
  for (const { key, expr } of c.perRow) if (equals(propertyValue(record, key), evaluate(expr, row, ctx)) !== true) return false;
  return true;
}

export function constantsHold(record: NodeRecord, c: NodeConstraint): boolean {
  for (const [key, v] of c.constants) if (equals(propertyValue(record, key), v) !== true) return false;
  return true;
}
