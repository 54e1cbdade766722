import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCarrierAccess, readAccessPolicy, replaceAccessPolicy, type AccessPolicy } from '../../../src/graph/access/index.ts';
import { GraphEngine, type ChangeEvent } from '../../../src/graph/engine/index.ts';
import { FilePersistence, MemoryPersistence, MemoryStore, PostgresPersistence } from '../../../src/graph/persist/index.ts';
import type { Principal } from '../../../src/principal/index.ts';
import { SKIP_MESSAGE, TEST_DATABASE_URL, dropSchema, freshSchema } from '../persist/postgres/test-database.ts';
import { ADMIN, TEAM_POLICY, cypher, seedTeams } from './fixture.ts';
import { until } from '../../support/until.ts';

const alice: Principal = { subject: 'alice', scopes: ['kg:read'], groups: ['red'] };
const OPEN_DOCS: AccessPolicy = { ...TEAM_POLICY, rows: { '*': true } };
const count = async (engine: GraphEngine, who: Principal) => ((await cypher(engine, 'g', who, 'MATCH (d:Document) RETURN count(d)'))['result'] as { rows: number[][] } | undefined)?.rows[0]?.[0];

const open: GraphEngine[] = [];
afterEach(async () => {
  for (const engine of open.splice(0)) await engine.close();
});

describe('a policy is one batch of its graph', () => {
  it('takes one version, is published on the change feed, and travels in snapshots', async () => {
    const store = new MemoryStore();
    const engine = await GraphEngine.open({ persistence: new MemoryPersistence({ store }), snapshotEvery: 0 });
    open.push(engine);
    await seedTeams(engine, 'g');
    const events: ChangeEvent[] = [];
    engine.subscribe((e) => events.push(e));
    const before = engine.view('g').version;
    const stored = await replaceAccessPolicy(engine, 'g', TEAM_POLICY);
    expect(stored.version).toBe(before + 1);
    expect(engine.view('g').version).toBe(before + 1);
    expect(events).toMatchObject([{ kind: 'batch', graph: 'g', version: before + 1, mutations: [{ op: 'setAccess' }], catalogueChanged: false }]);
    await engine.snapshot('g');
    await engine.close();
    open.pop();
    const again = await GraphEngine.open({ persistence: new MemoryPersistence({ store }) });
    open.push(again);
    expect(readAccessPolicy(again, 'g')).toEqual({ graph: 'g', version: before + 1, policy: TEAM_POLICY });
    expect(await count(again, alice)).toBe(3);
  });

  it('cannot be smuggled in through a client batch', async () => {
    const engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
    open.push(engine);
    await engine.createGraph('g');
    await expect(engine.commit({ graph: 'g', mutations: [{ op: 'setAccess', policy: OPEN_DOCS } as never] })).rejects.toMatchObject({ code: 'TG_BAD_REQUEST' });
    expect(engine.access('g')).toBeNull();
    const denied = await cypher(engine, 'g', { ...alice, scopes: ['kg:write'] }, "CREATE (n:Document {team: 'red'}) RETURN n");
    expect(denied).toMatchObject({ error: { code: 'TG_GRAPH_NOT_FOUND' } });
  });
});

describe('the file store', () => {
  it('keeps the policy across a restart, from the log and from a snapshot', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tg-access-'));
    const first = await GraphEngine.open({ persistence: await FilePersistence.open({ directory }), snapshotEvery: 0 });
    open.push(first);
    await seedTeams(first, 'g');
    await replaceAccessPolicy(first, 'g', TEAM_POLICY);
    expect(await count(first, alice)).toBe(3);
    await first.close();
    open.pop();

    const second = await GraphEngine.open({ persistence: await FilePersistence.open({ directory }) });
    open.push(second);
    expect(readAccessPolicy(second, 'g')?.policy).toEqual(TEAM_POLICY);
    expect(await count(second, alice)).toBe(3);
    expect(await count(second, ADMIN)).toBe(6);
    await replaceAccessPolicy(second, 'g', OPEN_DOCS);
    await second.snapshot('g');
    await second.close();
    open.pop();

    const third = await GraphEngine.open({ persistence: await FilePersistence.open({ directory }) });
    open.push(third);
    expect(readAccessPolicy(third, 'g')?.policy).toEqual(OPEN_DOCS);
    expect(await count(third, alice)).toBe(6);
  });
});

describe.skipIf(!TEST_DATABASE_URL)(TEST_DATABASE_URL ? 'PostgreSQL: a policy set on one instance' : SKIP_MESSAGE, () => {
  it('reaches a second instance (following and loading), and its carrier visibility key changes', async () => {
    const schema = freshSchema();
    try {
      const instance = async () => {
        const engine = await GraphEngine.open({ persistence: new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 4, pollIntervalMs: 200 }) });
        open.push(engine);
        return engine;
      };
      const a = await instance();
      const b = await instance();
      await seedTeams(a, 'g');
      await until('b has the graph', () => b.hasGraph('g') && b.view('g').version === 1);
      expect(await count(b, alice)).toBeUndefined();
      const carrier = createCarrierAccess(b);
      expect(carrier.visibility({ ...alice, groups: ['red'] }, 'g')).toBeNull();

      await replaceAccessPolicy(a, 'g', TEAM_POLICY);
      await until('b follows the policy', () => b.access('g') !== null);
      expect(readAccessPolicy(b, 'g')).toEqual(readAccessPolicy(a, 'g'));
      expect(await count(b, alice)).toBe(3);
      const key = carrier.visibility({ ...alice, groups: ['red'] }, 'g');
      expect(key).not.toBeNull();

      await replaceAccessPolicy(b, 'g', OPEN_DOCS);
      await until('a follows the change', async () => (await count(a, alice)) === 6);
      expect(carrier.visibility({ ...alice, groups: ['red'] }, 'g')).not.toBe(key);

      const c = await instance();
      expect(readAccessPolicy(c, 'g')?.policy).toEqual(OPEN_DOCS);
      expect(await count(c, alice)).toBe(6);
    } finally {
      for (const engine of open.splice(0)) await engine.close();
      await dropSchema(schema);
    }
  });
});
