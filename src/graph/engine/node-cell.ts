import type { NodeRecord, Properties } from './types.ts';

const EMPTY: readonly NodeCell[] = Object.freeze([]);

/** Index of `key` in a key-sorted cell list, or the insertion point as `-(i + 1)`. */
export function searchCells(list: readonly NodeCell[], key: string): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = list[mid]!.key;
    if (k < key) lo = mid + 1;
    else if (k > key) hi = mid - 1;
    else return mid;
  }
  return -(lo + 1);
}

function byKey(a: NodeCell, b: NodeCell): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Below this length, lists are rebuilt at their exact size: `push` would reserve 17 slots per list. */
const EXACT_BELOW = 16;
/** From this length on, a neighbour list becomes a NeighbourSet (a hub's splices would be O(degree) each). */
const LARGE_FROM = 256;

/**
 * The neighbours of a high-degree node over one edge type. Adds and removes are O(log d) and wait in
 * two sets; the sorted array readers get is rebuilt on the next read, at a cost no larger than the
 * reader's own walk over it. So a hub losing its 100k edges one by one costs O(d log d), not O(d²).
 */
class NeighbourSet {
  #list: NodeCell[];
  #added: Set<NodeCell> | null = null;
  #removed: Set<NodeCell> | null = null;

  constructor(list: NodeCell[]) {
    this.#list = list;
  }

  get size(): number {
    return this.#list.length - (this.#removed?.size ?? 0) + (this.#added?.size ?? 0);
  }

