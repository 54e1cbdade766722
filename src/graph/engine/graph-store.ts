import { ToolgraphError } from '../../errors/index.ts';
import { GraphTypes } from './graph-types.ts';
import { idSortKey } from './id-order.ts';
import { kindOf, wellFormedValue } from './property-values.ts';
import { NodeCell } from './node-cell.ts';
import { SortedNodes } from './sorted-nodes.ts';
import type { GraphView } from './graph-view.ts';
import type {
  Direction, EdgeHit, EdgeRecord, GraphCatalogue, Mutation, NodeRecord, Properties, PropertyType,
  PropertyValue, Scalar, ScanOptions, StoredAccess,
} from './types.ts';

type Filter = Readonly<Record<string, Scalar>>;

/** Index buckets hold scalar values; absent properties sit under `undefined`; lists are not indexed. */
const UNINDEXED = Symbol('unindexed');
function bucketKey(value: PropertyValue | undefined): unknown {
  return Array.isArray(value) ? UNINDEXED : value;
}

class LabelStore {
  readonly nodes = new SortedNodes();
  /** property → value → nodes; built on the first filter on that property, then kept current. */
  readonly indexes = new Map<string, Map<unknown, SortedNodes>>();
}

function addToIndex(index: Map<unknown, SortedNodes>, key: unknown, cell: NodeCell): void {
  if (key === UNINDEXED) return;
  let bucket = index.get(key);
  if (!bucket) {
    bucket = new SortedNodes();
    index.set(key, bucket);
  }
  bucket.add(cell);
}

function removeFromIndex(index: Map<unknown, SortedNodes>, key: unknown, cell: NodeCell): void {
  if (key === UNINDEXED) return;
  const bucket = index.get(key);
  if (!bucket) return;
  bucket.delete(cell);
  if (bucket.size === 0) index.delete(key);
}

function checkCount(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new ToolgraphError('TG_BAD_REQUEST', `${name} must be a non-negative integer; got ${String(value)}.`);
  }
}

function matches(cell: NodeCell, filter: Filter, keys: readonly string[]): boolean {
  const props = cell.props;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const want = filter[k];
    if (k === 'id') {
      if (cell.id !== want) return false;
    } else if (want === null) {
      if (props[k] !== undefined) return false;
    } else if (props[k] !== want) {
      return false;
    }
  }
  return true;
}

interface Step { node: NodeCell; type: string; out: boolean }

function byStep(a: Step, b: Step): number {
  const x = a.node.key;
  const y = b.node.key;
  if (x !== y) return x < y ? -1 : 1;
  if (a.type !== b.type) return a.type < b.type ? -1 : 1;
  return a.out === b.out ? 0 : a.out ? -1 : 1;
}

const EMPTY_NODES: readonly NodeRecord[] = Object.freeze([]);

/** The hits of `cell`'s out-edges of one type, in neighbour (id) order. */
function outHits(cell: NodeCell, type: string): EdgeHit[] {
  const list = cell.outOf(type);
  const hits = new Array<EdgeHit>(list.length);
  for (let i = 0; i < list.length; i++) {
    const node = list[i]!;
    hits[i] = { edge: { src: cell.id, tgt: node.id, type }, node };
  }
  return hits;
}

/** The hits of `cell`'s in-edges of one type, in neighbour (id) order. */
function inHits(cell: NodeCell, type: string): EdgeHit[] {
  const list = cell.inOf(type);
  const hits = new Array<EdgeHit>(list.length);
  for (let i = 0; i < list.length; i++) {
    const node = list[i]!;
    hits[i] = { edge: { src: node.id, tgt: cell.id, type }, node };
  }
  return hits;
}
const NO_KEYS: readonly string[] = Object.freeze([]);

/**
 * Whether a frontier entry is a stored cell (which is its own record). Tested by constructor, a third
 * of the cost of instanceof on the expansion path; a plain object (a record copy, anything parsed
 * from JSON) cannot have NodeCell as its constructor.
 */
