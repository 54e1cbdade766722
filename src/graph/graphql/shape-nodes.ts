import { Kind, type FieldNode, type ValueNode } from 'graphql';
import { describeValue } from '../../errors/index.ts';
import type { NodeRecord } from '../engine/index.ts';
import { collectFields, subSelections, type CollectedFields } from './collect-fields.ts';
import { expandLevel } from './expand-level.ts';
import type { ExecState, PathFn } from './exec-state.ts';
import { NullBubble, graphqlError } from './graphql-errors.ts';
import { doneWork, type Work } from './work.ts';

/** A shaped object: response keys in selection order, values as they go on the wire. */
export type Shaped = Record<string, unknown>;

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

function isInt32(value: number): boolean {
  return value >= INT_MIN && value <= INT_MAX;
}

/** The value of an Int argument as written (literal or variable); undefined when absent or null. */
function intArgument(state: ExecState, node: FieldNode, name: string): number | undefined {
  const arg = node.arguments?.find((a) => a.name.value === name);
  if (arg === undefined) return undefined;
  return intValue(state, arg.value);
}

function intValue(state: ExecState, value: ValueNode): number | undefined {
  if (value.kind === Kind.INT) return Number.parseInt(value.value, 10);
  if (value.kind === Kind.VARIABLE) {
    const v = state.variables[value.name.value];
    return typeof v === 'number' ? v : undefined;
  }
  return undefined;
}

function negativeCount(where: () => { nodes: readonly FieldNode[]; path: (string | number)[] }, name: string, value: number): never {
  const { nodes, path } = where();
  throw new NullBubble(graphqlError('TG_BAD_REQUEST', `${nodes[0]!.name.value}: ${name} must be a non-negative integer; got ${describeValue(value)}.`, { nodes, path }));
}

/**
 * How many items a list field takes: `first` and `limit` mean the same; given both, the smaller
 * applies. Absent (or null): all. Negative: an error on the field.
 */
export function pageSize(first: number | undefined, limit: number | undefined, where: () => { nodes: readonly FieldNode[]; path: (string | number)[] }): number | undefined {
  if (first !== undefined && first < 0) negativeCount(where, 'first', first);
  if (limit !== undefined && limit < 0) negativeCount(where, 'limit', limit);
  if (first === undefined) return limit;
  if (limit === undefined) return first;
  return Math.min(first, limit);
}

type Step =
  | { readonly kind: 'const'; readonly key: string; readonly value: unknown }
  | { readonly kind: 'id'; readonly key: string }
  | { readonly kind: 'property'; readonly key: string; readonly name: string; readonly int: boolean; readonly nodes: readonly FieldNode[] }
  | { readonly kind: 'edge'; readonly key: string; readonly shaped: Shaped[]; readonly offsets: readonly number[] };

/** Objects shaped between two looks at the clock (and, past a spent slice, two yields). */
const SLICE = 1024;

/**
 * Shapes the objects of one field position: every row (a node, possibly of several labels for a
 * union) gets the fields its label's selection asks for. This is the breadth-first executor: the
 * rows of a position are one frontier, and each edge field of the selection is one `expandEach`
 * over that whole frontier; the children of all rows are then shaped together, one level down.
 * Rows come in the engine's id order and keep it. Work (work.ts): it yields between levels and
 * every SLICE objects of a large one when the time slice is spent. Not itself a generator: it hands
 * back the work of its one group (nearly always) or of the union's groups.
 */
export function shapeNodes(state: ExecState, rows: readonly NodeRecord[], nodes: readonly FieldNode[], level: number, pathOf: (i: number) => (string | number)[]): Work<Shaped[]> {
  const out = new Array<Shaped>(rows.length);
  if (rows.length === 0) return doneWork(out);
  const label = rows[0]!.label;
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]!.label !== label) return shapeUnion(state, rows, nodes, level, pathOf, out);
  }
  return shapeGroup(state, label, rows, null, nodes, level, pathOf, out);
}

