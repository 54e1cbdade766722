/**
 * The limits of one query's execution budget. Every query, Cypher or GraphQL, runs under one; the
 * defaults are the settings' defaults (TOOLGRAPH_QUERY_MAX_ROWS, TOOLGRAPH_QUERY_MAX_RESULT_BYTES,
 * TOOLGRAPH_QUERY_TIMEOUT_MS in src/config/settings.ts).
 */
export interface BudgetLimits {
  /** The most rows a query may produce, counted across all its steps (every scan hit and expansion, nested patterns included). */
  readonly maxRows: number;
  /** The most bytes (UTF-8) of the result's JSON text. */
  readonly maxResultBytes: number;
  /** The most milliseconds of execution, from the start of execution to the last result byte. */
  readonly timeoutMs: number;
  /**
   * The most milliseconds the query may run without letting the event loop turn (since its start or
   * its last pause). Work between two safe points (one expression over large values, nested work that
   * cannot pause) is stopped past it, so no query holds the server longer than this.
   */
  readonly maxStallMs: number;
}

/**
 * Sized so every documented example and test runs well inside them (a 100k-path aggregate over a
 * 200k-node graph produces about 400k rows), while `MATCH (a),(b),(c),(d)` on a 94-node graph is
 * refused after a million rows, in a fraction of a second and tens of MiB.
 */
export const DEFAULT_BUDGET_LIMITS: BudgetLimits = Object.freeze({
  maxRows: 1_000_000,
  maxResultBytes: 16 * 1024 * 1024,
  timeoutMs: 5_000,
  // An answer to another request takes a few turns of the loop, each of which may wait this long: at
  // 250 ms the fuzzer saw /healthz wait 545 ms behind rows of 200 ms each, past its half-second bound.
  // Far above a slice (10 ms) plus a young-generation GC (under 20 ms), which is all an ordinary query
  // runs unpaused; a full GC of a heap of gigabytes can pause longer, and counts (raise it for such heaps).
  maxStallMs: 150,
});

/** Which limit a refusal names, with the setting that raises it. */
export const BUDGET_SETTINGS = Object.freeze({
  maxRows: 'TOOLGRAPH_QUERY_MAX_ROWS',
  maxResultBytes: 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES',
  timeoutMs: 'TOOLGRAPH_QUERY_TIMEOUT_MS',
  maxStallMs: 'TOOLGRAPH_QUERY_MAX_STALL_MS',
} satisfies Record<keyof BudgetLimits, string>);
