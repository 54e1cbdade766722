import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStateStore, MemoryStateStore, PostgresStateStore, type StateStore } from '../../src/state/index.ts';
import { POSTGRES_HOW_TO_RUN, reportSkip } from '../support/skip-reason.ts';

const databaseUrl = process.env['TEST_DATABASE_URL'];
if (!databaseUrl) reportSkip('The PostgreSQL state store cases', 'TEST_DATABASE_URL is unset', POSTGRES_HOW_TO_RUN);

/** Opens a store and a second handle on the same place (another process or replica would see this). */
interface Flavour {
  readonly name: string;
  open(): { store: StateStore; twin: () => StateStore };
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const flavours: Flavour[] = [
  {
    name: 'memory',
    open: () => {
      const store = new MemoryStateStore();
      return { store, twin: () => store };
    },
  },
  {
    name: 'file',
    open: () => {
      const dir = mkdtempSync(join(tmpdir(), 'tg-state-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      return { store: new FileStateStore(dir), twin: () => new FileStateStore(dir) };
    },
  },
];
if (databaseUrl) {
  flavours.push({
    name: 'postgres',
    open: () => {
      const schema = `tg_state_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
      cleanups.push(async () => {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      });
      return { store: new PostgresStateStore({ connectionString: databaseUrl, schema }), twin: () => new PostgresStateStore({ connectionString: databaseUrl, schema }) };
    },
  });
}

describe.each(flavours)('the $name state store', (flavour) => {
  const { store, twin } = flavour.open();
  cleanups.push(() => store.close());

  it('keeps a value until it expires, then reads it as absent', async () => {
    await store.set('sessions', 'k1', { a: 1, b: ['x'] }, 60_000);
    expect(await store.get('sessions', 'k1')).toEqual({ a: 1, b: ['x'] });
    await store.set('sessions', 'short', 'gone soon', 30);
    await expect.poll(() => store.get('sessions', 'short'), { interval: 20, timeout: 5_000 }).toBeUndefined();
    expect(await store.get('sessions', 'never')).toBeUndefined();
  });

  it('keeps spaces apart and hands out copies', async () => {
    await store.set('codes', 'same', 1, 60_000);
    await store.set('nonces', 'same', 2, 60_000);
    expect([await store.get('codes', 'same'), await store.get('nonces', 'same')]).toEqual([1, 2]);
    const read = await store.get<{ a: number }>('sessions', 'k1');
    read!.a = 99;
    expect(await store.get('sessions', 'k1')).toEqual({ a: 1, b: ['x'] });
  });

  it('adds a key once: of 20 racing callers, exactly one wins, and the value is the winner\'s', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.add('nonces', 'n-race', { by: i }, 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.get('nonces', 'n-race')).toEqual({ by: results.indexOf(true) });
    expect(await store.add('nonces', 'n-race', 'again', 60_000)).toBe(false);
  });

  it('adds over an expired entry', async () => {
    expect(await store.add('nonces', 'n-exp', 'first', 30)).toBe(true);
    await expect.poll(() => store.get('nonces', 'n-exp'), { interval: 20, timeout: 5_000 }).toBeUndefined();
    expect(await store.add('nonces', 'n-exp', 'second', 60_000)).toBe(true);
    expect(await store.get('nonces', 'n-exp')).toBe('second');
  });

  it('takes a value once: of 20 racing takers, exactly one gets it', async () => {
    await store.set('codes', 'c1', { grant: 'x' }, 60_000);
    const taken = await Promise.all(Array.from({ length: 20 }, () => store.take('codes', 'c1')));
    expect(taken.filter((t) => t !== undefined)).toEqual([{ grant: 'x' }]);
    expect(await store.get('codes', 'c1')).toBeUndefined();
    await store.set('codes', 'c-exp', 'stale', 30);
    await expect.poll(() => store.get('codes', 'c-exp'), { interval: 20, timeout: 5_000 }).toBeUndefined();
    expect(await store.take('codes', 'c-exp')).toBeUndefined();
  });

  it('swaps a value only while it is the one read: of 20 racing increments, each lands once', async () => {
    expect(await store.swap('counters', 'absent', 0, 1, 60_000)).toBe(false);
    await store.set('counters', 'c', { n: 0, list: [] }, 60_000);
    expect(await store.swap('counters', 'c', { n: 5, list: [] }, { n: 6, list: [] }, 60_000)).toBe(false);
    const other = twin();
    try {
      await Promise.all(Array.from({ length: 20 }, async (_, i) => {
        // The file store's swap is atomic within one process only (its doc): its twin stays out of the race.
        const handle = i % 2 === 0 || flavour.name === 'file' ? store : other;
        for (;;) {
          const seen = await handle.get<{ n: number; list: number[] }>('counters', 'c');
          if (await handle.swap('counters', 'c', seen, { n: seen!.n + 1, list: [...seen!.list, i] }, 60_000)) return;
        }
      }));
    } finally {
      if (other !== store) await other.close();
    }
    const final = await store.get<{ n: number; list: number[] }>('counters', 'c');
    expect(final!.n).toBe(20);
    expect([...final!.list].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    await store.set('counters', 'short', 1, 30);
    await expect.poll(() => store.get('counters', 'short'), { interval: 20, timeout: 5_000 }).toBeUndefined();
    expect(await store.swap('counters', 'short', 1, 2, 60_000)).toBe(false);
  });

  it('deletes, and sweeps expired entries away', async () => {
    await store.set('sessions', 'd1', 1, 60_000);
    await store.delete('sessions', 'd1');
    expect(await store.get('sessions', 'd1')).toBeUndefined();
    await store.delete('sessions', 'never-there');
    await store.set('sweep', 's1', 1, 30);
    await store.set('sweep', 's2', 2, 30);
    await store.set('sweep', 'live', 3, 60_000);
    // Wait on a probe set after them, so s1 and s2 are left for the sweep (a read may drop an expired entry itself).
    await store.set('sweep-probe', 'p', 0, 30);
    await expect.poll(() => store.get('sweep-probe', 'p'), { interval: 20, timeout: 5_000 }).toBeUndefined();
    expect(await store.sweep()).toBeGreaterThanOrEqual(2);
    expect(await store.get('sweep', 'live')).toBe(3);
  });

  it('counts the live entries of a space', async () => {
    expect(await store.count('counted')).toBe(0);
    await store.set('counted', 'a', 1, 60_000);
    await store.set('counted', 'b', 2, 60_000);
    await store.add('counted', 'c', 3, 60_000);
    await store.set('counted', 'gone', 4, 30);
    await store.set('other-space', 'a', 1, 60_000);
    await expect.poll(() => store.count('counted'), { interval: 20, timeout: 5_000 }).toBe(3);
    await store.take('counted', 'c');
    expect(await store.count('counted')).toBe(2);
  });

  it('shares what it holds with a second handle on the same place (a restart, another replica)', async () => {
    const other = twin();
    try {
      await store.set('registrations', 'client-1', { name: 'inspector' }, 60_000);
      expect(await other.get('registrations', 'client-1')).toEqual({ name: 'inspector' });
      const both = await Promise.all([store.add('nonces', 'n-two', 'a', 60_000), other.add('nonces', 'n-two', 'b', 60_000)]);
      expect(both.filter(Boolean)).toHaveLength(1);
      await store.set('codes', 'c-two', 'one-time', 60_000);
      const takes = await Promise.all([store.take('codes', 'c-two'), other.take('codes', 'c-two')]);
      expect(takes.filter((t) => t !== undefined)).toEqual(['one-time']);
    } finally {
      if (other !== store) await other.close();
    }
  });

  it('refuses a space or key our code should never use', async () => {
    await expect(store.get('Bad Space', 'k')).rejects.toMatchObject({ code: 'TG_INTERNAL' });
    await expect(store.set('ok', '', 1, 1000)).rejects.toMatchObject({ code: 'TG_INTERNAL' });
    await expect(store.set('ok', 'k', 1, 0)).rejects.toMatchObject({ code: 'TG_INTERNAL' });
  });
});

describe('the file state store', () => {
  it('survives a restart and leaves no temporary files behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-state-'));
    try {
      const first = new FileStateStore(dir);
      await first.set('registrations', 'a key with / and : in it', { id: 1 }, 60_000);
      expect(await first.add('nonces', 'n', true, 60_000)).toBe(true);
      await first.close();
      const second = new FileStateStore(dir);
      expect(await second.get('registrations', 'a key with / and : in it')).toEqual({ id: 1 });
      expect(await second.add('nonces', 'n', true, 60_000)).toBe(false);
      await second.close();
      const files = readdirSync(dir, { recursive: true }).map(String);
      expect(files.filter((f) => f.endsWith('.tmp') || f.endsWith('.taking'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
