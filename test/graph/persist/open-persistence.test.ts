import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPersistence } from '../../../src/graph/persist/index.ts';

describe('openPersistence', () => {
  it('opens memory and file adapters, and postgres without connecting yet', async () => {
    expect((await openPersistence({ kind: 'memory' })).kind).toBe('memory');
    const dir = await mkdtemp(join(tmpdir(), 'tg-open-'));
    try {
      const file = await openPersistence({ kind: 'file', dataDir: join(dir, 'graphs') });
      expect(file.kind).toBe('file');
      await file.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const postgres = await openPersistence({ kind: 'postgres', databaseUrl: 'postgresql://nobody@127.0.0.1:1/none' });
    expect(postgres.kind).toBe('postgres');
    await postgres.close();
  });

  it.each([
    [{ kind: 'file' }, 'TOOLGRAPH_DATA_DIR'],
    [{ kind: 'postgres' }, 'DATABASE_URL'],
    [{ kind: 'sqlite' }, 'expected file, postgres or memory'],
  ])('refuses %j with TG_CONFIG_INVALID naming what is missing', async (options, text) => {
    await expect(openPersistence(options)).rejects.toMatchObject({ code: 'TG_CONFIG_INVALID', message: expect.stringContaining(text) });
  });
});
