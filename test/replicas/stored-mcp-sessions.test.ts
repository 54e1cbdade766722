import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { MemoryStateStore, PostgresStateStore, type StateStore } from '../../src/state/index.ts';
import { StoredMcpSessions } from '../../src/tools/stored-mcp-sessions.ts';
import { replicaSuite, testDatabaseUrl } from './support/prerequisites.ts';

const suite = replicaSuite('The replica suite stored-mcp-sessions (MCP sessions in a shared PostgreSQL store)', { postgres: true });

const schema = `tg_sessions_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
const stores: StateStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

/** Two replicas' handles on one PostgreSQL store. */
function replicas(limits = { maxSessions: 6, maxSessionsPerSubject: 3 }): [StoredMcpSessions, StoredMcpSessions] {
  const [x, y] = [new PostgresStateStore({ connectionString: testDatabaseUrl(), schema }), new PostgresStateStore({ connectionString: testDatabaseUrl(), schema })];
  stores.push(x, y);
  return [new StoredMcpSessions(x, limits, { idleMs: 60_000 }), new StoredMcpSessions(y, limits, { idleMs: 60_000 })];
}

suite('MCP sessions in the shared store', () => {
  it('the per-caller and overall caps hold across replicas: 20 initializes of one caller racing on two replicas leave exactly its cap open', async () => {
    const [a, b] = replicas();
    const opened = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).open('hog')));
    const live = await Promise.all(opened.map(({ id }) => a.use(id, 'hog')));
    expect(live.filter(Boolean)).toHaveLength(3);
    // Another caller fills the rest; a third has nothing to give up and is refused, on either replica.
    for (let i = 0; i < 3; i++) await (i % 2 === 0 ? b : a).open('other');
    await expect(b.open('third')).rejects.toMatchObject({ code: 'TG_RATE_LIMITED', details: { limit: 'mcpMaxSessions', max: 6 } });
    await expect(a.open('third')).rejects.toMatchObject({ code: 'TG_RATE_LIMITED' });
  });

  it('a session opened on one replica is used and ended on the other, and is its caller\'s only', async () => {
    const [a, b] = replicas({ maxSessions: 100, maxSessionsPerSubject: 4 });
    const { id } = await a.open('alice');
    expect(await b.use(id, 'alice')).toBe(true);
    expect(await b.use(id, 'mallory')).toBe(false);
    expect(await b.close(id, 'alice')).toBe(true);
    expect(await a.use(id, 'alice')).toBe(false);
  });

  it('keeps what the client declared at initialize for every later request of the session, on any replica', async () => {
    const [a, b] = replicas({ maxSessions: 100, maxSessionsPerSubject: 4 });
    const asks = await a.open('alice', { urlElicitation: true });
    const plain = await a.open('alice');
    // Opening and using other sessions rewrites the table; the capabilities stay with their session.
    await b.open('bob');
    expect(await b.resume(asks.id, 'alice')).toEqual({ urlElicitation: true });
    expect(await b.resume(plain.id, 'alice')).toEqual({ urlElicitation: false });
    expect(await a.resume(asks.id, 'alice')).toEqual({ urlElicitation: true });
    expect(await a.resume(asks.id, 'mallory')).toBeUndefined();
  });

  it('the least recently used session of a caller makes room, whichever replica saw the use', async () => {
    const store = new MemoryStateStore();
    stores.push(store);
    const a = new StoredMcpSessions(store, { maxSessions: 10, maxSessionsPerSubject: 2 }, { idleMs: 60_000 });
    const first = await a.open('bob');
    const second = await a.open('bob');
    expect(await a.use(first.id, 'bob')).toBe(true);
    const third = await a.open('bob');
    expect(third.evicted).toEqual([second.id]);
    expect(await a.use(second.id, 'bob')).toBe(false);
  });
});
