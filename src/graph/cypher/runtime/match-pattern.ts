/** Matching one path pattern over a stream of rows: its start, then each step, then rows of the complete paths. */
import type { Pattern } from '../language/ast.ts';
import type { Paths, PatternPlan } from './match-paths.ts';
import { planPattern, type Pushdown } from '../plan/match-plan.ts';
import type { Chunk, ChunkStream } from './row-stream.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import { bindPaths } from './match-named-path.ts';

/**
 * Matches one path pattern over a stream of rows: a scan (or a check of the bound start), then one
 * whole-chunk expansion per step. The plan (which end to start from, which variables are already
 * bound) is made once, from the first row: every row of a stream binds the same variables.
 */
export function* matchPattern(pattern: Pattern, input: ChunkStream, ctx: RunContext, pushdown: Pushdown): ChunkStream {
  let plan: PatternPlan | null = null;
  // A named path is built only when something reads it.
  let pathSlot = pattern.path === undefined ? -1 : slotOf(ctx, pattern.path);
  if (pathSlot >= 0 && !ctx.layout.isLive(pathSlot)) pathSlot = -1;
  for (const chunk of input) {
    if (chunk.rows.length === 0) {
      yield chunk;
      continue;
    }
    plan ??= planPattern(pattern, chunk.rows[0]!, ctx, pushdown);
    if (pathSlot < 0) {
      for (const paths of plan.start.run(chunk)) yield* grow(plan, 0, paths, ctx);
      continue;
    }
    for (const paths of plan.start.run(chunk)) {
      for (const done of grow(plan, 0, paths, ctx)) yield done.rows.length === 0 ? done : bindPaths(pattern, pathSlot, done, ctx);
    }
  }
}

/** An empty chunk: passed down the stream so the driver can pause when a stage finds nothing for long. */
export const NOTHING_YET: Chunk = Object.freeze({ rows: [], origins: [] }) as Chunk;

function* grow(plan: PatternPlan, k: number, paths: Paths, ctx: RunContext): ChunkStream {
  if (paths.parent.length === 0) {
    if (ctx.budget.yieldDue) yield NOTHING_YET;
    return;
  }
  if (k === plan.steps.length) {
    yield complete(plan, paths);
    return;
  }
  for (const next of plan.steps[k]!.run(paths)) yield* grow(plan, k + 1, next, ctx);
}

/** The rows of complete paths: the input row plus the pattern's live bindings. */
function complete(plan: PatternPlan, paths: Paths): Chunk {
  const { input, parent, cols } = paths;
  const tracked = plan.tracked;
  const n = parent.length;
  const rows = new Array<Row>(n);
  const origins = new Array<number>(n);
  for (let p = 0; p < n; p++) {
    const base = input.rows[parent[p]!]!;
    if (tracked.length === 0) rows[p] = base;
    else {
      const row = base.slice();
      for (let c = 0; c < tracked.length; c++) row[tracked[c]!] = cols[c]![p];
      rows[p] = row;
    }
    origins[p] = input.origins[parent[p]!]!;
  }
  return { rows, origins };
}
