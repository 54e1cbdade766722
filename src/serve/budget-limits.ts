import type { ResolvedValues } from '../config/index.ts';
import type { BudgetLimits } from '../graph/budget/index.ts';

/** The execution budget of every query, from the query_* settings. */
export function budgetLimitsOf(values: Pick<ResolvedValues, 'queryMaxRows' | 'queryMaxResultBytes' | 'queryTimeoutMs'>): BudgetLimits {
  return Object.freeze({ maxRows: values.queryMaxRows, maxResultBytes: values.queryMaxResultBytes, timeoutMs: values.queryTimeoutMs });
}