  has(cell: NodeCell): boolean {
    if (this.#added?.has(cell)) return true;
    if (this.#removed?.has(cell)) return false;
    const at = searchCells(this.#list, cell.key);
    return at >= 0 && this.#list[at] === cell;
  }

  /** False when the cell is already here. */
  add(cell: NodeCell): boolean {
    if (this.#removed?.delete(cell)) return true;
    if (this.has(cell)) return false;
    const list = this.#list;
    if (this.#added === null && this.#removed === null && list[list.length - 1]!.key < cell.key) list.push(cell);
    else (this.#added ??= new Set()).add(cell);
    return true;
  }

  /** False when the cell is not here. */
  delete(cell: NodeCell): boolean {
    if (this.#added?.delete(cell)) return true;
    if (!this.has(cell)) return false;
    (this.#removed ??= new Set()).add(cell);
    return true;
  }

  /** The neighbours in key order; shared, do not mutate. */
  read(): NodeCell[] {
    const added = this.#added;
    const removed = this.#removed;
    if (added === null && removed === null) return this.#list;
    const old = this.#list;
    const adds = added === null ? [] : [...added].sort(byKey);
    const next: NodeCell[] = [];
    let j = 0;
    for (let i = 0; i < old.length; i++) {
      const cell = old[i]!;
      if (removed?.has(cell)) continue;
      while (j < adds.length && adds[j]!.key < cell.key) next.push(adds[j++]!);
      next.push(cell);
    }
    while (j < adds.length) next.push(adds[j++]!);
    // A new array: a reader still holding the old one keeps a consistent (older) list.
    this.#list = next;
    this.#added = null;
    this.#removed = null;
    return next;
  }
}

type Neighbours = NodeCell[] | NeighbourSet;
/** Flat [type, neighbours, type, neighbours, …] for the types past a cell's first two. */
type Pairs = (string | Neighbours)[];

function listOf(neighbours: Neighbours): NodeCell[] {
  return Array.isArray(neighbours) ? neighbours : neighbours.read();
}

/**
 * One direction of a cell's adjacency: two inline (type, neighbours) slots, then overflow pairs. The
 * write paths below are written once for both directions through these accessors.
 */
interface Side {
  type(cell: NodeCell, slot: 0 | 1): string | null;
  list(cell: NodeCell, slot: 0 | 1): Neighbours | null;
  set(cell: NodeCell, slot: 0 | 1, type: string | null, list: Neighbours | null): void;
  more(cell: NodeCell): Pairs | null;
  setMore(cell: NodeCell, pairs: Pairs | null): void;
}

function sideList(side: Side, cell: NodeCell, type: string): Neighbours | null {
  if (side.type(cell, 0) === type) return side.list(cell, 0);
  if (side.type(cell, 1) === type) return side.list(cell, 1);
  const more = side.more(cell);
  if (more !== null) for (let i = 0; i < more.length; i += 2) if (more[i] === type) return more[i + 1] as Neighbours;
  return null;
}

/** Stores the list of an existing type, or drops the type when `list` is null. */
function setSideList(side: Side, cell: NodeCell, type: string, list: Neighbours | null): void {
  for (const slot of [0, 1] as const) {
    if (side.type(cell, slot) === type) {
      side.set(cell, slot, list === null ? null : type, list);
      return;
    }
  }
  const more = side.more(cell)!;
  for (let i = 0; i < more.length; i += 2) {
    if (more[i] !== type) continue;
    if (list !== null) more[i + 1] = list;
    else if (more.length === 2) side.setMore(cell, null);
    else more.splice(i, 2);
    return;
  }
}

function addType(side: Side, cell: NodeCell, type: string, list: Neighbours): void {
  if (side.type(cell, 0) === null) side.set(cell, 0, type, list);
  else if (side.type(cell, 1) === null) side.set(cell, 1, type, list);
  else side.setMore(cell, [...(side.more(cell) ?? []), type, list]);
}

/** Adds a neighbour, keeping the list in key order; false when it is already there. */
function addNeighbour(side: Side, cell: NodeCell, type: string, other: NodeCell): boolean {
  const neighbours = sideList(side, cell, type);
  if (neighbours === null) {
    addType(side, cell, type, [other]);
    return true;
  }
  if (!Array.isArray(neighbours)) return neighbours.add(other);
  const list = neighbours;
  const n = list.length;
  let at = n;
  if (n > 0 && !(list[n - 1]!.key < other.key)) {
    const found = searchCells(list, other.key);
    if (found >= 0) return false;
    at = -found - 1;
  }
  if (n >= LARGE_FROM) {
    const set = new NeighbourSet(list);
    set.add(other);
    setSideList(side, cell, type, set);
  } else if (n >= EXACT_BELOW) {
    list.splice(at, 0, other);
  } else {
    setSideList(side, cell, type, at === n ? list.concat(other) : list.slice(0, at).concat(other, list.slice(at)));
  }
  return true;
}

/** Removes a neighbour (dropping the type when it was the last); false when absent. */
function removeNeighbour(side: Side, cell: NodeCell, type: string, other: NodeCell): boolean {
  const neighbours = sideList(side, cell, type);
  if (neighbours === null) return false;
  let left: number;
  if (Array.isArray(neighbours)) {
    const at = searchCells(neighbours, other.key);
    if (at < 0 || neighbours[at] !== other) return false;
    neighbours.splice(at, 1);
    left = neighbours.length;
  } else {
    if (!neighbours.delete(other)) return false;
    left = neighbours.size;
  }
  if (left === 0) setSideList(side, cell, type, null);
  return true;
}

function typesOf(side: Side, cell: NodeCell): string[] {
  const types: string[] = [];
  for (const slot of [0, 1] as const) {
    const type = side.type(cell, slot);
    if (type !== null) types.push(type);
  }
  const more = side.more(cell);
  if (more !== null) for (let i = 0; i < more.length; i += 2) types.push(more[i] as string);
  return types;
}

function findMore(more: Pairs, type: string): Neighbours | null {
  for (let i = 0; i < more.length; i += 2) if (more[i] === type) return more[i + 1] as Neighbours;
  return null;
}

let OUT: Side;
let IN: Side;

/**
 * A stored node. It is the NodeRecord readers get (no copy per row); adjacency sits in private
 * fields, which JSON, spreads and equality checks do not see. Per direction, the first two edge types
 * sit in inline slots (a hop reads cell → list, one load fewer than a pairs array), the rest in flat
 * overflow pairs. Each neighbour list is sorted by id.
 */
export class NodeCell implements NodeRecord {
  readonly id: string;
  readonly label: string;
  props: Properties;
  // Private so records compare and serialise as plain {id, label, props}.
  readonly #key: string;
  #outType0: string | null = null;
  #out0: Neighbours | null = null;
  #outType1: string | null = null;
  #out1: Neighbours | null = null;
  #outMore: Pairs | null = null;
  #inType0: string | null = null;
  #in0: Neighbours | null = null;
  #inType1: string | null = null;
  #in1: Neighbours | null = null;
  #inMore: Pairs | null = null;

  static {
    OUT = {
      type: (c, slot) => (slot === 0 ? c.#outType0 : c.#outType1),
      list: (c, slot) => (slot === 0 ? c.#out0 : c.#out1),
      set: (c, slot, type, list) => {
        if (slot === 0) {
          c.#outType0 = type;
          c.#out0 = list;
        } else {
          c.#outType1 = type;
          c.#out1 = list;
        }
      },
      more: (c) => c.#outMore,
      setMore: (c, pairs) => {
        c.#outMore = pairs;
      },
    };
    IN = {
      type: (c, slot) => (slot === 0 ? c.#inType0 : c.#inType1),
      list: (c, slot) => (slot === 0 ? c.#in0 : c.#in1),
      set: (c, slot, type, list) => {
        if (slot === 0) {
          c.#inType0 = type;
          c.#in0 = list;
        } else {
          c.#inType1 = type;
          c.#in1 = list;
        }
      },
      more: (c) => c.#inMore,
      setMore: (c, pairs) => {
        c.#inMore = pairs;
      },
    };
  }

  constructor(id: string, key: string, label: string, props: Properties) {
    this.id = id;
    this.#key = key;
    this.label = label;
    this.props = props;
  }

  /** The id's code-point sort key (see id-order.ts). */
  get key(): string {
    return this.#key;
  }

  toJSON(): NodeRecord {
    return { id: this.id, label: this.label, props: this.props };
  }

  /** Targets of this node's out-edges of a type, ascending id; shared, do not mutate. */
  outOf(type: string): readonly NodeCell[] {
    const list = this.#outType0 === type ? this.#out0 : this.#outType1 === type ? this.#out1
      : this.#outMore === null ? null : findMore(this.#outMore, type);
    return list === null ? EMPTY : Array.isArray(list) ? list : (list as NeighbourSet).read();
  }

  inOf(type: string): readonly NodeCell[] {
    const list = this.#inType0 === type ? this.#in0 : this.#inType1 === type ? this.#in1
      : this.#inMore === null ? null : findMore(this.#inMore, type);
    return list === null ? EMPTY : Array.isArray(list) ? list : (list as NeighbourSet).read();
  }

  /** Types of the out-edges (no particular order). */
  outTypes(): string[] {
    return typesOf(OUT, this);
  }

  inTypes(): string[] {
    return typesOf(IN, this);
  }

  hasOut(type: string, tgt: NodeCell): boolean {
    const neighbours = sideList(OUT, this, type);
    if (neighbours === null) return false;
    if (!Array.isArray(neighbours)) return neighbours.has(tgt);
    const at = searchCells(neighbours, tgt.key);
    return at >= 0 && neighbours[at] === tgt;
  }

  /** Links this → tgt; false when the edge already exists. */
  link(type: string, tgt: NodeCell): boolean {
    if (!addNeighbour(OUT, this, type, tgt)) return false;
    addNeighbour(IN, tgt, type, this);
    return true;
  }

  unlink(type: string, tgt: NodeCell): boolean {
    if (!removeNeighbour(OUT, this, type, tgt)) return false;
    removeNeighbour(IN, tgt, type, this);
    return true;
  }

  /** Removes every edge touching this node; returns how many. */
  detach(): number {
    let removed = 0;
    for (const type of typesOf(OUT, this)) {
      const list = listOf(sideList(OUT, this, type)!);
      for (const tgt of list) if (tgt !== this) removeNeighbour(IN, tgt, type, this);
      removed += list.length;
    }
    for (const type of typesOf(IN, this)) {
      for (const src of listOf(sideList(IN, this, type)!)) {
        if (src === this) continue; // self-loop, counted above
        removeNeighbour(OUT, src, type, this);
        removed++;
      }
    }
    this.#outType0 = this.#outType1 = this.#inType0 = this.#inType1 = null;
    this.#out0 = this.#out1 = this.#in0 = this.#in1 = null;
    this.#outMore = this.#inMore = null;
    return removed;
  }
}
