import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEngine, MutationInput } from '../../src/graph/engine/index.ts';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { startServe } from '../tools/support.ts';

/**
 * Issue 15, attack C1: GraphQL fan-out over a hub, read-only. One `Hub` linked to 10,000 `Leaf`
 * nodes both ways (LINK hub→leaf, BACK leaf→hub), so `{ Hub { LINK { BACK { LINK { id } } } } }`
 * asks for 10,000 × 10,000 rows and `_entities` with 28,000 copies of the hub selecting
 * `LINK { id }` for 280 million. Each must be refused (execution budget or cost analysis, naming
 * the setting) within twice the time budget, while /healthz keeps answering, without the heap
 * growing. Served by `toolgraph serve` (graph service, memory persistence) over real HTTP.
 */

const LEAVES = 10_000;
const TIME_BUDGET_MS = 5_000;
const FANOUT = '{ Hub { LINK { BACK { LINK { id } } } } }';
const ENTITIES = 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Hub { LINK { id } } } }';
const REPRESENTATIONS = Array.from({ length: 28_000 }, () => ({ __typename: 'Hub', id: 'hub-0' }));

/** The limits an operator could raise them to: only the execution budget stands in the way. */
const DODGED = {
  TOOLGRAPH_GRAPHQL_MAX_COST: '100000000',
  TOOLGRAPH_GRAPHQL_DEFAULT_PAGE: '1',
  TOOLGRAPH_GRAPHQL_LIST_LIMIT: '100000',
  TOOLGRAPH_GRAPHQL_MAX_REPRESENTATIONS: '1000000',
};

function forceGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function buildHub(engine: GraphEngine): Promise<void> {
  await engine.createGraph('hubs');
  const mutations: MutationInput[] = [{ op: 'createNode', id: 'hub-0', label: 'Hub', props: { name: 'hub' } }];
  for (let i = 0; i < LEAVES; i++) {
    const id = `leaf-${String(i).padStart(5, '0')}`;
    mutations.push({ op: 'createNode', id, label: 'Leaf', props: { n: i } });
    mutations.push({ op: 'addEdge', src: 'hub-0', tgt: id, type: 'LINK' }, { op: 'addEdge', src: id, tgt: 'hub-0', type: 'BACK' });
  }
  for (let i = 0; i < mutations.length; i += 10_000) await engine.commit({ graph: 'hubs', mutations: mutations.slice(i, i + 10_000) });
}

/** Builds the hub graph and its GraphQL schema (a first request), so the attack measures only itself. */
async function serveHub(env: Record<string, string> = {}): Promise<RunningToolgraph> {
  const running = await startServe({ only: ['graph'], env });
  await buildHub(running.engine!);
  expect((await graphql(running.origin, '{ Hub(first: 1) { id } }')).body.data).toEqual({ Hub: [{ id: 'hub-0' }] });
  return running;
}

interface Answer {
  status: number;
  ms: number;
  body: { data?: unknown; errors?: { message: string; extensions?: { code?: string; details?: Record<string, unknown> } }[] };
}

async function graphql(origin: string, query: string, variables?: Record<string, unknown>): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${origin}/graphql/hubs`, {
    // graphql-response+json: refusals before execution answer 400 too (application/json would get 200).
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
  });
  const body = (await res.json()) as Answer['body'];
  return { status: res.status, ms: performance.now() - started, body };
}

/**
 * Sends the attack (three fan-outs and three `_entities` at once) while polling /healthz every
 * 20 ms; returns the answers, the slowest /healthz and the heap and peak-RSS growth.
 */
async function attack(origin: string): Promise<{ answers: Answer[]; healthzMs: number; heapGrowth: number; peakRssGrowth: number }> {
  const gc = forceGc();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  let running = true;
  let healthzMs = 0;
  const poll = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${origin}/healthz`);
      await res.text();
      expect(res.status).toBe(200);
      healthzMs = Math.max(healthzMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const answers = await Promise.all([
    graphql(origin, FANOUT), graphql(origin, ENTITIES, { r: REPRESENTATIONS }),
    graphql(origin, FANOUT), graphql(origin, ENTITIES, { r: REPRESENTATIONS }),
    graphql(origin, FANOUT), graphql(origin, ENTITIES, { r: REPRESENTATIONS }),
  ]);
  running = false;
  await poll;
  gc();
  return {
    answers, healthzMs,
    heapGrowth: process.memoryUsage().heapUsed - heapBefore,
    peakRssGrowth: process.resourceUsage().maxRSS * 1024 - peakBefore,
  };
}

