import { checkEntry } from './check-entry.ts';
import { SWEEP_INTERVAL_MS, type StateStore } from './state-store.ts';

interface Entry {
  readonly json: string;
  readonly expiresAt: number;
}

/**
 * The store of `TOOLGRAPH_PERSISTENCE=memory`: one process, gone with it. Values are kept as JSON
 * text, so what a caller reads back is a copy, as from the other stores.
 */
export class MemoryStateStore implements StateStore {
  readonly kind = 'memory';
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout;

  constructor(options: { now?: () => number; sweepIntervalMs?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#timer = setInterval(() => void this.sweep(), options.sweepIntervalMs ?? SWEEP_INTERVAL_MS).unref();
  }

  #live(id: string): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry;
  }

  async get<T>(space: string, key: string): Promise<T | undefined> {
    checkEntry(space, key);
    const entry = this.#live(`${space}\0${key}`);
    return entry === undefined ? undefined : (JSON.parse(entry.json) as T);
  }

  async set(space: string, key: string, value: unknown, ttlMs: number): Promise<void> {
    checkEntry(space, key, ttlMs);
    this.#entries.set(`${space}\0${key}`, { json: JSON.stringify(value), expiresAt: this.#now() + ttlMs });
  }

  async add(space: string, key: string, value: unknown, ttlMs: number): Promise<boolean> {
    checkEntry(space, key, ttlMs);
    const id = `${space}\0${key}`;
    if (this.#live(id) !== undefined) return false;
    this.#entries.set(id, { json: JSON.stringify(value), expiresAt: this.#now() + ttlMs });
    return true;
  }

  async swap(space: string, key: string, expected: unknown, value: unknown, ttlMs: number): Promise<boolean> {
    checkEntry(space, key, ttlMs);
    const id = `${space}\0${key}`;
    const entry = this.#live(id);
    if (entry === undefined || entry.json !== JSON.stringify(expected)) return false;
    this.#entries.set(id, { json: JSON.stringify(value), expiresAt: this.#now() + ttlMs });
    return true;
  }

  async take<T>(space: string, key: string): Promise<T | undefined> {
    checkEntry(space, key);
    const id = `${space}\0${key}`;
    const entry = this.#live(id);
    if (entry === undefined) return undefined;
    this.#entries.delete(id);
    return JSON.parse(entry.json) as T;
  }

  async delete(space: string, key: string): Promise<void> {
    checkEntry(space, key);
    this.#entries.delete(`${space}\0${key}`);
  }

  async count(space: string): Promise<number> {
    checkEntry(space, 'count');
    const prefix = `${space}\0`;
    const now = this.#now();
    let live = 0;
    for (const [id, entry] of this.#entries) if (id.startsWith(prefix) && entry.expiresAt > now) live++;
    return live;
  }

  async sweep(): Promise<number> {
    const now = this.#now();
    let removed = 0;
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(id);
        removed++;
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
  }
}
