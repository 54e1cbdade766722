import type { QueryBudget } from '../../budget/index.ts';
import type { Row } from './run-context.ts';

/**
 * Rows travel between the steps of a statement in chunks: each step handles a whole chunk at once
 * (one engine call per step for the chunk's frontier), and chunks flow through every step before the
 * next one is made, so a LIMIT stops the work early and memory stays bounded by the chunk size.
 * `origins[i]` is the index of the input row that `rows[i]` grew from (OPTIONAL MATCH and pattern
 * comprehensions group their results by it).
 */
export interface Chunk {
  readonly rows: Row[];
  readonly origins: number[];
}

export type ChunkStream = Generator<Chunk, void, undefined>;

/** Rows per chunk: large enough that per-chunk costs vanish, small enough to stop early and yield often. */
export const CHUNK_ROWS = 1024;

/** Streams `rows` in chunks, with each row's index as its origin. */
export function* chunksOf(rows: readonly Row[]): ChunkStream {
  for (let start = 0; start < rows.length || start === 0; start += CHUNK_ROWS) {
    const end = Math.min(rows.length, start + CHUNK_ROWS);
    const origins: number[] = [];
    for (let i = start; i < end; i++) origins.push(i);
    yield { rows: rows.slice(start, end), origins };
    if (end >= rows.length) return;
  }
}

/** Runs a stream to its end without yielding the event loop (for work nested in one evaluation). */
export function collectSync(stream: ChunkStream, budget: QueryBudget): Chunk {
  const rows: Row[] = [];
  const origins: number[] = [];
  budget.withoutPauses(() => {
    for (const chunk of stream) {
      for (let i = 0; i < chunk.rows.length; i++) {
        rows.push(chunk.rows[i]!);
        origins.push(chunk.origins[i]!);
      }
    }
  });
  return { rows, origins };
}

/** Runs a stream to its end, pausing between chunks whenever the budget's slice is used up. */
export async function collect(stream: ChunkStream, budget: QueryBudget): Promise<Row[]> {
  const rows: Row[] = [];
  for (;;) {
    const next = stream.next();
    if (next.done) return rows;
    for (const row of next.value.rows) rows.push(row);
    if (budget.yieldDue) await budget.pause();
  }
}
