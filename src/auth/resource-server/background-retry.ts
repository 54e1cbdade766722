import type { Logger } from '../../log/index.ts';

export interface BackgroundRetryOptions<T> {
  /** What is being waited for, in log lines and readiness answers ("OIDC discovery at OIDC_CONFIG_URL …"). */
  readonly what: string;
  readonly logger?: Logger;
  /** Delay before the second attempt; doubled after each failure. Default 500 ms. */
  readonly initialDelayMs?: number;
  /** The cap of the delay between attempts. Default 10 s (TOOLGRAPH_IDP_RETRY_MAX_MS). */
  readonly maxDelayMs?: number;
  /** Errors that no retry can cure (a configuration error): the first attempt throws them; later, they are logged and retried. */
  readonly fatal?: (error: unknown) => boolean;
  /** Releases a value loaded after `close` (its timers). */
  readonly dispose?: (value: T) => void;
}

/** Something loaded at start-up that may not be there yet: the identity provider's discovery and keys. */
export interface Pending<T> {
  /** The value once an attempt succeeded; undefined before. */
  current(): T | undefined;
  /** Resolves with the value once an attempt succeeds (never rejects; `close` leaves it pending). */
  readonly ready: Promise<T>;
  /** While waiting: what for, and why the last attempt failed (for /healthz and refusals). Undefined once ready. */
  waiting(): string | undefined;
  /** Stops retrying. */
  close(): void;
}

const DEFAULT_RETRY_INITIAL_MS = 500;
const DEFAULT_RETRY_MAX_MS = 10_000;

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `load` now; when it fails, answers anyway and retries in the background with capped
 * exponential backoff, one log line per attempt, until it succeeds or `close` is called. Start-up
 * waits for the first attempt only, so a process whose IdP is down still starts (and reports itself
 * not ready) and becomes ready when the IdP comes up.
 */
export async function loadInBackground<T>(load: () => Promise<T>, options: BackgroundRetryOptions<T>): Promise<Pending<T>> {
  const initial = options.initialDelayMs ?? DEFAULT_RETRY_INITIAL_MS;
  const cap = options.maxDelayMs ?? DEFAULT_RETRY_MAX_MS;
  let value: T | undefined;
  let lastReason = 'not tried yet';
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let resolveReady!: (value: T) => void;
  const ready = new Promise<T>((resolve) => {
    resolveReady = resolve;
  });
  const pending: Pending<T> = {
    current: () => value,
    ready,
    waiting: () => (value === undefined ? `${options.what}: ${lastReason}` : undefined),
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };

  const succeed = (loaded: T): void => {
    value = loaded;
    resolveReady(loaded);
  };
  try {
    succeed(await load());
    return pending;
  } catch (error) {
    if (options.fatal?.(error)) throw error;
    lastReason = reasonOf(error);
  }

  let attempt = 1;
  let delay = Math.min(initial, cap);
  const schedule = (): void => {
    if (closed) return;
    options.logger?.warn({ attempt, retryInMs: delay, reason: lastReason }, `${options.what} failed; retrying in the background`);
    timer = setTimeout(() => void retry(), delay);
    timer.unref();
    delay = Math.min(delay * 2, cap);
  };
  const retry = async (): Promise<void> => {
    attempt++;
    try {
      const loaded = await load();
      if (closed) {
        options.dispose?.(loaded);
        return;
      }
      succeed(loaded);
      options.logger?.info({ attempt }, `${options.what} succeeded; ready`);
    } catch (error) {
      lastReason = reasonOf(error);
      schedule();
    }
  };
  schedule();
  return pending;
}