function isCell(entry: NodeRecord | string): entry is NodeCell {
  return entry.constructor === NodeCell;
}

/**
 * Sorted property copy with nulls dropped; frozen so the record readers hold never changes. Lone
 * surrogates become U+FFFD: writes refuse them, so this only repairs data stored before they were
 * refused (snapshots restore through here).
 */
export function freezeProps(props: Record<string, PropertyValue>): Properties {
  const out: Record<string, PropertyValue> = {};
  for (const key of Object.keys(props).sort()) {
    const raw = props[key];
    if (raw === null || raw === undefined) continue;
    const v = wellFormedValue(raw);
    out[key] = Array.isArray(v) ? Object.freeze([...v]) : v;
  }
  return Object.freeze(out);
}

/**
 * A node's props after an update: `old` (committed, so already checked and frozen) with `set`
 * (checked when the batch was planned, or repaired on replay) over it and `unset` removed. Unlike
 * freezeProps it never looks into values it keeps, so updating one property of a node that holds a
 * large one costs what the update changes, not what the node holds.
 */
function mergeProps(old: Properties, set: Properties, unset: readonly string[] | undefined): Properties {
  const out: Record<string, PropertyValue> = {};
  const value = (v: PropertyValue): PropertyValue => (Array.isArray(v) && !Object.isFrozen(v) ? Object.freeze([...v]) : v);
  let inPlace = unset === undefined || unset.length === 0;
  if (inPlace) for (const key in set) if (!Object.hasOwn(old, key)) inPlace = false;
  if (inPlace) {
    // Same keys: the old order is already sorted.
    for (const key in old) out[key] = Object.hasOwn(set, key) ? value(set[key]!) : old[key]!;
    return Object.freeze(out);
  }
  const removed = new Set(unset);
  const keys = new Set<string>();
  for (const key in old) if (!removed.has(key)) keys.add(key);
  for (const key in set) if (set[key] !== null && set[key] !== undefined && !removed.has(key)) keys.add(key);
  for (const key of [...keys].sort()) out[key] = Object.hasOwn(set, key) && set[key] !== null ? value(set[key]!) : old[key]!;
  return Object.freeze(out);
}

/** One graph in memory: nodes, label sets, lazy equality indexes, adjacency, catalogue, version. */
export class GraphStore implements GraphView {
  readonly name: string;
  version = 0;
  edgeCount = 0;
  /** The graph's access policy, stored with it (src/graph/access reads it); null when it has none. */
  access: StoredAccess | null = null;
  readonly nodes = new Map<string, NodeCell>();
  readonly #all = new SortedNodes();
  readonly #labels = new Map<string, LabelStore>();
  readonly types: GraphTypes;

  constructor(name: string, types: GraphTypes = new GraphTypes()) {
    this.name = name;
    this.types = types;
  }

  get catalogue(): GraphCatalogue {
    return this.types.read();
  }

  get nodeCount(): number {
    return this.nodes.size;
  }

  node(id: string): NodeRecord | undefined {
    return this.nodes.get(id);
  }

  labels(): readonly string[] {
    return this.types.labelNames();
  }

  // ---- reads -------------------------------------------------------------------------------

