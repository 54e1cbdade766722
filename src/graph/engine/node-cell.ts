import type { NodeRecord, Properties } from './types.ts';

const EMPTY: readonly NodeCell[] = Object.freeze([]);
const NO_PAIRS: readonly (string | NodeCell[])[] = Object.freeze([]);

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

type Pairs = (string | NodeCell[])[];

/** Below this length, lists are rebuilt at their exact size: `push` would reserve 17 slots per list. */
const EXACT_BELOW = 16;

/**
 * Adds a neighbour to the [type, list] pairs, keeping the list in key order. Answers the pairs to
 * store (a new array when a type is added), or null when the neighbour is already there.
 */
function withNeighbour(pairs: Pairs | null, type: string, cell: NodeCell): Pairs | null {
  if (pairs === null) return [type, [cell]];
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i] !== type) continue;
    const list = pairs[i + 1] as NodeCell[];
    const n = list.length;
    let at = n;
    if (n > 0 && !(list[n - 1]!.key < cell.key)) {
      const found = searchCells(list, cell.key);
      if (found >= 0) return null;
      at = -found - 1;
    }
    if (n >= EXACT_BELOW) list.splice(at, 0, cell);
    else pairs[i + 1] = at === n ? list.concat(cell) : list.slice(0, at).concat(cell, list.slice(at));
    return pairs;
  }
  return pairs.concat(type, [[cell]]);
}

function removeSorted(list: NodeCell[], cell: NodeCell): boolean {
  const at = searchCells(list, cell.key);
  if (at < 0) return false;
  list.splice(at, 1);
  return true;
}

/**
 * A stored node. It is the NodeRecord readers get (no copy per row); adjacency sits in private
 * fields, which JSON, spreads and equality checks do not see. Adjacency is a flat
 * [type, neighbours, type, neighbours, …] array (few types per node; cheaper than a Map), each
 * neighbour list sorted by id.
 */
export class NodeCell implements NodeRecord {
  readonly id: string;
  readonly label: string;
  props: Properties;
  // Private so records compare and serialise as plain {id, label, props}.
  readonly #key: string;
  #out: Pairs | null = null;
  #in: Pairs | null = null;

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

  outOf(type: string): readonly NodeCell[] {
    return find(this.#out, type);
  }

  inOf(type: string): readonly NodeCell[] {
    return find(this.#in, type);
  }

  /** [type, list] pairs, flat, in insertion order of types. */
  outPairs(): readonly (string | NodeCell[])[] {
    return this.#out ?? NO_PAIRS;
  }

  inPairs(): readonly (string | NodeCell[])[] {
    return this.#in ?? NO_PAIRS;
  }

  hasOut(type: string, tgt: NodeCell): boolean {
    return searchCells(find(this.#out, type), tgt.key) >= 0;
  }

  /** Links this → tgt; false when the edge already exists. */
  link(type: string, tgt: NodeCell): boolean {
    const out = withNeighbour(this.#out, type, tgt);
    if (out === null) return false;
    this.#out = out;
    tgt.#in = withNeighbour(tgt.#in, type, this) ?? tgt.#in;
    return true;
  }

  unlink(type: string, tgt: NodeCell): boolean {
    const out = this.#out;
    if (!out) return false;
    const list = find(out, type) as NodeCell[];
    if (!removeSorted(list, tgt)) return false;
    if (list.length === 0) dropType(out, type);
    const inList = find(tgt.#in, type) as NodeCell[];
    removeSorted(inList, this);
    if (inList.length === 0) dropType(tgt.#in!, type);
    return true;
  }

  /** Removes every edge touching this node; returns how many. */
  detach(): number {
    let removed = 0;
    const out = this.#out;
    if (out) {
      for (let i = 0; i < out.length; i += 2) {
        const type = out[i] as string;
        for (const tgt of out[i + 1] as NodeCell[]) {
          if (tgt === this) continue;
          const inList = find(tgt.#in, type) as NodeCell[];
          removeSorted(inList, this);
          if (inList.length === 0) dropType(tgt.#in!, type);
        }
        removed += (out[i + 1] as NodeCell[]).length;
      }
    }
    const inc = this.#in;
    if (inc) {
      for (let i = 0; i < inc.length; i += 2) {
        const type = inc[i] as string;
        for (const src of inc[i + 1] as NodeCell[]) {
          if (src === this) continue; // self-loop, counted above
          const outList = find(src.#out, type) as NodeCell[];
          removeSorted(outList, this);
          if (outList.length === 0) dropType(src.#out!, type);
          removed++;
        }
      }
    }
    this.#out = null;
    this.#in = null;
    return removed;
  }
}

function find(pairs: (string | NodeCell[])[] | null, type: string): readonly NodeCell[] {
  if (pairs === null) return EMPTY;
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i] === type) return pairs[i + 1] as NodeCell[];
  }
  return EMPTY;
}

function dropType(pairs: (string | NodeCell[])[], type: string): void {
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i] === type) {
      pairs.splice(i, 2);
      return;
    }
  }
}
