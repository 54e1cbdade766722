import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetLimits } from '../../../src/graph/budget/index.ts';
import type { GraphEngine, MutationInput } from '../../../src/graph/engine/index.ts';
import { scanning } from '../../support/scan-spy.ts';
import { GraphqlPipeline, budgetMeters, statusOf, type ExecutionMeter } from '../../../src/graph/graphql/index.ts';
import { silentLogger } from '../../../src/log/index.ts';
import type { RunningToolgraph } from '../../../src/serve/index.ts';
import { startServe } from '../../tools/support.ts';
import { openEngine } from '../engine/helpers.ts';
import { LOCAL, graphqlOptions, referenceEngine, type Body } from './support.ts';

const ROOMY: BudgetLimits = { maxRows: 1_000_000, maxResultBytes: 16 * 1024 * 1024, timeoutMs: 60_000, maxStallMs: 60_000 };
const QUERY = '{ Person { id KNOWS { id } } }';

let engine: GraphEngine;
beforeAll(async () => {
  engine = await referenceEngine();
});

/** One request through a pipeline whose requests run under `limits` (and the clock `now`, when given). */
async function run(limits: Partial<BudgetLimits>, query = QUERY, now?: () => number) {
  const pipeline = new GraphqlPipeline({
    engine, logger: silentLogger(), options: graphqlOptions(), meter: budgetMeters({ ...ROOMY, ...limits }, now ? { now } : {}),
  });
  const response = await pipeline.run({ graph: 'demo', principal: LOCAL, method: 'POST', params: { query } });
  return { response, body: JSON.parse(response.body) as Body };
}

function expectRefused(body: Body, limit: string, max: number, setting: string): void {
  expect(body.data).toBeUndefined();
  expect(body.errors).toHaveLength(1);
  expect(body.errors![0]!.extensions).toEqual({ code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit, max, setting } });
  expect(body.errors![0]!.message).toContain(`(${setting}). Narrow the query`);
}