  /**
   * The smallest candidate set for a filter (a label list, an index bucket, or the one node an `id`
   * filter names), and the filter keys still to check per node.
   */
  #candidates(ls: LabelStore, label: string, filter: Filter | undefined): { nodes: SortedNodes | null; check: readonly string[] } {
    if (filter === undefined) return { nodes: ls.nodes, check: NO_KEYS };
    const keys = Object.keys(filter);
    if (keys.length === 0) return { nodes: ls.nodes, check: NO_KEYS };
    if (keys.length === 1 && keys[0] !== 'id') {
      // The common filter, one indexed property: its bucket, nothing left to check.
      return { nodes: this.#bucket(ls, keys[0]!, filter[keys[0]!] as Scalar) ?? null, check: NO_KEYS };
    }
    if (keys.includes('id')) {
      const want = filter.id;
      const cell = typeof want === 'string' ? this.nodes.get(want) : undefined;
      if (!cell || cell.label !== label) return { nodes: null, check: NO_KEYS };
      const one = new SortedNodes();
      one.add(cell);
      return { nodes: one, check: keys };
    }
    let best: SortedNodes | undefined;
    let bestKey = '';
    for (const k of keys) {
      const bucket = this.#bucket(ls, k, filter[k] as Scalar);
      if (!bucket) return { nodes: null, check: NO_KEYS };
      if (!best || bucket.size < best.size) {
        best = bucket;
        bestKey = k;
      }
    }
    // Two or more keys (one alone took the fast path above): check the others per node.
    return { nodes: best!, check: keys.filter((k) => k !== bestKey) };
  }

