import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { checkEntry } from './check-entry.ts';
import { SWEEP_INTERVAL_MS, type StateStore } from './state-store.ts';

interface StoredEntry {
  readonly key: string;
  readonly expiresAt: number;
  readonly value: unknown;
}

/** Leftovers of a write or take that a crash interrupted are removed by the sweep after this long. */
const STALE_TEMP_MS = 60_000;

/**
 * The store of `TOOLGRAPH_PERSISTENCE=file`: one file per entry under `<dataDir>/state/<space>/`,
 * named by the SHA-256 of its key (keys may hold any characters). Writes are durable before they
 * return (written to a temporary file, fsynced, then moved into place and the directory fsynced),
 * so state survives a restart or a crash.
 *
 * Atomicity comes from the file system: `add` links its finished file into place, which fails when
 * the name exists, and `take` renames the entry away, which only one caller can do. Work on one key
 * is also serialised inside the process, so replacing an expired entry cannot race with itself.
 * Across processes on one machine, `add` over an *expired* entry is the one case two could both
 * win; it cannot matter for what the store holds (an expired nonce belongs to an expired envelope,
 * which is refused on its own). Replicas on several machines use the PostgreSQL store.
 */
export class FileStateStore implements StateStore {
  readonly kind = 'file';
  readonly #dir: string;
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout;
  readonly #busy = new Map<string, Promise<unknown>>();

  constructor(directory: string, options: { now?: () => number; sweepIntervalMs?: number } = {}) {
    this.#dir = directory;
    this.#now = options.now ?? Date.now;
    this.#timer = setInterval(() => void this.sweep().catch(() => undefined), options.sweepIntervalMs ?? SWEEP_INTERVAL_MS).unref();
  }

  #paths(space: string, key: string): { folder: string; file: string; base: string } {
    const hash = createHash('sha256').update(key).digest('hex');
    const folder = join(this.#dir, space, hash.slice(0, 2));
    return { folder, file: join(folder, `${hash}.json`), base: hash };
  }

  /** Runs work on one key after the work already queued on it. */
  async #serial<T>(space: string, key: string, work: () => Promise<T>): Promise<T> {
    const id = `${space}\0${key}`;
    const before = this.#busy.get(id) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.catch(() => undefined);
    this.#busy.set(id, settled);
    try {
      return await run;
    } finally {
      if (this.#busy.get(id) === settled) this.#busy.delete(id);
    }
  }

  async #read(file: string): Promise<StoredEntry | undefined> {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as StoredEntry;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Writes the entry to a fresh temporary file beside its final name and fsyncs it. */
  async #writeTemp(folder: string, base: string, entry: StoredEntry): Promise<string> {
    await mkdir(folder, { recursive: true });
    const temp = join(folder, `${base}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify(entry));
      await handle.sync();
    } finally {
      await handle.close();
    }
    return temp;
  }

  async #syncFolder(folder: string): Promise<void> {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async get<T>(space: string, key: string): Promise<T | undefined> {
    checkEntry(space, key);
    const entry = await this.#read(this.#paths(space, key).file);
    if (entry === undefined || entry.key !== key || entry.expiresAt <= this.#now()) return undefined;
    return entry.value as T;
  }

  async set(space: string, key: string, value: unknown, ttlMs: number): Promise<void> {
    checkEntry(space, key, ttlMs);
    const { folder, file, base } = this.#paths(space, key);
    await this.#serial(space, key, async () => {
      const temp = await this.#writeTemp(folder, base, { key, expiresAt: this.#now() + ttlMs, value });
      await rename(temp, file);
      await this.#syncFolder(folder);
    });
  }

  async add(space: string, key: string, value: unknown, ttlMs: number): Promise<boolean> {
    checkEntry(space, key, ttlMs);
    const { folder, file, base } = this.#paths(space, key);
    return this.#serial(space, key, async () => {
      const temp = await this.#writeTemp(folder, base, { key, expiresAt: this.#now() + ttlMs, value });
      try {
        for (let attempt = 0; attempt < 2; attempt++) {
          try {
            await link(temp, file);
            await this.#syncFolder(folder);
            return true;
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          }
          const existing = await this.#read(file);
          if (existing !== undefined && existing.expiresAt > this.#now()) return false;
          await unlink(file).catch(ignoreMissing);
        }
        return false;
      } finally {
        await unlink(temp).catch(ignoreMissing);
      }
    });
  }

  /**
   * Within one process the key's work queue makes read-compare-write atomic; another process on the
   * same directory could interleave (replicas on several machines use the PostgreSQL store).
   */
  async swap(space: string, key: string, expected: unknown, value: unknown, ttlMs: number): Promise<boolean> {
    checkEntry(space, key, ttlMs);
    const { folder, file, base } = this.#paths(space, key);
    return this.#serial(space, key, async () => {
      const entry = await this.#read(file);
      if (entry === undefined || entry.key !== key || entry.expiresAt <= this.#now() || JSON.stringify(entry.value) !== JSON.stringify(expected)) return false;
      const temp = await this.#writeTemp(folder, base, { key, expiresAt: this.#now() + ttlMs, value });
      await rename(temp, file);
      await this.#syncFolder(folder);
      return true;
    });
  }

  async take<T>(space: string, key: string): Promise<T | undefined> {
    checkEntry(space, key);
    const { folder, file, base } = this.#paths(space, key);
    return this.#serial(space, key, async () => {
      const taken = join(folder, `${base}.${randomBytes(6).toString('hex')}.taking`);
      try {
        await rename(file, taken);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      try {
        await this.#syncFolder(folder);
        const entry = await this.#read(taken);
        if (entry === undefined || entry.key !== key || entry.expiresAt <= this.#now()) return undefined;
        return entry.value as T;
      } finally {
        await unlink(taken).catch(ignoreMissing);
      }
    });
  }

  async delete(space: string, key: string): Promise<void> {
    checkEntry(space, key);
    const { file } = this.#paths(space, key);
    await this.#serial(space, key, () => unlink(file).catch(ignoreMissing));
  }

  /** Reads every entry of the space: for rare checks (a registration), not for a request's hot path. */
  async count(space: string): Promise<number> {
    checkEntry(space, 'count');
    const now = this.#now();
    let live = 0;
    for (const shard of await readdir(join(this.#dir, space)).catch(() => [] as string[])) {
      const folder = join(this.#dir, space, shard);
      for (const name of await readdir(folder).catch(() => [] as string[])) {
        if (!name.endsWith('.json')) continue;
        const entry = await this.#read(join(folder, name)).catch(() => undefined);
        if (entry !== undefined && entry.expiresAt > now) live++;
      }
    }
    return live;
  }

  async sweep(): Promise<number> {
    const now = this.#now();
    let removed = 0;
    for (const space of await readdir(this.#dir).catch(() => [] as string[])) {
      for (const shard of await readdir(join(this.#dir, space)).catch(() => [] as string[])) {
        const folder = join(this.#dir, space, shard);
        for (const name of await readdir(folder).catch(() => [] as string[])) {
          const path = join(folder, name);
          if (name.endsWith('.json')) {
            const entry = await this.#read(path).catch(() => undefined);
            if (entry !== undefined && entry.expiresAt <= now) {
              await unlink(path).catch(ignoreMissing);
              removed++;
            }
          } else if (name.endsWith('.tmp') || name.endsWith('.taking')) {
            const info = await stat(path).catch(() => undefined);
            if (info !== undefined && now - info.mtimeMs > STALE_TEMP_MS) await unlink(path).catch(ignoreMissing);
          }
        }
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all([...this.#busy.values()]);
  }
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
