import { ToolgraphError } from '../../errors/index.ts';
import { processOverload, type OverloadSignal } from '../../overload/index.ts';
import { BUDGET_SETTINGS, DEFAULT_BUDGET_LIMITS, type BudgetLimits } from './budget-limits.ts';

export interface QueryBudgetOptions {
  /** Milliseconds of work after which `yieldDue` turns true, asking the caller to `pause()`. Default 10. */
  readonly sliceMs?: number;
  /** The clock in milliseconds; tests pass a fake one. Default `performance.now`. */
  readonly now?: () => number;
  /** The overload signal read at every clock reading; the process's own by default. */
  readonly overload?: OverloadSignal;
}

/** Work units (rows or `tick`s) between two readings of the clock: a reading costs about as much as 50 units. */
const CHECK_EVERY = 256;

/** Charged bytes count as work at one unit per 2^4 bytes: a clock reading per 4 KiB charged at most. */
const BYTES_PER_UNIT_SHIFT = 4;

/**
 * The execution budget of one query: a row cap, a result-size cap and a time budget, with cooperative
 * yielding. Engine-agnostic: an executor counts what it produces and checks in its hot loops.
 *
 * - `addRows(n)` for every row produced (a scan hit, an expansion, a nested row, a result row) and
 *   `tick(n)` for work that produces none (a candidate rejected by a filter). Both are a few integer
 *   operations; every 256 units they read the clock, throw once the time budget is spent, and set
 *   `yieldDue` once the current slice has run `sliceMs`.
 * - `checkBytes(n)` with the result size so far.
 * - When `yieldDue` is true, an async caller reaches a safe point and `await budget.pause()`, which lets
 *   the event loop serve other requests (setImmediate) before the next slice. Synchronous callers
 *   may ignore it: they still stop at the caps.
 * Over a limit, the call throws TG_QUERY_BUDGET_EXCEEDED naming the limit, its value and its setting;
 * while the process is overloaded (src/overload), the clock readings throw TG_OVERLOADED.
 */
export class QueryBudget {
  readonly limits: BudgetLimits;
  /** Rows produced so far. */
  rows = 0;
  /** Bytes charged so far by `chargeBytes` (the estimated size of what the query has allocated for its answer). */
  bytes = 0;
  #due = false;
  #noPauses = 0;
  /** How many times the query yielded the event loop. */
  pauses = 0;
  readonly #now: () => number;
  readonly #sliceMs: number;
  readonly #started: number;
  #sliceStarted: number;
  #work = 0;
  #nextCheck = CHECK_EVERY;
  readonly #overload: OverloadSignal;
  /** Whether `#now` is `performance.now`, the clock of the overload signal's stall deadline. */
  readonly #performanceClock: boolean;

  constructor(limits: BudgetLimits = DEFAULT_BUDGET_LIMITS, options: QueryBudgetOptions = {}) {
    this.limits = limits;
    this.#now = options.now ?? (() => performance.now());
    this.#performanceClock = options.now === undefined;
    this.#sliceMs = options.sliceMs ?? 10;
    this.#overload = options.overload ?? processOverload;
    this.#started = this.#now();
    this.#sliceStarted = this.#started;
  }

  /** True when the current slice is used up: `pause()` at the next safe point. Always false inside `withoutPauses`. */
  get yieldDue(): boolean {
    return this.#due && this.#noPauses === 0;
  }

  /**
   * Runs nested work that cannot pause (it runs to completion inside one evaluation): `yieldDue`
   * reads false inside it, so it does not cut its work short for a pause that cannot come.
   */
  withoutPauses<T>(work: () => T): T {
    this.#noPauses++;
    try {
      return work();
    } finally {
      this.#noPauses--;
    }
  }

  /** Milliseconds since the budget was created. */
  get elapsedMs(): number {
    return this.#now() - this.#started;
  }

  /** Counts `n` rows produced; throws past the row cap. */
  addRows(n = 1): void {
    this.rows += n;
    if (this.rows > this.limits.maxRows) throw exceeded('maxRows', this.limits.maxRows);
    this.#work += n;
    if (this.#work >= this.#nextCheck) this.checkTime();
  }

  /** Counts `units` of work that produced no row. */
  tick(units = 1): void {
    this.#work += units;
    if (this.#work >= this.#nextCheck) this.checkTime();
  }

  /**
   * Reads the clock now: throws once the time budget is spent, sets `yieldDue` at the end of a slice.
   * Throws TG_OVERLOADED while the process is overloaded (two field reads), so running queries stop.
   */
  checkTime(): void {
    this.#nextCheck = this.#work + CHECK_EVERY;
    const now = this.#now();
    const overload = this.#overload;
    if ((this.#performanceClock ? now : performance.now()) >= overload.stallDeadline) overload.checkStalled();
    if (overload.overloaded) throw overload.refusal();
    if (now - this.#started > this.limits.timeoutMs) throw exceeded('timeoutMs', this.limits.timeoutMs);
    const slice = now - this.#sliceStarted;
    if (slice >= this.#sliceMs) {
      this.#due = true;
      // The slice is long over and no safe point came: the query is inside work that cannot pause.
      if (slice > this.limits.maxStallMs) throw exceeded('maxStallMs', this.limits.maxStallMs);
    }
  }

  /**
   * Charges `bytes` the caller is about to allocate (a value's JSON size, a list it is about to
   * build), *before* allocating: cumulative, against the result-size cap, so a query that would build
   * more than the cap is refused while its memory is still unspent.
   */
  chargeBytes(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > this.limits.maxResultBytes) throw exceeded('maxResultBytes', this.limits.maxResultBytes);
    // Building what was charged is work too (a unit per 16 bytes): copies of large values end their
    // slice on time even when they produce no rows.
    this.#work += bytes >>> BYTES_PER_UNIT_SHIFT;
    if (this.#work >= this.#nextCheck) this.checkTime();
  }

  /** Checks the result size so far (bytes, or a lower bound of them). */
  checkBytes(bytes: number): void {
    if (bytes > this.limits.maxResultBytes) throw exceeded('maxResultBytes', this.limits.maxResultBytes);
  }

  /** Lets the event loop run other work, then starts a new slice (and checks the time budget). */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.pauses++;
    this.#due = false;
    this.#sliceStarted = this.#now();
    this.checkTime();
  }
}

const WHAT: Record<keyof BudgetLimits, (max: number) => string> = {
  maxRows: (max) => `The query was stopped after producing more than ${max} rows, its row budget`,
  maxResultBytes: (max) => `The result is larger than ${max} bytes, the result-size budget`,
  timeoutMs: (max) => `The query was stopped after ${max} ms, its time budget`,
  maxStallMs: (max) => `The query was stopped after running ${max} ms without a pause, its stall budget: one step of it (an expression over large values, say) holds the event loop too long to share the server`,
};

function exceeded(limit: keyof BudgetLimits, max: number): ToolgraphError {
  const setting = BUDGET_SETTINGS[limit];
  return new ToolgraphError('TG_QUERY_BUDGET_EXCEEDED',
    `${WHAT[limit](max)} (${setting}). Narrow the query (a more selective pattern, WHERE or LIMIT) or raise the budget.`,
    { details: { limit, max, setting } });
}
