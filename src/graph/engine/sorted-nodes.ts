import { searchCells, type NodeCell } from './node-cell.ts';

/**
 * Cells per block. An insert or delete moves at most 2 × BLOCK pointers inside one block, and the
 * block list (n / BLOCK entries) only shifts when a block splits, empties or merges.
 */
const BLOCK = 512;

function byKey(a: NodeCell, b: NodeCell): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Index of the first cell of `block` whose key is greater than `key` (or ≥ when `inclusive`). */
function boundIn(block: readonly NodeCell[], key: string, inclusive: boolean): number {
  const at = searchCells(block, key);
  if (at >= 0) return inclusive ? at : at + 1;
  return -at - 1;
}

/**
 * Nodes kept in id (sort key) order, for label scans and index buckets: a list of sorted blocks, so
 * inserts and deletes anywhere cost O(log n + BLOCK) instead of shifting the whole list (deleting
 * 200k nodes one by one was quadratic with a flat array). Ascending inserts (bulk loads) append.
 * Scans walk the blocks from a binary-searched position, so keyset pages cost O(log n + page).
 */
export class SortedNodes {
  /** Non-empty key-sorted blocks in key order; none longer than 2 × BLOCK. */
  #blocks: NodeCell[][] = [];
  /** Cells in blocks (pending ones not counted). */
  #size = 0;
  #pending: NodeCell[] | null = null;

  /** Cells per block (a getter so that tests can use tiny blocks; no field per instance). */
  protected get blockSize(): number {
    return BLOCK;
  }

  get size(): number {
    this.#flush();
    return this.#size;
  }

  /** The first block whose last key is ≥ key (or > key when `strictly`); blocks.length when none. */
  #blockFor(key: string, strictly: boolean): number {
    const blocks = this.#blocks;
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = blocks[mid]!;
      const last = block[block.length - 1]!.key;
      if (last < key || (strictly && last === key)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Adds a cell; a cell whose key is already present is left alone. Ascending adds append; others
   * wait in `pending` until the next read or delete, so a bulk load in any order sorts once.
   */
  add(cell: NodeCell): void {
    const pending = this.#pending;
    if (pending !== null) {
      pending.push(cell);
      return;
    }
    const blocks = this.#blocks;
    const tail = blocks[blocks.length - 1];
    if (tail === undefined || tail[tail.length - 1]!.key < cell.key) {
      if (tail !== undefined && tail.length < this.blockSize) tail.push(cell);
      else blocks.push([cell]);
      this.#size++;
      return;
    }
    this.#pending = [cell];
  }

  /** Places one cell inside its block: O(log n + BLOCK). */
  #insert(cell: NodeCell): void {
    const blocks = this.#blocks;
    const key = cell.key;
    const tail = blocks[blocks.length - 1];
    if (tail === undefined || tail[tail.length - 1]!.key < key) {
      if (tail !== undefined && tail.length < this.blockSize) tail.push(cell);
      else blocks.push([cell]);
      this.#size++;
      return;
    }
    const b = this.#blockFor(key, false);
    const block = blocks[b]!;
    const at = searchCells(block, key);
    if (at >= 0) return;
    block.splice(-at - 1, 0, cell);
    this.#size++;
    const size = this.blockSize;
    if (block.length > 2 * size) blocks.splice(b + 1, 0, block.splice(size));
  }

