import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { counting, graphql, graphqlOptions, pipelineFor, referenceEngine } from './support.ts';

let engine: GraphEngine;
beforeAll(async () => {
  engine = await referenceEngine();
});
afterAll(async () => {
  await engine.close();
});

interface PriceCase {
  readonly name: string;
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  /** Settings besides the cost limit. */
  readonly env?: Record<string, string>;
  /** The cost as priced: armor's weights (object 2, scalar 1, ×1.5 per level) times each list's page. */
  readonly cost: number;
}

const PERSON_ID = 2 + 1.5 * 1;

const CASES: PriceCase[] = [
  { name: 'a literal first, as graphql-armor prices it', query: '{ Person(first: 10) { id } }', cost: 10 * PERSON_ID },
  { name: 'first: $n, by its value', query: 'query ($n: Int) { Person(first: $n) { id } }', variables: { n: 10 }, cost: 10 * PERSON_ID },
  { name: 'the smaller of first and limit', query: 'query ($n: Int) { Person(first: 10, limit: $n) { id } }', variables: { n: 2 }, cost: 2 * PERSON_ID },
  { name: 'a root list without a page, at the list limit', query: '{ Topic { id } }', env: { TOOLGRAPH_GRAPHQL_LIST_LIMIT: '40' }, cost: 40 * PERSON_ID },
  { name: 'a root list filtered by id, at one', query: '{ Person(id: "person-001") { id } }', cost: PERSON_ID },
  { name: 'a root list filtered by an id variable, at one', query: 'query ($id: ID) { Person(id: $id) { id } }', variables: { id: 'person-001' }, cost: PERSON_ID },
  { name: 'an edge field without first, at the default page (5)', query: '{ Person(first: 1) { KNOWS { id } } }', cost: 2 + 1.5 * 5 * PERSON_ID },
  { name: 'an edge field without first, at TOOLGRAPH_GRAPHQL_DEFAULT_PAGE', query: '{ Person(first: 1) { KNOWS { id } } }', env: { TOOLGRAPH_GRAPHQL_DEFAULT_PAGE: '3' }, cost: 2 + 1.5 * 3 * PERSON_ID },
  { name: 'an edge field with limit: $n', query: 'query ($n: Int) { Person(first: 2) { KNOWS(limit: $n) { id } } }', variables: { n: 1 }, cost: 2 * (2 + 1.5 * PERSON_ID) },
  { name: 'a connection page', query: '{ PersonConnection(first: 3) { edges { node { id } } } }', cost: 3 * (2 + 1.5 * (2 + 1.5 * PERSON_ID)) },
  { name: 'a connection without first or last, at the list limit', query: '{ PersonConnection { edges { cursor } } }', env: { TOOLGRAPH_GRAPHQL_LIST_LIMIT: '50' }, cost: 50 * (2 + 1.5 * (2 + 1.5 * 1)) },
  { name: 'a connection with first and last, at the smaller', query: '{ PersonConnection(first: 5, last: 2) { edges { cursor } } }', cost: 2 * (2 + 1.5 * (2 + 1.5 * 1)) },
  {
    name: '_entities, per representation',
    query: 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Person { id } } }',
    variables: { r: [{ __typename: 'Person', id: 'person-001' }, { __typename: 'Person', id: 'person-002' }, { __typename: 'Topic', id: 'x' }] },
    cost: 3 * PERSON_ID,
  },
  { name: 'a fragment where each spread stands', query: '{ a: Person(first: 2) { ...F } b: Person(first: 3) { ...F } } fragment F on Person { id KNOWS(first: 2) { id } }', cost: 5 * (2 + 1.5 * (1 + 2 * PERSON_ID)) },
  { name: 'fields under @skip, as if included', query: '{ Person(first: 1) { id @skip(if: true) KNOWS @skip(if: true) { id } } }', cost: 2 + 1.5 * (1 + 5 * PERSON_ID) },
];

