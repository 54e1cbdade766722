import { QueryBudget, type BudgetLimits, type QueryBudgetOptions } from '../budget/index.ts';
import type { ExecutionMeter } from './exec-state.ts';

/**
 * The execution budget of GraphQL requests (the one Cypher runs under: `src/graph/budget`), through
 * the executor's ExecutionMeter seam. Every row a scan, expansion or entity lookup is about to
 * produce counts against TOOLGRAPH_QUERY_MAX_ROWS before it is built; the JSON the shaped objects
 * will serialise to (a lower bound, charged level by level as they are built) and then the response
 * body count against TOOLGRAPH_QUERY_MAX_RESULT_BYTES; the clock is read every 256 rows or shaped
 * objects and at the end, against TOOLGRAPH_QUERY_TIMEOUT_MS; past each 10 ms slice the executor
 * yields the event loop at its next safe point. The clock starts at the request's first charge.
 * Over a limit the meter throws TG_QUERY_BUDGET_EXCEEDED naming the limit, its value
 * and its setting, and the request answers that error alone (no data).
 */
class BudgetMeter implements ExecutionMeter {
  readonly #limits: BudgetLimits;
  readonly #options: QueryBudgetOptions;
  #budget: QueryBudget | undefined;

  constructor(limits: BudgetLimits, options: QueryBudgetOptions) {
    this.#limits = limits;
    this.#options = options;
  }

  #started(): QueryBudget {
    return (this.#budget ??= new QueryBudget(this.#limits, this.#options));
  }

  rows(count: number): void {
    this.#started().addRows(count);
  }

  bytes(bytes: number): void {
    this.#started().chargeBytes(bytes);
  }

  tick(units: number): void {
    this.#started().tick(units);
  }

  rowsLeft(): number {
    return this.#limits.maxRows - (this.#budget?.rows ?? 0);
  }

  resultBytes(bytes: number): void {
    const budget = this.#started();
    budget.checkTime();
    budget.checkBytes(bytes);
  }

  get chargedBytes(): number {
    return this.#budget?.bytes ?? 0;
  }

  get yieldDue(): boolean {
    return this.#budget?.yieldDue ?? false;
  }

  pause(): Promise<void> {
    return this.#started().pause();
  }
}

/** A fresh budget meter per request (the GraphqlPipeline's `meter` option). */
export function budgetMeters(limits: BudgetLimits, options: QueryBudgetOptions = {}): () => ExecutionMeter {
  return () => new BudgetMeter(limits, options);
}

/**
 * Whether an error is the budget's refusal, which stops the whole request rather than nulling a field:
 * over a limit, or stopped because the process is overloaded.
 */
export function isBudgetRefusal(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'TG_QUERY_BUDGET_EXCEEDED' || code === 'TG_OVERLOADED';
}