  /**
   * Merges the pending cells: one by one when few, else one sort and a rebuild of the blocks (linear
   * in the size, paid for by at least size / 8 adds).
   */
  #flush(): void {
    const pending = this.#pending;
    if (pending === null) return;
    this.#pending = null;
    if (pending.length * 8 < this.#size) {
      for (const cell of pending) this.#insert(cell);
      return;
    }
    pending.sort(byKey);
    const old = this.#blocks;
    const size = this.blockSize;
    const blocks: NodeCell[][] = [];
    let block: NodeCell[] = [];
    let last = '';
    let count = 0;
    const put = (cell: NodeCell): void => {
      if (count > 0 && cell.key === last) return;
      if (block.length === size) {
        blocks.push(block);
        block = [];
      }
      block.push(cell);
      last = cell.key;
      count++;
    };
    let j = 0;
    for (const b of old) {
      for (let i = 0; i < b.length; i++) {
        const cell = b[i]!;
        // On equal keys the stored cell comes first and the pending one is dropped.
        while (j < pending.length && pending[j]!.key < cell.key) put(pending[j++]!);
        put(cell);
      }
    }
    while (j < pending.length) put(pending[j++]!);
    if (block.length > 0) blocks.push(block);
    this.#blocks = blocks;
    this.#size = count;
  }

  /** Removes this very cell; false when it is not here. */
  delete(cell: NodeCell): boolean {
    this.#flush();
    const blocks = this.#blocks;
    const b = this.#blockFor(cell.key, false);
    const block = blocks[b];
    if (block === undefined) return false;
    const at = searchCells(block, cell.key);
    if (at < 0 || block[at] !== cell) return false;
    if (at === block.length - 1) block.pop();
    else block.splice(at, 1);
    this.#size--;
    if (block.length === 0) {
      blocks.splice(b, 1);
    } else if (block.length <= this.blockSize / 4) {
      // Merge a small block into a neighbour so that the block list stays about n / BLOCK long.
      const next = blocks[b + 1];
      const prev = blocks[b - 1];
      const size = this.blockSize;
      if (next !== undefined && next.length + block.length <= size) {
        for (const c of next) block.push(c);
        blocks.splice(b + 1, 1);
      } else if (prev !== undefined && prev.length + block.length <= size) {
        for (const c of block) prev.push(c);
        blocks.splice(b, 1);
      }
    }
    return true;
  }

  /**
   * The cells with `after` < key < `before` (sort keys; undefined is unbounded) that pass `keep`, in
   * key order: at most `first` from the start of that range or, when `first` is undefined, at most
   * `last` from its end.
   */
  range(after: string | undefined, before: string | undefined, first: number | undefined, last: number | undefined,
    keep?: (cell: NodeCell) => boolean): NodeCell[] {
    this.#flush();
    const out: NodeCell[] = [];
    const blocks = this.#blocks;
    if (blocks.length === 0 || first === 0 || (first === undefined && last === 0)) return out;
    let sb = 0;
    let si = 0;
    if (after !== undefined) {
      sb = this.#blockFor(after, true);
      if (sb === blocks.length) return out;
      si = boundIn(blocks[sb]!, after, false);
    }
    let eb = blocks.length - 1;
    let ei = blocks[eb]!.length;
    if (before !== undefined) {
      eb = this.#blockFor(before, false);
      if (eb === blocks.length) eb = blocks.length - 1;
      else ei = boundIn(blocks[eb]!, before, true);
    }
    if (eb < sb || (eb === sb && ei <= si)) return out;
    if (keep === undefined) {
      if (first !== undefined || last === undefined) return this.#copy(sb, si, eb, ei, first ?? Infinity);
      // The last `last` cells: walk back from the end, then copy forward.
      let b = eb;
      let i = ei;
      let need = last;
      for (;;) {
        const floor = b === sb ? si : 0;
        if (i - floor >= need) {
          i -= need;
          break;
        }
        need -= i - floor;
        i = floor;
        if (b === sb) break;
        b--;
        i = blocks[b]!.length;
      }
      return this.#copy(b, i, eb, ei, Infinity);
    }
    if (first === undefined && last !== undefined) {
      for (let b = eb; b >= sb; b--) {
        const block = blocks[b]!;
        const from = b === sb ? si : 0;
        for (let i = (b === eb ? ei : block.length) - 1; i >= from; i--) {
          const cell = block[i]!;
          if (keep(cell) && out.push(cell) >= last) return out.reverse();
        }
      }
      return out.reverse();
    }
    const cap = first ?? Infinity;
    for (let b = sb; b <= eb; b++) {
      const block = blocks[b]!;
      const to = b === eb ? ei : block.length;
      for (let i = b === sb ? si : 0; i < to; i++) {
        const cell = block[i]!;
        if (keep(cell) && out.push(cell) >= cap) return out;
      }
    }
    return out;
  }

  /** Up to `limit` cells from (sb, si) to (eb, ei) exclusive: a slice when one block holds them. */
  #copy(sb: number, si: number, eb: number, ei: number, limit: number): NodeCell[] {
    const blocks = this.#blocks;
    const first = blocks[sb]!;
    const firstEnd = sb === eb ? ei : first.length;
    if (firstEnd - si >= limit) return first.slice(si, si + limit);
    if (sb === eb) return first.slice(si, ei);
    let total = firstEnd - si;
    let b = sb + 1;
    for (; b < eb && total < limit; b++) total += blocks[b]!.length;
    if (b === eb && total < limit) total += ei;
    total = Math.min(total, limit);
    const out: NodeCell[] = new Array(total);
    let k = 0;
    for (let j = sb; k < total; j++) {
      const block = blocks[j]!;
      for (let i = j === sb ? si : 0; i < block.length && k < total; i++) out[k++] = block[i]!;
    }
    return out;
  }

  /** How many cells pass `keep` (all when omitted). */
  count(keep?: (cell: NodeCell) => boolean): number {
    this.#flush();
    if (keep === undefined) return this.#size;
    let n = 0;
    for (const block of this.#blocks) for (let i = 0; i < block.length; i++) if (keep(block[i]!)) n++;
    return n;
  }

  /** Every cell in key order, copied. */
  toArray(): NodeCell[] {
    this.#flush();
    const out: NodeCell[] = new Array(this.#size);
    let k = 0;
    for (const block of this.#blocks) for (let i = 0; i < block.length; i++) out[k++] = block[i]!;
    return out;
  }
}
