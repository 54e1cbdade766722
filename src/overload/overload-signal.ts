import { ToolgraphError } from '../errors/index.ts';

/** Seconds a shed request is asked to wait (Retry-After): about four readings of the monitor. */
export const OVERLOAD_RETRY_AFTER_SECS = 1;

/** Which reading put the process over its threshold, for the refusal, the log and /healthz. */
export interface OverloadCause {
  readonly reason: 'heap' | 'rss' | 'event-loop-delay';
  /** The reading: percent of the heap limit in use, bytes of resident set, or milliseconds of event-loop delay. */
  readonly reading: number;
  readonly threshold: number;
  /** The setting that moves the threshold. */
  readonly setting: string;
}

const mib = (bytes: number): number => Math.round(bytes / 1024 / 1024);

const WHAT: Record<OverloadCause['reason'], (cause: OverloadCause) => string> = {
  heap: (c) => `the heap is at ${c.reading}% of its limit (${c.setting} is ${c.threshold})`,
  rss: (c) => `its resident set is ${mib(c.reading)} MiB, past ${mib(c.threshold)} MiB (${c.setting} is ${c.threshold})`,
  'event-loop-delay': (c) => `the event loop is running ${c.reading} ms behind (${c.setting} is ${c.threshold})`,
};

/**
 * Whether the process is overloaded right now: the last line of defence against one bug in one
 * accounting path taking the process down. While it is set, the host refuses new work with 503
 * TG_OVERLOADED and every running query stops at its next budget check. An OverloadMonitor sets and
 * clears it; the host and QueryBudget only read `overloaded`, a plain field, on every request and
 * every budget check.
 */
export class OverloadSignal {
  /** True while new work is shed and running queries are stopped. */
  overloaded = false;
  /**
   * A reading of `performance.now()` past which a budget check calls `checkStalled()`: the monitor
   * has missed its readings, so the event loop is blocked (a synchronous query, say) and cannot take
   * them itself. Infinite without a monitor.
   */
  stallDeadline = Number.POSITIVE_INFINITY;
  #cause: OverloadCause | undefined;
  #stallCheck: (() => void) | undefined;

  get cause(): OverloadCause | undefined {
    return this.#cause;
  }

  enter(cause: OverloadCause): void {
    this.#cause = cause;
    this.overloaded = true;
  }

  leave(): void {
    this.#cause = undefined;
    this.overloaded = false;
  }

  /** Sets (or, with undefined, removes) what a budget check calls once `stallDeadline` has passed. */
  watchStalls(check: (() => void) | undefined, deadline: number): void {
    this.#stallCheck = check;
    this.stallDeadline = check === undefined ? Number.POSITIVE_INFINITY : deadline;
  }

  /** Called by a budget check once `stallDeadline` has passed: the monitor takes a heap reading now. */
  checkStalled(): void {
    if (this.#stallCheck === undefined) this.stallDeadline = Number.POSITIVE_INFINITY;
    else this.#stallCheck();
  }

  /** The 503 TG_OVERLOADED a shed request or a stopped query answers. */
  refusal(): ToolgraphError {
    const cause = this.#cause;
    return new ToolgraphError('TG_OVERLOADED',
      `toolgraph is overloaded${cause === undefined ? '' : `: ${WHAT[cause.reason](cause)}`}. New work is refused and running queries are stopped until it recovers; retry in ${OVERLOAD_RETRY_AFTER_SECS} s.`,
      { details: { ...cause, retryAfterSecs: OVERLOAD_RETRY_AFTER_SECS } });
  }
}

/**
 * The process's own signal: the heap and the event loop are the process's, so one signal serves
 * every host, carrier and query budget in it (QueryBudget reads it unless given another).
 */
export const processOverload = new OverloadSignal();