describe('the execution budget on GraphQL (ExecutionMeter)', () => {
  it('counts every scanned and expanded row: exactly at the cap passes, one under it is refused', async () => {
    const view = engine.view('demo');
    const people = view.scan('Person');
    const rows = people.length + view.expandEach(people, 'KNOWS', 'out').reduce((n, list) => n + list.length, 0);
    const at = await run({ maxRows: rows });
    expect(at.body.errors).toBeUndefined();
    expect((at.body.data!['Person'] as unknown[]).length).toBe(people.length);

    const over = await run({ maxRows: rows - 1 });
    expectRefused(over.body, 'maxRows', rows - 1, 'TOOLGRAPH_QUERY_MAX_ROWS');
    expect(over.body.errors![0]!.message).toBe(`The query was stopped after producing more than ${rows - 1} rows, its row budget (TOOLGRAPH_QUERY_MAX_ROWS). Narrow the query (a more selective pattern, WHERE or LIMIT) or raise the budget.`);
    // A refusal, not data: 400 whatever the media type.
    expect(statusOf(over.response, 'application/json').status).toBe(400);
    expect(statusOf(over.response, 'application/graphql-response+json').status).toBe(400);
  });

  it('checks the response size: a body exactly at the cap passes, one byte over it is refused', async () => {
    const size = Buffer.byteLength((await run({})).response.body);
    const at = await run({ maxResultBytes: size });
    expect(Buffer.byteLength(at.response.body)).toBe(size);
    expect(at.body.errors).toBeUndefined();
    expectRefused((await run({ maxResultBytes: size - 1 })).body, 'maxResultBytes', size - 1, 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES');
  });

  it('checks the time budget from the first row to the response: at the limit passes, past it is refused', async () => {
    // The clock reads 0 when the first row is counted and 100 ms at every later reading.
    const clock = () => {
      let readings = 0;
      return () => (readings++ === 0 ? 0 : 100);
    };
    expect((await run({ timeoutMs: 100 }, QUERY, clock())).body.errors).toBeUndefined();
    expectRefused((await run({ timeoutMs: 99 }, QUERY, clock())).body, 'timeoutMs', 99, 'TOOLGRAPH_QUERY_TIMEOUT_MS');
  });

  it('stops a nested expansion in flight, in _entities lookups too', async () => {
    const entities = '{ _entities(representations: [{__typename: "Person", id: "person-001"}, {__typename: "Person", id: "person-002"}]) { ... on Person { id } } }';
    expect((await run({ maxRows: 2 }, entities)).body.errors).toBeUndefined();
    expectRefused((await run({ maxRows: 1 }, entities)).body, 'maxRows', 1, 'TOOLGRAPH_QUERY_MAX_ROWS');
  });
});

describe('the execution budget on a mutation\'s returned objects', () => {
  it('refuses the selection at the mutation field after the commit, and reports the version written', async () => {
    const before = engine.view('demo').version;
    const { body } = await run({ maxRows: 0 }, 'mutation { made: createNode(label: "Topic", id: "budget-topic", props: {name: "b"}) { id } }');
    expect(body.data).toBeNull();
    expect(body.errors).toEqual([expect.objectContaining({ path: ['made'], extensions: expect.objectContaining({ code: 'TG_QUERY_BUDGET_EXCEEDED' }) })]);
    expect(body.extensions?.version).toBe(before + 1);
    expect(engine.view('demo').node('budget-topic')?.props).toEqual({ name: 'b' });
  });
});

describe('GraphQL reads go through GraphEngine.readNow', () => {
  it('a query runs inside one engine read of its graph (readNow: at once when nothing waits); a mutation commits instead', async () => {
    const reads: string[] = [];
    const counted = new Proxy(engine, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        if (prop === 'read' || prop === 'readNow') {
          return (graph: string, work: (view: unknown) => unknown) => {
            reads.push(`${String(prop)} ${graph}`);
            return prop === 'read' ? target.read(graph, work as never) : target.readNow(graph, work as never);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    const pipeline = new GraphqlPipeline({ engine: counted, logger: silentLogger(), options: graphqlOptions() });
    await pipeline.run({ graph: 'demo', principal: LOCAL, method: 'POST', params: { query: '{ Topic(first: 1) { id } }' } });
    expect(reads).toEqual(['readNow demo']);
    await pipeline.run({ graph: 'demo', principal: LOCAL, method: 'POST', params: { query: 'mutation { createNode(label: "Topic", props: {name: "t"}) { id } }' } });
    expect(reads).toEqual(['readNow demo']);
  });
});

describe('toolgraph serve runs GraphQL under the query_* settings', () => {
  let running: RunningToolgraph;
  beforeAll(async () => {
    running = await startServe({ env: { TOOLGRAPH_QUERY_MAX_ROWS: '3' }, only: ['graph'] });
  });
  afterAll(async () => {
    await running?.close();
  });

  it('refuses over the row budget on /graphql/{graph} and in the GraphQl method of /dispatch', async () => {
    const post = (path: string, body: unknown) => fetch(`${running.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const under = await post('/graphql/demo', { query: '{ Person(first: 3) { id } }' });
    expect(under.status).toBe(200);
    const over = await post('/graphql/demo', { query: '{ Person(first: 4) { id } }' });
    expect(over.status).toBe(400);
    expectRefused((await over.json()) as Body, 'maxRows', 3, 'TOOLGRAPH_QUERY_MAX_ROWS');
    const dispatched = await post('/dispatch', { id: 9, graph: 'demo', method: { GraphQl: { query: '{ Person(first: 4) { id } }' } } });
    expect(dispatched.status).toBe(200);
    expectRefused(((await dispatched.json()) as { result: Body }).result, 'maxRows', 3, 'TOOLGRAPH_QUERY_MAX_ROWS');
  });
});

/** A budget meter that records what the executor charges, which charge was refused, and the heap then. */
function recording(limits: Partial<BudgetLimits>, now?: () => number) {
  const log = { bytes: 0, refusedBy: '', heapAtRefusal: 0 };
  const make = budgetMeters({ ...ROOMY, ...limits }, now ? { now } : {});
  const meter = (): ExecutionMeter => {
    const inner = make();
    const refusing = <T>(name: string, charge: () => T): T => {
      try {
        return charge();
      } catch (error) {
        log.refusedBy ||= name;
        log.heapAtRefusal ||= process.memoryUsage().heapUsed;
        throw error;
      }
    };
    return {
      rows: (count, level) => refusing('rows', () => inner.rows(count, level)),
      bytes: (bytes) => {
        log.bytes += bytes;
        refusing('bytes', () => inner.bytes(bytes));
      },
      tick: (units) => refusing('tick', () => inner.tick(units)),
      rowsLeft: () => inner.rowsLeft(),
      resultBytes: (bytes) => refusing('resultBytes', () => inner.resultBytes(bytes)),
      get yieldDue() {
        return inner.yieldDue;
      },
      pause: () => inner.pause(),
    };
  };
  return { log, meter };
}

async function runOn(on: GraphEngine, graph: string, meter: () => ExecutionMeter, query: string, env: Record<string, string> = {}) {
  const pipeline = new GraphqlPipeline({ engine: on, logger: silentLogger(), options: graphqlOptions(env), meter });
  const response = await pipeline.run({ graph, principal: LOCAL, method: 'POST', params: { query } });
  return { response, body: JSON.parse(response.body) as Body };
}

function forceGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Cost analysis and the list limit out of the way: only the execution budget decides. */
const UNPRICED = { TOOLGRAPH_GRAPHQL_MAX_COST: '100000000', TOOLGRAPH_GRAPHQL_DEFAULT_PAGE: '1', TOOLGRAPH_GRAPHQL_LIST_LIMIT: '1000000' };

describe('the execution budget is charged before the executor allocates', () => {
  let hub: GraphEngine;
  beforeAll(async () => {
    // One hub linked both ways to 3,000 leaves: LINK → BACK → LINK is 9 million rows.
    hub = await openEngine();
    await hub.createGraph('hub');
    const mutations: MutationInput[] = [{ op: 'createNode', id: 'hub', label: 'Hub', props: {} }];
    for (let i = 0; i < 3000; i++) {
      const id = `leaf-${String(i).padStart(4, '0')}`;
      mutations.push({ op: 'createNode', id, label: 'Leaf', props: { n: i } }, { op: 'addEdge', src: 'hub', tgt: id, type: 'LINK' }, { op: 'addEdge', src: id, tgt: 'hub', type: 'BACK' });
    }
    await hub.commit({ graph: 'hub', mutations });
  });
  afterAll(async () => {
    await hub?.close();
  });

  it('charges a level from its adjacency lists\' sizes before building it: refused with the heap where it was', async () => {
    const gc = forceGc();
    const { log, meter } = recording({ maxRows: 100_000 });
    gc();
    const before = process.memoryUsage().heapUsed;
    const { body } = await runOn(hub, 'hub', meter, '{ Hub(first: 1) { LINK { BACK { LINK { id } } } } }', UNPRICED);
    expectRefused(body, 'maxRows', 100_000, 'TOOLGRAPH_QUERY_MAX_ROWS');
    expect(log.refusedBy).toBe('rows');
    // The last level would hold 9 million references (72 MB) had it been built before its charge.
    expect(log.heapAtRefusal - before).toBeLessThan(24 * 1024 * 1024);
  });

  it('asks the engine for one row past the row budget at most', async () => {
    const { body } = await run({ maxRows: 3 }, '{ Person(first: 20) { id } }');
    expectRefused(body, 'maxRows', 3, 'TOOLGRAPH_QUERY_MAX_ROWS');
    const { engine: spied, scans } = scanning(engine);
    expectRefused((await runOn(spied, 'demo', budgetMeters({ ...ROOMY, maxRows: 3 }), '{ Person(first: 20) { id } }')).body, 'maxRows', 3, 'TOOLGRAPH_QUERY_MAX_ROWS');
    expect(scans.map((options) => options.first)).toEqual([4]);
  });

  it('charges the JSON of each level as it is shaped: a result over the size budget is refused before it is serialised', async () => {
    const query = '{ Hub(first: 1) { LINK(first: 3000) { id n BACK { id } } } }';
    const size = Buffer.byteLength((await runOn(hub, 'hub', recording({}).meter, query, UNPRICED)).response.body);
    const { log, meter } = recording({ maxResultBytes: size / 2 });
    expectRefused((await runOn(hub, 'hub', meter, query, UNPRICED)).body, 'maxResultBytes', size / 2, 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES');
    expect(log.refusedBy).toBe('bytes');
  });

  it('charges a lower bound of the JSON: what it charged never exceeds the body, so a body at the cap passes', async () => {
    const queries = [
      '{ Person { id name age active rating languages email __typename KNOWS { id name } AUTHORED { __typename ... on Document { title pages } ... on Repository { name } } } }',
      '{ PersonConnection(first: 5) { edges { cursor node { name } } pageInfo { hasNextPage endCursor } } Topic { name weight } }',
      '{ _entities(representations: [{__typename: "Person", id: "person-001"}, {__typename: "Person", id: "nobody"}]) { ... on Person { name } } }',
      '{ Project { name tags stars budgetUsd archived } Document { title keywords summary } }',
    ];
    for (const query of queries) {
      const { log, meter } = recording({});
      const { response, body } = await run({}, query);
      expect(body.errors, query).toBeUndefined();
      const again = await runOn(engine, 'demo', meter, query);
      expect(again.response.body).toBe(response.body);
      expect(log.bytes, query).toBeGreaterThan(0);
      expect(log.bytes, query).toBeLessThanOrEqual(Buffer.byteLength(response.body));
    }
  });

  it('yields the event loop between slices of a large level: a small request is answered meanwhile, a commit waits', async () => {
    const query = '{ Hub(first: 1) { LINK(first: 3000) { id n } } }';
    const unpaused = (await runOn(hub, 'hub', budgetMeters(ROOMY), query, UNPRICED)).response.body;
    let pauses = 0;
    // Every slice is spent at once: the executor pauses wherever it may.
    const make = budgetMeters(ROOMY, { sliceMs: 0 });
    const meter = (): ExecutionMeter => {
      const inner = make();
      return {
        rows: (count, level) => inner.rows(count, level), bytes: (bytes) => inner.bytes(bytes), tick: (units) => inner.tick(units),
        rowsLeft: () => inner.rowsLeft(), resultBytes: (bytes) => inner.resultBytes(bytes),
        get yieldDue() {
          return inner.yieldDue;
        },
        pause: () => {
          pauses++;
          return inner.pause();
        },
      };
    };
    const pipeline = new GraphqlPipeline({ engine: hub, logger: silentLogger(), options: graphqlOptions(UNPRICED), meter });
    // A new pipeline builds the graph's schema on its first request, off the read (an await before it): build it first.
    await pipeline.run({ graph: 'hub', principal: LOCAL, method: 'POST', params: { query: '{ Hub(first: 1) { id } }' } });
    pauses = 0;
    const version = hub.view('hub').version;
    const order: string[] = [];
    const big = pipeline.run({ graph: 'hub', principal: LOCAL, method: 'POST', params: { query } }).then((r) => {
      order.push('big');
      return r;
    });
    const small = pipeline.run({ graph: 'hub', principal: LOCAL, method: 'POST', params: { query: '{ Hub { id } }' } }).then(() => order.push('small'));
    const write = hub.commit({ graph: 'hub', mutations: [{ op: 'updateNode', id: 'leaf-0000', set: { n: -1 } }] }).then(() => order.push('commit'));
    const [response] = await Promise.all([big, small, write]);
    // The small read ends first; the big one ends its read before the commit applies (its answer is
    // of the old version, below), though its answer may be written after (a large one in slices).
    expect(order[0]).toBe('small');
    expect([...order].sort()).toEqual(['big', 'commit', 'small']);
    expect(pauses).toBeGreaterThan(2);
    // One graph version throughout: the commit applied once the paused read had ended.
    expect(response.body).toBe(unpaused);
    expect(JSON.parse(response.body).extensions.version).toBe(version);
    expect(hub.view('hub').node('leaf-0000')!.props).toEqual({ n: -1 });
  });

  it('reads the clock while it shapes a large level, not only once it is done', async () => {
    // The clock advances 1 ms per reading: at the level's charge, then as shaped objects are counted
    // (tick) or their bytes charged (bytes, which count as work too): either is a reading taken while
    // the level is shaped, not at its charge (rows) or at the end (resultBytes).
    let readings = 0;
    const clock = () => readings++;
    const { log, meter } = recording({ timeoutMs: 2 }, clock);
    expectRefused((await runOn(hub, 'hub', meter, '{ Hub(first: 1) { LINK(first: 3000) { id } } }', UNPRICED)).body, 'timeoutMs', 2, 'TOOLGRAPH_QUERY_TIMEOUT_MS');
    expect(['tick', 'bytes']).toContain(log.refusedBy);
  });
});
