import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { scanning } from '../../support/scan-spy.ts';
import { graphql, graphqlOptions, pipelineFor, referenceEngine, type Body } from './support.ts';

let engine: GraphEngine;
beforeAll(async () => {
  engine = await referenceEngine();
});
afterAll(async () => {
  await engine.close();
});

/** Runs `query` with TOOLGRAPH_GRAPHQL_LIST_LIMIT at `limit`. */
function run(limit: number, query: string, on: GraphEngine = engine): Promise<Body> {
  return graphql(pipelineFor(on, graphqlOptions({ TOOLGRAPH_GRAPHQL_LIST_LIMIT: String(limit) })), query);
}

function expectListRefusal(body: Body, field: string, max: number): void {
  expect(body.data).toBeUndefined();
  expect(body.errors).toEqual([{
    message: `${field} has more than ${max} items and no first/limit: a list without a page returns at most ${max} items, its list limit (TOOLGRAPH_GRAPHQL_LIST_LIMIT). Ask for a page (first: n, or a <Label>Connection page) or raise the limit.`,
    extensions: { code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'listLimit', max, setting: 'TOOLGRAPH_GRAPHQL_LIST_LIMIT' } },
  }]);
}


describe('the list limit: a list without a page returns at most TOOLGRAPH_GRAPHQL_LIST_LIMIT items, more is refused', () => {
  it('on a root list: 30 people pass a limit of 30, a limit of 29 refuses them, a page is never cut', async () => {
    expect(((await run(30, '{ Person { id } }')).data!['Person'] as unknown[]).length).toBe(30);
    expectListRefusal(await run(29, '{ Person { id } }'), 'Person', 29);
    expect(((await run(1, '{ Person(first: 30) { id } }')).data!['Person'] as unknown[]).length).toBe(30);
    expect(((await run(1, '{ Person(limit: 5) { id } }')).data!['Person'] as unknown[]).length).toBe(5);
    // Filtered down to one, the list fits any limit.
    expect((await run(1, '{ Person(id: "person-002") { id } }')).data).toEqual({ Person: [{ id: 'person-002' }] });
  });

  it('asks the engine for one row past the limit at most', async () => {
    const { engine: spied, scans } = scanning(engine);
    expectListRefusal(await run(5, '{ Person { id } }', spied), 'Person', 5);
    expect(scans).toEqual([expect.objectContaining({ first: 6 })]);
  });

  it('on an edge field, per parent: two KNOWS each pass a limit of 2, a limit of 1 refuses them', async () => {
    const knows = await run(2, '{ Person(first: 3) { KNOWS { id } } }');
    expect(knows.errors).toBeUndefined();
    expect((knows.data!['Person'] as { KNOWS: unknown[] }[]).map((p) => p.KNOWS.length)).toEqual([2, 2, 2]);
    expectListRefusal(await run(1, '{ Person(first: 3) { KNOWS { id } } }'), 'Person.KNOWS', 1);
    expect((await run(1, '{ Person(first: 3) { KNOWS(first: 2) { id } } }')).errors).toBeUndefined();
  });

  it('on a connection without first or last; with either, the page is never cut', async () => {
    expect(((await run(30, '{ PersonConnection { edges { cursor } } }')).data!['PersonConnection'] as { edges: unknown[] }).edges.length).toBe(30);
    expectListRefusal(await run(29, '{ PersonConnection { edges { cursor } } }'), 'PersonConnection', 29);
    const paged = await run(1, '{ PersonConnection(last: 30) { edges { cursor } pageInfo { hasNextPage hasPreviousPage } } }');
    expect((paged.data!['PersonConnection'] as { edges: unknown[] }).edges.length).toBe(30);
  });

  it('keeps the tour: every unpaged list of the demo graph fits the default', async () => {
    const body = await graphql(pipelineFor(engine), '{ Person { id KNOWS { id } employers: WORKS_AT { id } } Organization { name WORKS_AT_in { id } } Topic { id } }');
    expect(body.errors).toBeUndefined();
    expect((body.data!['Person'] as unknown[]).length).toBe(30);
  });
});