  /** The nodes of a label whose `prop` equals `want` (null: lacks it), through the property's index. */
  #bucket(ls: LabelStore, prop: string, want: Scalar): SortedNodes | undefined {
    return this.#index(ls, prop).get(want === null ? undefined : want);
  }

  #index(ls: LabelStore, prop: string): Map<unknown, SortedNodes> {
    let index = ls.indexes.get(prop);
    if (!index) {
      index = new Map();
      for (const cell of ls.nodes.toArray()) addToIndex(index, bucketKey(cell.props[prop]), cell);
      ls.indexes.set(prop, index);
    }
    return index;
  }

  scan(label: string, options: ScanOptions = {}): NodeRecord[] {
    const { filter, after, before, first, last, keep: extra } = options;
    checkCount('first', first);
    checkCount('last', last);
    const ls = this.#labels.get(label);
    if (!ls) return [];
    const { nodes, check } = this.#candidates(ls, label, filter);
    if (nodes === null) return [];
    const keep = check.length === 0 ? extra : extra === undefined ? (cell: NodeCell) => matches(cell, filter!, check) : (cell: NodeCell) => matches(cell, filter!, check) && extra(cell);
    return nodes.range(after === undefined ? undefined : idSortKey(after), before === undefined ? undefined : idSortKey(before), first, last, keep);
  }

  count(label: string, filter?: Filter, keep?: (node: NodeRecord) => boolean): number {
    const ls = this.#labels.get(label);
    if (!ls) return 0;
    const { nodes, check } = this.#candidates(ls, label, filter);
    if (nodes === null) return 0;
    if (check.length === 0) return nodes.count(keep);
    return nodes.count(keep === undefined ? (cell) => matches(cell, filter!, check) : (cell) => matches(cell, filter!, check) && keep(cell));
  }

  #steps(cell: NodeCell, edgeType: string | null, direction: Direction): Step[] {
    const steps: Step[] = [];
    const add = (out: boolean): void => {
      for (const type of edgeType === null ? (out ? cell.outTypes() : cell.inTypes()) : [edgeType]) {
        for (const node of out ? cell.outOf(type) : cell.inOf(type)) {
          // A self-loop is one edge: under 'both' take it once, from the out side.
          if (!out && direction === 'both' && node === cell) continue;
          steps.push({ node, type, out });
        }
      }
    };
    if (direction !== 'in') add(true);
    if (direction !== 'out') add(false);
    return steps.sort(byStep);
  }

  expand(frontier: readonly string[], edgeType: string | null, direction: Direction): Map<string, readonly NodeRecord[]> {
    const result = new Map<string, readonly NodeRecord[]>();
    const nodes = this.nodes;
    for (let i = 0; i < frontier.length; i++) {
      const id = frontier[i]!;
      const cell = nodes.get(id);
      if (cell === undefined) continue;
      if (edgeType !== null && direction === 'out') result.set(id, cell.outOf(edgeType));
      else if (edgeType !== null && direction === 'in') result.set(id, cell.inOf(edgeType));
      else {
        const steps = this.#steps(cell, edgeType, direction);
        result.set(id, steps.length === 0 ? EMPTY_NODES : steps.map((s) => s.node));
      }
    }
    return result;
  }

  /** The neighbours of one frontier entry (a cell of this graph, a record or an id). */
  #neighbours(entry: NodeRecord | string, edgeType: string | null, direction: Direction): readonly NodeRecord[] {
    // A record of this graph is its cell: use it directly. A deleted cell has no edges left.
    const cell = isCell(entry) ? entry : this.nodes.get(typeof entry === 'string' ? entry : entry.id);
    if (cell === undefined) return EMPTY_NODES;
    if (edgeType !== null && direction === 'out') return cell.outOf(edgeType);
    if (edgeType !== null && direction === 'in') return cell.inOf(edgeType);
    const steps = this.#steps(cell, edgeType, direction);
    return steps.length === 0 ? EMPTY_NODES : steps.map((s) => s.node);
  }

  expandEach(frontier: readonly (NodeRecord | string)[], edgeType: string | null, direction: Direction): (readonly NodeRecord[])[] {
    const n = frontier.length;
    const result: (readonly NodeRecord[])[] = new Array(n);
    if (edgeType !== null && direction !== 'both') {
      // The common step, one loop per direction: no per-entry dispatch on type and direction.
      if (direction === 'out') {
        for (let i = 0; i < n; i++) {
          const entry = frontier[i]!;
          result[i] = isCell(entry) ? entry.outOf(edgeType) : this.#neighbours(entry, edgeType, direction);
        }
      } else {
        for (let i = 0; i < n; i++) {
          const entry = frontier[i]!;
          result[i] = isCell(entry) ? entry.inOf(edgeType) : this.#neighbours(entry, edgeType, direction);
        }
      }
      return result;
    }
    // Several types or both directions merge lists per entry, which costs their length: a frontier
    // repeating a node (every row of a cross product holding the same hub) merges it once.
    let merged: Map<NodeRecord | string, readonly NodeRecord[]> | null = null;
    for (let i = 0; i < n; i++) {
      const entry = frontier[i]!;
      let list = merged?.get(entry);
      if (list === undefined) {
        list = this.#neighbours(entry, edgeType, direction);
        if (list.length > 64) (merged ??= new Map()).set(entry, list);
      }
      result[i] = list;
    }
    return result;
  }

  edges(frontier: readonly string[], edgeType: string | null, direction: Direction): Map<string, readonly EdgeHit[]> {
    const result = new Map<string, readonly EdgeHit[]>();
    for (const id of frontier) {
      const cell = this.nodes.get(id);
      if (cell === undefined) continue;
      if (edgeType !== null && direction !== 'both') {
        // One type, one direction: the neighbour list is already in step order (sorted by id), so
        // the hits are made from it directly, without the general path's steps and their sort.
        result.set(id, direction === 'out' ? outHits(cell, edgeType) : inHits(cell, edgeType));
        continue;
      }
      result.set(id, this.#steps(cell, edgeType, direction).map((s) => ({
        edge: s.out ? { src: cell.id, tgt: s.node.id, type: s.type } : { src: s.node.id, tgt: cell.id, type: s.type },
        node: s.node,
      })));
    }
    return result;
  }

  allNodes(): Iterable<NodeRecord> {
    return this.#all.toArray();
  }

  *allEdges(): Iterable<EdgeRecord> {
    for (const cell of this.#all.toArray()) {
      const types = cell.outTypes().sort();
      for (const type of types) for (const tgt of cell.outOf(type)) yield { src: cell.id, tgt: tgt.id, type };
    }
  }

  // ---- writes (already validated by planBatch; these cannot fail) ---------------------------

  #labelStore(label: string): LabelStore {
    let ls = this.#labels.get(label);
    if (!ls) {
      ls = new LabelStore();
      this.#labels.set(label, ls);
    }
    return ls;
  }

  /** Inserts a node and records new catalogue facts; returns whether the catalogue changed. */
  insertNode(id: string, label: string, props: Properties): boolean {
    const cell = new NodeCell(id, idSortKey(id), label, props);
    this.nodes.set(id, cell);
    this.#all.add(cell);
    const ls = this.#labelStore(label);
    ls.nodes.add(cell);
    for (const [prop, index] of ls.indexes) addToIndex(index, bucketKey(props[prop]), cell);
    let changed = this.types.addLabel(label);
    for (const prop in props) changed = this.#learnType(label, prop, props[prop]!) || changed;
    return changed;
  }

  /** Records a property's type on its first value, and widens Int to Float (see types.ts). */
  #learnType(label: string, prop: string, value: PropertyValue): boolean {
    const declared = this.types.typeOf(label, prop);
    if (declared === undefined) return this.types.setType(label, prop, kindOf(value, prop) as PropertyType);
    if (declared === 'Int') return typeof value === 'number' && !Number.isInteger(value) && this.types.setType(label, prop, 'Float');
    if (declared === '[Int]') {
      return Array.isArray(value) && value.some((v) => !Number.isInteger(v)) && this.types.setType(label, prop, '[Float]');
    }
    return false;
  }

  replaceProps(cell: NodeCell, props: Properties): boolean {
    const old = cell.props;
    cell.props = props;
    const ls = this.#labels.get(cell.label)!;
    for (const [prop, index] of ls.indexes) {
      const before = bucketKey(old[prop]);
      const after = bucketKey(props[prop]);
      if (before === after) continue;
      removeFromIndex(index, before, cell);
      addToIndex(index, after, cell);
    }
    let changed = false;
    for (const prop in props) if (old[prop] !== props[prop]) changed = this.#learnType(cell.label, prop, props[prop]!) || changed;
    return changed;
  }

  removeNode(cell: NodeCell): void {
    this.edgeCount -= cell.detach();
    this.nodes.delete(cell.id);
    this.#all.delete(cell);
    const ls = this.#labels.get(cell.label)!;
    ls.nodes.delete(cell);
    for (const [prop, index] of ls.indexes) removeFromIndex(index, bucketKey(cell.props[prop]), cell);
  }

  link(src: NodeCell, tgt: NodeCell, type: string): boolean {
    if (src.link(type, tgt)) this.edgeCount++;
    return this.types.addPair(type, src.label, tgt.label);
  }

  /** Applies normalised mutations; returns whether the catalogue changed. */
  apply(mutations: readonly Mutation[]): boolean {
    let changed = false;
    const nodes = this.nodes;
    for (const m of mutations) {
      switch (m.op) {
        case 'createNode':
          changed = this.insertNode(m.id, m.label, m.props) || changed;
          break;
        case 'updateNode': {
          const cell = nodes.get(m.id)!;
          changed = this.replaceProps(cell, mergeProps(cell.props, m.set, m.unset)) || changed;
          break;
        }
        case 'deleteNode':
          this.removeNode(nodes.get(m.id)!);
          break;
        case 'addEdge':
          changed = this.link(nodes.get(m.src)!, nodes.get(m.tgt)!, m.type) || changed;
          break;
        case 'removeEdge':
          if (nodes.get(m.src)!.unlink(m.type, nodes.get(m.tgt)!)) this.edgeCount--;
          break;
        case 'setAccess':
          // apply runs before the version moves: the batch's version is the next one.
          this.access = m.policy === null ? null : Object.freeze({ version: this.version + 1, policy: m.policy });
          break;
        case 'setNamespace':
          changed = this.types.setNamespace(m.namespace) || changed;
          break;
      }
    }
    return changed;
  }
}
