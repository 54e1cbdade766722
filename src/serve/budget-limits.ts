import type { ResolvedValues } from '../config/index.ts';
import type { BudgetLimits } from '../graph/budget/index.ts';
import { DEFAULT_WRITE_LIMITS, type WriteLimits } from '../graph/engine/index.ts';

/** The execution budget of every query, from the query_* settings. */
export function budgetLimitsOf(values: Pick<ResolvedValues, 'queryMaxRows' | 'queryMaxResultBytes' | 'queryTimeoutMs' | 'queryMaxStallMs'>): BudgetLimits {
  return Object.freeze({ maxRows: values.queryMaxRows, maxResultBytes: values.queryMaxResultBytes, timeoutMs: values.queryTimeoutMs, maxStallMs: values.queryMaxStallMs });
}

/** The caps on every write batch, from the write_* settings (their defaults when left out). */
export function writeLimitsOf(values: Partial<Pick<ResolvedValues, 'writeMaxChanges' | 'writeMaxBatchBytes'>>): WriteLimits {
  return Object.freeze({
    maxChanges: values.writeMaxChanges ?? DEFAULT_WRITE_LIMITS.maxChanges,
    maxBatchBytes: values.writeMaxBatchBytes ?? DEFAULT_WRITE_LIMITS.maxBatchBytes,
  });
}
