import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GraphEngine, type ChangeEvent } from '../../../src/graph/engine/index.ts';
import { loadReferenceGraph } from '../../../src/graph/fixtures/index.ts';
import { GraphqlPipeline } from '../../../src/graph/graphql/index.ts';
import { FilePersistence, MemoryPersistence, MemoryStore, PostgresPersistence } from '../../../src/graph/persist/index.ts';
import { readNamespace, replaceNamespace, sdlFromCatalogue } from '../../../src/graph/schema/index.ts';
import { silentLogger } from '../../../src/log/index.ts';
import { SKIP_MESSAGE, TEST_DATABASE_URL, dropSchema, freshSchema } from '../persist/postgres/test-database.ts';
import { LOCAL, graphqlOptions } from '../graphql/support.ts';
import { until } from '../../support/until.ts';

/** specs/graph.graphql without its two header lines: the reference graph's SDL as the spec describes it. */
const SPEC_SDL = readFileSync(new URL('../../../specs/graph.graphql', import.meta.url), 'utf8').split('\n').slice(2).join('\n');

async function query(engine: GraphEngine, graph: string, text: string): Promise<unknown> {
  const pipeline = new GraphqlPipeline({ engine, logger: silentLogger(), options: graphqlOptions() });
  return JSON.parse((await pipeline.run({ graph, principal: LOCAL, method: 'POST', params: { query: text } })).body) as unknown;
}

const open: GraphEngine[] = [];
afterEach(async () => {
  for (const engine of open.splice(0)) await engine.close();
});

