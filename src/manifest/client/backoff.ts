/** Retry timing: exponential backoff with full jitter (AWS architecture blog), capped. */
export interface BackoffOptions {
  /** Delay scale of the first retry, in ms. */
  baseMs: number;
  /** Largest delay, in ms. */
  maxMs: number;
  random?: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 100, maxMs: 5_000 };

/** The wait before retry `attempt` (1-based): uniform in [0, min(max, base · 2^(attempt-1))). */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** (attempt - 1));
  return Math.floor((options.random ?? Math.random)() * ceiling);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
