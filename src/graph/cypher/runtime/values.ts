import type { EdgeRecord, NodeRecord, Properties } from '../../engine/index.ts';

/** A node bound to a variable; properties are read through the run's view so writes show up. */
export class NodeRef {
  readonly id: string;
  readonly record: NodeRecord;
  constructor(record: NodeRecord) {
    this.id = record.id;
    this.record = record;
  }
}

export class EdgeRef {
  readonly edge: EdgeRecord;
  constructor(edge: EdgeRecord) {
    this.edge = edge;
  }
}

/**
 * A path: nodes and the relationships between them, in the order the pattern reads them (one more
 * node than relationships; a relationship may point either way along the path). Built only from
 * what a match reached through the caller's view, and charged by its size before it is built.
 */
export class PathRef {
  readonly nodes: readonly NodeRef[];
  readonly edges: readonly EdgeRef[];
  constructor(nodes: readonly NodeRef[], edges: readonly EdgeRef[]) {
    this.nodes = nodes;
    this.edges = edges;
  }

  /** The alternating sequence node, relationship, node, …: the path's JSON form and its order. */
  alternating(): Value[] {
    const out: Value[] = [this.nodes[0]!];
    for (let i = 0; i < this.edges.length; i++) out.push(this.edges[i]!, this.nodes[i + 1]!);
    return out;
  }
}

/** Runtime values of the subset. Maps are null-prototype objects so any key is safe. */
export type Value = null | boolean | number | string | NodeRef | EdgeRef | PathRef | readonly Value[] | ValueMap;
export interface ValueMap {
  readonly [key: string]: Value;
}

/**
 * A node's stored property, or null when it has none. Stored values are scalars or arrays, never
 * functions or plain objects, so a value of those kinds was inherited (`constructor`, `__proto__`):
 * cheaper than asking Object.hasOwn on every read.
 */
export function storedProperty(props: Properties, key: string): Value {
  const v = (props as Readonly<Record<string, unknown>>)[key];
  if (v === undefined || typeof v === 'function' || (typeof v === 'object' && v !== null && !Array.isArray(v))) return null;
  return v as Value;
}

export function newMap(): Record<string, Value> {
  return Object.create(null) as Record<string, Value>;
}

export function isMap(value: Value): value is ValueMap {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof NodeRef) && !(value instanceof EdgeRef) && !(value instanceof PathRef);
}

export function typeName(value: Value): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'Boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Integer' : 'Float';
  if (typeof value === 'string') return 'String';
  if (value instanceof NodeRef) return 'Node';
  if (value instanceof EdgeRef) return 'Relationship';
  if (value instanceof PathRef) return 'Path';
  if (Array.isArray(value)) return 'List';
  return 'Map';
}

/** A string that is equal for equal values (nodes by id, edges by endpoints and type); used for DISTINCT and grouping. */
export function valueKey(value: Value): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (value instanceof NodeRef) return `N${JSON.stringify(value.id)}`;
  if (value instanceof EdgeRef) return `E${JSON.stringify([value.edge.src, value.edge.type, value.edge.tgt])}`;
  if (value instanceof PathRef) return `P${valueKey(value.alternating())}`;
  if (Array.isArray(value)) {
    const list = value as readonly Value[];
    // A list of scalars alone (a parameter of 450,000 digits, say) keys as its JSON text, which
    // JSON.stringify writes many times faster than item by item (each item's key is its JSON too).
    let scalars = true;
    for (let i = 0; i < list.length && scalars; i++) scalars = typeof list[i] !== 'object' || list[i] === null;
    return scalars ? JSON.stringify(list) : `[${list.map(valueKey).join(',')}]`;
  }
  const map = value as ValueMap;
  return `{${Object.keys(map).sort(compareCodePoints).map((k) => `${JSON.stringify(k)}:${valueKey(map[k]!)}`).join(',')}}`;
}