describe('cost analysis after variable coercion: at its cost passes, one under it is refused before anything is read', () => {
  it.each(CASES)('$name', async ({ query, variables, env = {}, cost }) => {
    const found = Math.ceil(cost);
    const { engine: counted, calls } = counting(engine);
    const at = await graphql(pipelineFor(counted, graphqlOptions({ ...env, TOOLGRAPH_GRAPHQL_MAX_COST: String(found) })), query, variables);
    expect(at.errors, query).toBeUndefined();
    expect(at.data).toBeDefined();
    calls['scan'] = 0;
    calls['node'] = 0;
    const refused = await graphql(pipelineFor(counted, graphqlOptions({ ...env, TOOLGRAPH_GRAPHQL_MAX_COST: String(found - 1) })), query, variables);
    expect(refused.data).toBeUndefined();
    expect(refused.extensions).toBeUndefined();
    expect(calls['scan'] + calls['node']).toBe(0);
    expect(refused.errors).toHaveLength(1);
    expect(refused.errors![0]!.extensions).toEqual({ code: 'TG_QUERY_TOO_COMPLEX', details: { limit: 'cost', max: found - 1, found } });
    expect(refused.errors![0]!.message).toContain(`The operation costs ${found}; the cost limit is ${found - 1} (TOOLGRAPH_GRAPHQL_MAX_COST).`);
  });

  it('prices a large first: $n by its value under the default limit, each request by its own variables', async () => {
    const pipeline = pipelineFor(engine);
    const query = 'query ($n: Int) { Person(first: $n) { id } }';
    const big = await graphql(pipeline, query, { n: 10_000_000 });
    expect(big.errors![0]!.extensions).toEqual({ code: 'TG_QUERY_TOO_COMPLEX', details: { limit: 'cost', max: 10_000_000, found: 35_000_000 } });
    // The same prepared document with a small page runs: a price read from variables is never kept.
    expect((await graphql(pipeline, query, { n: 1 })).data).toEqual({ Person: [{ id: 'person-001' }] });
    expect((await graphql(pipeline, query, { n: 10_000_000 })).errors![0]!.extensions?.code).toBe('TG_QUERY_TOO_COMPLEX');
  });

  it('caps _entities representations before anything is read (TOOLGRAPH_GRAPHQL_MAX_REPRESENTATIONS)', async () => {
    const { engine: counted, calls } = counting(engine);
    const pipeline = pipelineFor(counted, graphqlOptions({ TOOLGRAPH_GRAPHQL_MAX_REPRESENTATIONS: '3' }));
    const query = 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Person { id } } }';
    const rep = { __typename: 'Person', id: 'person-001' };
    expect((await graphql(pipeline, query, { r: [rep, rep, rep] })).data).toEqual({ _entities: [{ id: 'person-001' }, { id: 'person-001' }, { id: 'person-001' }] });
    calls['node'] = 0;
    const refused = await graphql(pipeline, query, { r: [rep, rep, rep, rep] });
    expect(refused.data).toBeUndefined();
    expect(calls['node']).toBe(0);
    expect(refused.errors).toEqual([expect.objectContaining({
      message: 'The operation sends _entities representations: 4; the representations limit is 3 (TOOLGRAPH_GRAPHQL_MAX_REPRESENTATIONS). Nothing was executed.',
      extensions: { code: 'TG_QUERY_TOO_COMPLEX', details: { limit: 'representations', max: 3, found: 4 } },
    })]);
    // Counted as sent, before the variables are coerced (which would refuse the null first).
    const uncoerced = await graphql(pipeline, query, { r: [rep, rep, rep, null] });
    expect(uncoerced.errors!.map((e) => e.extensions?.details)).toEqual([{ limit: 'representations', max: 3, found: 4 }]);
    // A literal list counts the same.
    const literal = await graphql(pipeline, `{ _entities(representations: [${Array(4).fill('{__typename: "Person", id: "person-001"}').join(', ')}]) { ... on Person { id } } }`);
    expect(literal.errors![0]!.extensions?.details).toEqual({ limit: 'representations', max: 3, found: 4 });
  });

  it('prices the objects a mutation returns, before it commits', async () => {
    const before = engine.view('demo').version;
    const refused = await graphql(pipelineFor(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_MAX_COST: '20' })),
      'mutation { createNode(label: "Topic", id: "priced-topic", props: {name: "p"}) { id ... on Topic { ABOUT_in { id } } } }');
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'TG_QUERY_TOO_COMPLEX', details: { limit: 'cost', max: 20 } });
    expect(engine.view('demo').version).toBe(before);
    expect(engine.view('demo').node('priced-topic')).toBeUndefined();
  });
});