/** A union position: each label is a group of its own (its own collected fields and expansions). */
function* shapeUnion(state: ExecState, rows: readonly NodeRecord[], nodes: readonly FieldNode[], level: number, pathOf: (i: number) => (string | number)[], out: Shaped[]): Work<Shaped[]> {
  const groups = new Map<string, number[]>();
  for (let i = 0; i < rows.length; i++) {
    const l = rows[i]!.label;
    const g = groups.get(l);
    if (g) g.push(i);
    else groups.set(l, [i]);
  }
  for (const [l, positions] of groups) yield* shapeGroup(state, l, positions.map((p) => rows[p]!), positions, nodes, level, pathOf, out);
  return out;
}

/** Shapes one label's rows into `out` (at `positions`, or in order) and returns `out`. */
function* shapeGroup(
  state: ExecState, label: string, rows: readonly NodeRecord[], positions: readonly number[] | null,
  nodes: readonly FieldNode[], level: number, pathOf: (i: number) => (string | number)[], out: Shaped[],
): Work<Shaped[]> {
  // The label's GraphQL type: fragments match it and `__typename` answers it (the namespace's prefix, if any).
  const prefix = state.graphSchema.names.typePrefix;
  const typeName = prefix === '' ? label : `${prefix}${label}`;
  const fields = collectFields(state, typeName, subSelections(nodes));
  const known = staticSteps.get(fields)?.get(label);
  const steps: Step[] = known ?? (yield* planSteps(state, label, typeName, fields, rows, level, pathOf, positions));
  // The JSON these objects serialise to, at least: keys and punctuation now, before they are built;
  // ids, strings and lists as each slice is placed.
  state.meter.bytes(rows.length * fixedBytes(steps));
  for (let from = 0; from < rows.length; from += SLICE) {
    const to = Math.min(from + SLICE, rows.length);
    shapeRows(state, typeName, rows, positions, steps, pathOf, out, from, to);
    if (to < rows.length && state.meter.yieldDue) yield;
  }
  return out;
}

/** Shapes rows[from..to) of a group into `out`; charges their values' JSON and ticks the clock. */
function shapeRows(
  state: ExecState, typeName: string, rows: readonly NodeRecord[], positions: readonly number[] | null, steps: readonly Step[],
  pathOf: (i: number) => (string | number)[], out: Shaped[], from: number, to: number,
): void {
  const labels = state.labels;
  let bytes = 0;
  for (let j = from; j < to; j++) {
    const row = rows[j]!;
    const props = row.props;
    const obj: Shaped = {};
    for (let s = 0; s < steps.length; s++) {
      const step = steps[s]!;
      switch (step.kind) {
        case 'const':
          obj[step.key] = step.value;
          break;
        case 'id':
          obj[step.key] = row.id;
          bytes += row.id.length;
          break;
        case 'property': {
          const value = props[step.name];
          if (typeof value === 'string') {
            obj[step.key] = value;
            bytes += value.length + 1;
          } else if (value === undefined) {
            obj[step.key] = null;
          } else {
            const shaped = step.int ? checkedInt(state, value, step, () => [...pathOf(positions === null ? j : positions[j]!), step.key]) : value;
            obj[step.key] = shaped;
            if (shaped !== null && typeof shaped === 'object') bytes += listBytes(shaped as readonly unknown[]);
          }
          break;
        }
        case 'edge': {
          const first = step.offsets[j]!;
          const last = step.offsets[j + 1]!;
          obj[step.key] = step.shaped.slice(first, last);
          if (last > first) bytes += last - first - 1;
          break;
        }
      }
    }
    if (labels !== null) labels.set(obj, typeName);
    out[positions === null ? j : positions[j]!] = obj;
  }
  state.meter.bytes(bytes);
  state.meter.tick(to - from);
}

/**
 * The JSON bytes every object of a group has whatever its values: braces, `"key":` and commas, the
 * const values, quotes of the id, `[]` of edge lists, one character of a property value. With what
 * `shapeGroup` adds per value (an id's or a string's length, list items, commas between children)
 * it is a lower bound of the object's JSON (a UTF-8 string is never shorter than its UTF-16
 * length), so a result at the size limit is never refused.
 */
