/** The paths a pattern grows, as columns, and the plan that grows them: what the match modules share. */
import type { NodeRecord } from '../../engine/index.ts';
import type { Chunk } from './row-stream.ts';
import type { Value } from './values.ts';

/**
 * The paths a pattern is growing for one chunk of its input rows, as columns: per path, the input
 * row it grew from, the node it has reached, and the values of the live slots the pattern binds
 * (`PatternPlan.tracked`). Rows are built once, when the pattern is complete: a step copies no rows,
 * and a path whose pattern binds nothing live is its input row itself.
 */
export interface Paths {
  readonly input: Chunk;
  readonly parent: number[];
  readonly at: NodeRecord[];
  /** One column per tracked slot, one entry per path (undefined until the step that binds it). */
  readonly cols: (Value | undefined)[][];
}

const NO_COLUMNS: (Value | undefined)[][] = [];

export function emptyPaths(input: Chunk, columns: number): Paths {
  let cols = NO_COLUMNS;
  if (columns > 0) {
    cols = [];
    for (let c = 0; c < columns; c++) cols.push([]);
  }
  return { input, parent: [], at: [], cols };
}

/** Where a pattern's paths begin, for each chunk of input rows (BoundStart, ScanStart). */
export interface PathStart {
  run(chunk: Chunk): Generator<Paths, void, undefined>;
}

/** One relationship step growing a chunk of paths (Expand). */
export interface PathStep {
  run(paths: Paths): Generator<Paths, void, undefined>;
}

export interface PatternPlan {
  /** Live slots this pattern binds, in column order. */
  readonly tracked: readonly number[];
  /** Slot → column, or -1 for slots read from the input row. */
  readonly column: Int32Array;
  readonly start: PathStart;
  readonly steps: readonly PathStep[];
}

/** A slot's value on path p: from the path's columns, or from the row it grew from. */
export function valueAt(plan: PatternPlan, paths: Paths, p: number, slot: number): Value | undefined {
  const c = plan.column[slot]!;
  return c >= 0 ? paths.cols[c]![p] : paths.input.rows[paths.parent[p]!]![slot];
}