/** Code-point order (not UTF-16 unit order, not locale order), matching the engine's id order. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800–DFFF) encode code points above every BMP character, including E000–FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Cypher's orderability ranks: maps, nodes, relationships, lists, paths, strings, booleans, numbers, then null. */
function rank(value: Value): number {
  if (value === null) return 8;
  if (typeof value === 'number') return 7;
  if (typeof value === 'boolean') return 6;
  if (typeof value === 'string') return 5;
  if (value instanceof PathRef) return 4;
  if (Array.isArray(value)) return 3;
  if (value instanceof EdgeRef) return 2;
  if (value instanceof NodeRef) return 1;
  return 0;
}

/**
 * What is told of work done on values in proportion to their size (a QueryBudget): one comparison of
 * two 10,000-element lists, or one key of one, is thousands of units, not one, so the budget reads the
 * clock (and the query pauses) on time however large the values are.
 */
export interface WorkMeter {
  tick(units: number): void;
}

/** Characters of a string (or of a key) per unit of work: as QueryBudget counts bytes, one per 16. */
export const CHARS_PER_UNIT_SHIFT = 4;

/** Units of work the comparison in progress has done (module state: comparisons never call out, so never nest). */
let compared = 0;

/**
 * A total order over values for ORDER BY (ascending; null last). With a meter, it is told the work
 * the comparison did beyond a constant: list elements visited, characters compared, keys built.
 */
export function compareValues(a: Value, b: Value, meter?: WorkMeter): number {
  compared = 0;
  const c = compareOrdered(a, b);
  if (meter !== undefined && compared > 0) meter.tick(compared);
  return c;
}

function compareOrdered(a: Value, b: Value): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 7: return (a as number) - (b as number);
    case 6: return Number(a) - Number(b);
    case 4: return compareOrdered((a as PathRef).alternating(), (b as PathRef).alternating());
    case 5: {
      const x = a as string;
      const y = b as string;
      compared += Math.min(x.length, y.length) >>> CHARS_PER_UNIT_SHIFT;
      return compareCodePoints(x, y);
    }
    case 3: {
      const x = a as readonly Value[];
      const y = b as readonly Value[];
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        compared++;
        const c = compareOrdered(x[i]!, y[i]!);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
    case 1: return compareCodePoints((a as NodeRef).id, (b as NodeRef).id);
    case 0:
    case 2: {
      // Maps and relationships compare by their keys, built for the comparison: as long as the values.
      const x = valueKey(a);
      const y = valueKey(b);
      compared += (x.length + y.length) >>> CHARS_PER_UNIT_SHIFT;
      return compareCodePoints(x, y);
    }
    default: return 0;
  }
}

/**
 * The JSON form of a value: a node is its property map plus `id`, an edge is `{src, tgt, type}`, a
 * path the list of its nodes and relationships alternating,
 * maps and lists recurse. Key order is settled at serialisation (RFC 8785), not here. Results are
 * written by `canonicalValue` (result-json.ts) without this intermediate form; this is the reference
 * its property test compares against through `canonicalize`.
 */
export function toJson(value: Value, resolve: (ref: NodeRef) => NodeRecord | null): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof NodeRef) {
    const record = resolve(value);
    if (record === null) return null;
    const node: Record<string, unknown> = {};
    for (const key of [...Object.keys(record.props), 'id'].sort(compareCodePoints)) node[key] = key === 'id' ? record.id : toJson(record.props[key] as Value, resolve);
    return node;
  }
  if (value instanceof EdgeRef) return { src: value.edge.src, tgt: value.edge.tgt, type: value.edge.type };
  if (value instanceof PathRef) return value.alternating().map((item) => toJson(item, resolve));
  if (Array.isArray(value)) return (value as readonly Value[]).map((item) => toJson(item, resolve));
  const out: Record<string, unknown> = {};
  const map = value as ValueMap;
  for (const key of Object.keys(map).sort(compareCodePoints)) {
    // defineProperty keeps a key named __proto__ an ordinary key.
    Object.defineProperty(out, key, { value: toJson(map[key]!, resolve), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