function fixedBytes(steps: readonly Step[]): number {
  let n = steps.length > 0 ? 1 + steps.length : 2;
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    n += step.key.length + 3;
    switch (step.kind) {
      case 'const': n += typeof step.value === 'string' ? step.value.length + 2 : 1; break;
      case 'id': n += 2; break;
      case 'property': n += 1; break;
      case 'edge': n += 2; break;
    }
  }
  return n;
}

/** A list property's JSON bytes past the one character `fixedBytes` counts: brackets, items, commas. */
function listBytes(list: readonly unknown[]): number {
  let n = list.length > 0 ? list.length : 1;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    n += typeof item === 'string' ? item.length + 2 : typeof item === 'boolean' ? 4 : 1;
  }
  return n;
}

/**
 * GraphQL's Int is 32-bit while the engine stores any safe integer: a value outside Int's range is
 * a field error and null, as graphql-js's serializer makes it (for a list, the whole list).
 */
function checkedInt(state: ExecState, value: unknown, step: { key: string; nodes: readonly FieldNode[] }, pathOf: PathFn): unknown {
  if (typeof value === 'number') {
    if (isInt32(value)) return value;
    state.errors.push(graphqlError('TG_VALUE_INVALID', `Int cannot represent non 32-bit signed integer value: ${value}`, { nodes: step.nodes, path: pathOf() }));
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as number;
      if (!isInt32(item)) {
        state.errors.push(graphqlError('TG_VALUE_INVALID', `Int cannot represent non 32-bit signed integer value: ${item}`, { nodes: step.nodes, path: [...pathOf(), i] }));
        return null;
      }
    }
  }
  return value;
}

/**
 * The steps that shape each row of a group. Collected fields without directives are the same Map
 * on every run of a prepared document, so when no step expands an edge (steps then depend on
 * nothing but the schema and the document) they are kept and reused.
 */
const staticSteps = new WeakMap<CollectedFields, Map<string, Step[]>>();

function* planSteps(
  state: ExecState, label: string, typeName: string, fields: CollectedFields, rows: readonly NodeRecord[], level: number,
  pathOf: (i: number) => (string | number)[], positions: readonly number[] | null,
): Work<Step[]> {
  const position = (j: number): number => (positions === null ? j : positions[j]!);
  const plan = state.graphSchema.labels.get(label);
  const steps: Step[] = [];
  let expands = false;
  for (const [key, fieldNodes] of fields) {
    const name = fieldNodes[0]!.name.value;
    if (name === '__typename') {
      steps.push({ kind: 'const', key, value: typeName });
      continue;
    }
    const field = name === 'id' ? { kind: 'id' as const } : plan?.fields.get(name);
    // Validation admits only schema fields; a label unknown to this schema (created by this very
    // mutation) can only be selected through `Node`, whose one field is id.
    if (field === undefined || field.kind === 'id') {
      steps.push({ kind: 'id', key });
      continue;
    }
    if (field.kind === 'property') {
      steps.push({ kind: 'property', key, name: field.name, int: field.type === 'Int' || field.type === '[Int]', nodes: fieldNodes });
      continue;
    }
    const first = fieldNodes[0]!;
    const count = pageSize(intArgument(state, first, 'first'), intArgument(state, first, 'limit'), () => ({ nodes: fieldNodes, path: [...pathOf(position(0)), key] }));
    const { children, offsets } = expandLevel(state, rows, field.edge, count, level, () => `${label}.${name}`);
    const childPath = (c: number): (string | number)[] => {
      // The parent j with offsets[j] <= c < offsets[j + 1] (binary search; only errors get here).
      let lo = 0;
      let hi = rows.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (offsets[mid]! <= c) lo = mid;
        else hi = mid - 1;
      }
      return [...pathOf(position(lo)), key, c - offsets[lo]!];
    };
    expands = true;
    // Between levels: a safe point to let other requests run.
    if (state.meter.yieldDue) yield;
    steps.push({ kind: 'edge', key, shaped: yield* shapeNodes(state, children, fieldNodes, level + 1, childPath), offsets });
  }

  if (!expands) {
    let byLabel = staticSteps.get(fields);
    if (byLabel === undefined) staticSteps.set(fields, (byLabel = new Map()));
    byLabel.set(label, steps);
  }
  return steps;
}