function expectRefusal(answer: Answer, code: string, limit: string, setting: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors).toHaveLength(1);
  const error = answer.body.errors![0]!;
  expect(error.extensions?.code).toBe(code);
  expect(error.extensions?.details).toMatchObject({ limit });
  expect(error.message).toContain(setting);
  expect(answer.ms).toBeLessThan(2 * TIME_BUDGET_MS);
}

const MiB = 1024 * 1024;

describe('C1: GraphQL fan-out over a hub (default settings)', () => {
  let running: RunningToolgraph;
  beforeAll(async () => {
    running = await serveHub();
  }, 120_000);
  afterAll(async () => {
    await running?.close();
  });

  it('refuses the fan-out on its list limit and 28,000 representations on their cap, /healthz answering meanwhile, the heap flat', async () => {
    const { answers, healthzMs, heapGrowth, peakRssGrowth } = await attack(running.origin);
    for (const [i, answer] of answers.entries()) {
      if (i % 2 === 0) expectRefusal(answer, 'TG_QUERY_BUDGET_EXCEEDED', 'listLimit', 'TOOLGRAPH_GRAPHQL_LIST_LIMIT');
      else expectRefusal(answer, 'TG_QUERY_TOO_COMPLEX', 'representations', 'TOOLGRAPH_GRAPHQL_MAX_REPRESENTATIONS');
    }
    expect(healthzMs).toBeLessThan(500);
    expect(heapGrowth).toBeLessThan(64 * MiB);
    expect(peakRssGrowth).toBeLessThan(256 * MiB);
  }, 60_000);

  it('prices first: $n by its value, an edge field without first at the default page (5), before reading anything', async () => {
    const query = 'query ($n: Int) { Hub(first: $n) { LINK { BACK { id } } } }';
    // LINK and BACK without first: 5 each. (2 + 1.5 × (2 + 1.5 × (2 + 1.5 × 1) × 5) × 5) per hub row.
    const perHub = 2 + 1.5 * (2 + 1.5 * (2 + 1.5 * 1) * 5) * 5;
    const n = 100_000;
    const refused = await graphql(running.origin, query, { n });
    expectRefusal(refused, 'TG_QUERY_TOO_COMPLEX', 'cost', 'TOOLGRAPH_GRAPHQL_MAX_COST');
    expect(refused.body.errors![0]!.extensions?.details).toEqual({ limit: 'cost', max: 10_000_000, found: Math.ceil(perHub * n) });
    // The same document with a small page runs, and the list limit still guards LINK (10,000 > 1,000).
    const small = await graphql(running.origin, query, { n: 1 });
    expectRefusal(small, 'TG_QUERY_BUDGET_EXCEEDED', 'listLimit', 'TOOLGRAPH_GRAPHQL_LIST_LIMIT');
    const paged = await graphql(running.origin, 'query ($n: Int) { Hub(first: $n) { LINK(first: 3) { BACK { id } } } }', { n: 1 });
    const back = { BACK: [{ id: 'hub-0' }] };
    expect(paged.body).toEqual({ data: { Hub: [{ LINK: [back, back, back] }] }, extensions: { version: expect.any(Number) } });
  });

  it('prices first: $n on nested edges by its value: 10,000 per level is refused before execution', async () => {
    const query = 'query ($n: Int) { Hub(first: 1) { LINK(first: $n) { BACK(first: $n) { LINK(first: $n) { id } } } } }';
    expectRefusal(await graphql(running.origin, query, { n: LEAVES }), 'TG_QUERY_TOO_COMPLEX', 'cost', 'TOOLGRAPH_GRAPHQL_MAX_COST');
    const ok = await graphql(running.origin, query, { n: 2 });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data).toEqual({ Hub: [{ LINK: [{ BACK: [{ LINK: [{ id: 'leaf-00000' }, { id: 'leaf-00001' }] }] }, { BACK: [{ LINK: [{ id: 'leaf-00000' }, { id: 'leaf-00001' }] }] }] }] });
  });
});

describe('C1 with cost analysis and the list limit raised out of the way', () => {
  let running: RunningToolgraph;
  beforeAll(async () => {
    running = await serveHub(DODGED);
  }, 120_000);
  afterAll(async () => {
    await running?.close();
  });

  it('the execution budget refuses both on their rows before building them, /healthz answering meanwhile, the heap flat', async () => {
    const { answers, healthzMs, heapGrowth, peakRssGrowth } = await attack(running.origin);
    for (const answer of answers) expectRefusal(answer, 'TG_QUERY_BUDGET_EXCEEDED', 'maxRows', 'TOOLGRAPH_QUERY_MAX_ROWS');
    expect(healthzMs).toBeLessThan(500);
    expect(heapGrowth).toBeLessThan(64 * MiB);
    expect(peakRssGrowth).toBeLessThan(256 * MiB);
  }, 60_000);
});
