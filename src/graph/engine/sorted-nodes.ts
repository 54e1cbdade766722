import { searchCells, type NodeCell } from './node-cell.ts';

function byKey(a: NodeCell, b: NodeCell): number {
  const x = a.key;
  const y = b.key;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Nodes kept in id order, for label scans and index buckets. Ascending inserts append; others wait in
 * `pending` and are merged on the next read, so a bulk load sorts once instead of shifting per insert.
 */
export class SortedNodes {
  #items: NodeCell[] = [];
  #pending: NodeCell[] = [];

  get size(): number {
    return this.#items.length + this.#pending.length;
  }

  add(cell: NodeCell): void {
    const items = this.#items;
    const n = items.length;
    if (this.#pending.length === 0 && (n === 0 || items[n - 1]!.key < cell.key)) items.push(cell);
    else this.#pending.push(cell);
  }

  delete(cell: NodeCell): void {
    const items = this.sorted();
    const at = searchCells(items, cell.key);
    if (at >= 0) items.splice(at, 1);
  }

  /** The nodes in id order; shared, do not mutate. */
  sorted(): NodeCell[] {
    const pending = this.#pending;
    if (pending.length === 0) return this.#items;
    const items = this.#items;
    if (pending.length <= 16) {
      for (const cell of pending) {
        const at = searchCells(items, cell.key);
        if (at < 0) items.splice(-at - 1, 0, cell);
      }
    } else {
      for (const cell of pending) items.push(cell);
      items.sort(byKey); // TimSort: one sorted run plus a tail merges in linear time
    }
    this.#pending = [];
    return items;
  }
}

/** First index whose key is greater than `key` (or ≥ when `inclusive`). */
export function lowerBound(items: readonly NodeCell[], key: string, inclusive: boolean): number {
  const at = searchCells(items, key);
  if (at >= 0) return inclusive ? at : at + 1;
  return -at - 1;
}
