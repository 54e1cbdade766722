import { ToolgraphError, isToolgraphError } from '../errors/index.ts';
import type { StateStore } from './state-store.ts';

/** While a space fails, a probe write is tried this often; also what a refusal asks the client to wait. */
const PROBE_INTERVAL_MS = 5_000;
/** The probe's key: no caller of the store names a key like this. */
const PROBE_KEY = 'toolgraph:storage-probe';

/**
 * What went wrong, in words fit for an unauthenticated /healthz and for any caller: the error's
 * code (`ENOSPC`, `ENOTDIR`, a SQLSTATE), never its message, which names file paths.
 */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code.length > 0) return code.slice(0, 40);
  return error instanceof Error ? error.name : 'unknown error';
}

/**
 * A state store whose failures are told apart and watched. The stores (file, PostgreSQL) throw what
 * the file system or the driver threw; this answers each such failure as 503 TG_STORAGE_FAILED (what
 * failed, its code, Retry-After) rather than a 500 TG_INTERNAL, and remembers the space it failed in.
 * `failure()` says so (serve turns /healthz not-ready on it) until the space works again: until a
 * later write there stores something, or the probe does (every PROBE_INTERVAL_MS, a write and a delete of a
 * key of its own in each failing space), since a replica out of rotation gets no writes to prove it.
 * A space one failure marked recovers only by a successful write: a read that works on a full disk
 * proves nothing about writing.
 */
export class GuardedStateStore implements StateStore {
  readonly #inner: StateStore;
  readonly #probeIntervalMs: number;
  /** Failing spaces, with what failed. */
  readonly #failing = new Map<string, string>();
  #probe: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(inner: StateStore, options: { probeIntervalMs?: number } = {}) {
    this.#inner = inner;
    this.#probeIntervalMs = options.probeIntervalMs ?? PROBE_INTERVAL_MS;
  }

  get kind(): StateStore['kind'] {
    return this.#inner.kind;
  }

  /** What fails now (the first failing space's failure), or undefined while the store works. */
  failure(): string | undefined {
    for (const what of this.#failing.values()) return what;
    return undefined;
  }

  /** Runs one operation; `wrote` says from its result whether it stored something (a swap that lost stored nothing). */
  async #guard<T>(space: string, verb: 'read' | 'write', run: () => Promise<T>, wrote: (result: T) => boolean = () => false): Promise<T> {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      // The stores' own refusals (a malformed space or key: a bug of ours) go through as they are.
      if (isToolgraphError(error)) throw error;
      const what = `the ${this.#inner.kind} state store could not ${verb} (${codeOf(error)})`;
      this.#failing.set(space, what);
      this.#startProbe();
      throw new ToolgraphError('TG_STORAGE_FAILED', `${what.charAt(0).toUpperCase()}${what.slice(1)}; nothing was stored. Retry in a few seconds.`, {
        cause: error,
        details: { store: this.#inner.kind, code: codeOf(error), retryAfterSecs: Math.ceil(this.#probeIntervalMs / 1000) },
      });
    }
    if (wrote(result)) this.#failing.delete(space);
    return result;
  }

  #startProbe(): void {
    if (this.#probe !== undefined || this.#closed) return;
    this.#probe = setInterval(() => void this.#runProbe(), this.#probeIntervalMs).unref();
  }

  async #runProbe(): Promise<void> {
    for (const space of [...this.#failing.keys()]) {
      try {
        await this.#inner.set(space, PROBE_KEY, true, 60_000);
        await this.#inner.delete(space, PROBE_KEY);
        this.#failing.delete(space);
      } catch {
        // Still failing; the next probe tries again.
      }
    }
    if (this.#failing.size === 0) {
      clearInterval(this.#probe);
      this.#probe = undefined;
    }
  }

  get<T>(space: string, key: string): Promise<T | undefined> {
    return this.#guard(space, 'read', () => this.#inner.get<T>(space, key));
  }

  set(space: string, key: string, value: unknown, ttlMs: number): Promise<void> {
    return this.#guard(space, 'write', () => this.#inner.set(space, key, value, ttlMs), () => true);
  }

  add(space: string, key: string, value: unknown, ttlMs: number): Promise<boolean> {
    return this.#guard(space, 'write', () => this.#inner.add(space, key, value, ttlMs), (added) => added);
  }

  swap(space: string, key: string, expected: unknown, value: unknown, ttlMs: number): Promise<boolean> {
    return this.#guard(space, 'write', () => this.#inner.swap(space, key, expected, value, ttlMs), (swapped) => swapped);
  }

  take<T>(space: string, key: string): Promise<T | undefined> {
    return this.#guard(space, 'write', () => this.#inner.take<T>(space, key), (taken) => taken !== undefined);
  }

  delete(space: string, key: string): Promise<void> {
    return this.#guard(space, 'write', () => this.#inner.delete(space, key));
  }

  count(space: string): Promise<number> {
    return this.#guard(space, 'read', () => this.#inner.count(space));
  }

  sweep(): Promise<number> {
    return this.#inner.sweep();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#probe);
    this.#probe = undefined;
    await this.#inner.close();
  }
}