describe('a namespace is one batch of its graph', () => {
  it('moves the catalogue epoch, and clearing it gives back the SDL and epoch of the graph without one, byte for byte', async () => {
    const engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
    open.push(engine);
    await loadReferenceGraph(engine, 'demo');
    const plain = engine.view('demo').catalogue;
    expect(sdlFromCatalogue(plain)).toBe(SPEC_SDL);
    const events: ChangeEvent[] = [];
    engine.subscribe((e) => events.push(e));

    const before = engine.view('demo').version;
    expect(await replaceNamespace(engine, 'demo', 'crm')).toEqual({ graph: 'demo', version: before + 1, namespace: 'crm' });
    expect(events).toMatchObject([{ kind: 'batch', graph: 'demo', version: before + 1, mutations: [{ op: 'setNamespace', namespace: 'crm' }], catalogueChanged: true }]);
    const namespaced = engine.view('demo').catalogue;
    expect(namespaced.namespace).toBe('crm');
    expect(namespaced.epoch).not.toBe(plain.epoch);
    // The running schema follows: the old root field is gone, the prefixed one answers.
    expect(await query(engine, 'demo', '{ crm_Person(first: 1) { __typename name } }')).toMatchObject({ data: { crm_Person: [{ __typename: 'Crm_Person', name: 'Ada Lovelace' }] } });
    expect(await query(engine, 'demo', '{ Person(first: 1) { name } }')).toMatchObject({ errors: [{ extensions: { code: 'TG_GRAPHQL_NO_NODE_TYPE' } }] });
    // Cursors stay label cursors (one survives a namespace change); messages name the prefixed fields.
    const topic = Buffer.from('c1:Topic:topic-graphql').toString('base64url');
    expect(await query(engine, 'demo', `{ crm_PersonConnection(after: "${topic}") { pageInfo { hasNextPage } } }`)).toMatchObject({
      errors: [{ message: `after: the cursor "${topic}" belongs to crm_TopicConnection, not crm_PersonConnection.`, extensions: { code: 'TG_CURSOR_INVALID' } }],
    });
    // The same namespace again writes nothing.
    expect(await replaceNamespace(engine, 'demo', 'crm')).toEqual({ graph: 'demo', version: before + 1, namespace: 'crm' });

    await replaceNamespace(engine, 'demo', null);
    expect(engine.view('demo').catalogue.epoch).toBe(plain.epoch);
    expect(sdlFromCatalogue(engine.view('demo').catalogue)).toBe(SPEC_SDL);
    expect(await query(engine, 'demo', '{ Person(first: 1) { __typename name } }')).toMatchObject({ data: { Person: [{ __typename: 'Person', name: 'Ada Lovelace' }] } });
  });

  it('cannot be smuggled in through a client batch', async () => {
    const engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
    open.push(engine);
    await engine.createGraph('g');
    await expect(engine.commit({ graph: 'g', mutations: [{ op: 'setNamespace', namespace: 'x' } as never] })).rejects.toMatchObject({ code: 'TG_BAD_REQUEST' });
    expect(engine.namespace('g')).toBeNull();
  });

  it('survives a restart, from a snapshot (memory store) and from the log and a snapshot (file store)', async () => {
    const store = new MemoryStore();
    const engine = await GraphEngine.open({ persistence: new MemoryPersistence({ store }), snapshotEvery: 0 });
    open.push(engine);
    await engine.createGraph('g');
    await replaceNamespace(engine, 'g', 'crm');
    await engine.snapshot('g');
    await engine.close();
    open.pop();
    const again = await GraphEngine.open({ persistence: new MemoryPersistence({ store }) });
    open.push(again);
    expect(readNamespace(again, 'g')).toEqual({ graph: 'g', version: 1, namespace: 'crm' });

    const directory = mkdtempSync(join(tmpdir(), 'tg-namespace-'));
    const first = await GraphEngine.open({ persistence: await FilePersistence.open({ directory }), snapshotEvery: 0 });
    open.push(first);
    await first.createGraph('f');
    await first.commit({ graph: 'f', mutations: [{ op: 'createNode', id: 't1', label: 'Ticket', props: { title: 'x' } }] });
    await replaceNamespace(first, 'f', 'tickets');
    await first.close();
    open.pop();
    const second = await GraphEngine.open({ persistence: await FilePersistence.open({ directory }) });
    open.push(second);
    expect(second.namespace('f')).toBe('tickets');
    expect(sdlFromCatalogue(second.view('f').catalogue)).toContain('  tickets_Ticket(first: Int, limit: Int, id: ID, title: String): [Tickets_Ticket!]!');
    await replaceNamespace(second, 'f', 'support');
    await second.snapshot('f');
    await second.close();
    open.pop();
    const third = await GraphEngine.open({ persistence: await FilePersistence.open({ directory }) });
    open.push(third);
    expect(third.namespace('f')).toBe('support');
    expect(await query(third, 'f', '{ support_Ticket { __typename title } }')).toMatchObject({ data: { support_Ticket: [{ __typename: 'Support_Ticket', title: 'x' }] } });
  });
});

describe.skipIf(!TEST_DATABASE_URL)(TEST_DATABASE_URL ? 'PostgreSQL: a namespace set on one instance' : SKIP_MESSAGE, () => {
  it('reaches a second instance following, and a third loading', async () => {
    const schema = freshSchema();
    try {
      const instance = async () => {
        const engine = await GraphEngine.open({ persistence: new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 4, pollIntervalMs: 200 }) });
        open.push(engine);
        return engine;
      };
      const a = await instance();
      const b = await instance();
      await a.createGraph('g');
      await a.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'p1', label: 'Person', props: { name: 'Ada' } }] });
      await until('b has the graph', () => b.hasGraph('g') && b.view('g').version === 1);
      expect(await query(b, 'g', '{ Person { name } }')).toMatchObject({ data: { Person: [{ name: 'Ada' }] } });

      await replaceNamespace(a, 'g', 'crm');
      await until('b follows the namespace', () => b.namespace('g') === 'crm');
      expect(b.view('g').catalogue.epoch).toBe(a.view('g').catalogue.epoch);
      expect(await query(b, 'g', '{ crm_Person { __typename name } }')).toMatchObject({ data: { crm_Person: [{ __typename: 'Crm_Person', name: 'Ada' }] } });

      const c = await instance();
      expect(readNamespace(c, 'g')).toEqual(readNamespace(a, 'g'));
    } finally {
      for (const engine of open.splice(0)) await engine.close();
      await dropSchema(schema);
    }
  });
});
