import type { NodeRecord } from '../engine/index.ts';
import type { EdgeField } from '../schema/index.ts';
import type { ExecState } from './exec-state.ts';
import { overListLimit } from './list-limit.ts';

/**
 * Parents per `expandEach` call. The engine's lists are shared, but a row-filtered view copies the
 * lists it filters: a chunk bounds what it allocates before its rows are charged.
 */
const CHUNK = 4096;

/** One BFS level: the children of every parent in one array, parent j's at offsets[j] to offsets[j + 1]. */
export interface Level {
  readonly children: NodeRecord[];
  readonly offsets: number[];
}

/**
 * Expands one edge field over a whole frontier. How many children each parent has (cut to `count`)
 * is known from its adjacency list, so the level's rows are charged, and a parent over the list
 * limit (no `count`) refused, before the children's array is allocated. A frontier larger than
 * CHUNK is expanded CHUNK parents at a time, each chunk charged before the next is read.
 */
export function expandLevel(state: ExecState, rows: readonly NodeRecord[], edge: EdgeField, count: number | undefined, level: number, field: () => string): Level {
  const n = rows.length;
  // A plain array: allocating an Int32Array costs about 1 µs here, more than a small level's shaping.
  const offsets: number[] = new Array(n + 1);
  offsets[0] = 0;
  const cap = count ?? state.listLimit;
  let lists: (readonly NodeRecord[])[];
  let total = 0;
  if (n <= CHUNK) {
    lists = state.view.expandEach(rows, edge.edgeType, edge.direction);
    total = measure(lists, 0, offsets, 0, cap, count === undefined, state.listLimit, field);
    state.meter.rows(total, level + 1);
  } else {
    lists = new Array<readonly NodeRecord[]>(n);
    for (let start = 0; start < n; start += CHUNK) {
      const part = state.view.expandEach(rows.slice(start, start + CHUNK), edge.edgeType, edge.direction);
      const before = total;
      total = measure(part, start, offsets, total, cap, count === undefined, state.listLimit, field);
      state.meter.rows(total - before, level + 1);
      for (let i = 0; i < part.length; i++) lists[start + i] = part[i]!;
    }
  }
  const children = new Array<NodeRecord>(total);
  let k = 0;
  for (let j = 0; j < n; j++) {
    const list = lists[j]!;
    const end = offsets[j + 1]! - offsets[j]!;
    for (let c = 0; c < end; c++) children[k++] = list[c]!;
  }
  if (state.reads !== null) state.reads.expanded(edge.edgeType, children);
  return { children, offsets };
}

/** Fills offsets for lists[0..] (parents from `base` on) and returns the running total. */
function measure(lists: readonly (readonly NodeRecord[])[], base: number, offsets: number[], total: number, cap: number, unpaged: boolean, listLimit: number, field: () => string): number {
  for (let j = 0; j < lists.length; j++) {
    const len = lists[j]!.length;
    if (len > cap) {
      if (unpaged) throw overListLimit(field(), listLimit);
      total += cap;
    } else {
      total += len;
    }
    offsets[base + j + 1] = total;
  }
  return total;
}
