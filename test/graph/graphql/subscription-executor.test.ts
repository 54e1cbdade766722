import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierPrincipal } from '../../../src/graph/carrier/index.ts';
import type { GraphEngine, GraphView } from '../../../src/graph/engine/index.ts';
import { createSubscriptionExecutor } from '../../../src/graph/graphql/index.ts';
import { replaceNamespace } from '../../../src/graph/schema/index.ts';
import { graphql, pipelineFor, referenceEngine } from './support.ts';

const ADA: CarrierPrincipal = { subject: 'ada', scopes: ['kg:read'], groups: [] };

let engine: GraphEngine;
beforeAll(async () => {
  engine = await referenceEngine();
});
afterAll(async () => {
  await engine.close();
});

function request(query: string, variables: Record<string, unknown> | null = null) {
  return { query, document: parse(query), variables };
}

const same = (view: GraphView) => view;
/** TOOLGRAPH_GRAPHQL_LIST_LIMIT's default. */
const LIST_LIMIT = 1000;

describe('the GraphQL surface as the carrier\'s subscription executor', () => {
  it('answers a Subscription root field exactly as the Query field of the same name', async () => {
    const executor = createSubscriptionExecutor({ restrict: same, listLimit: LIST_LIMIT });
    const selection = `P: Person(first: 3) { __typename id name ...P WORKS_AT { name } }`;
    const fragment = 'fragment P on Person { email }';
    const view = engine.view('demo');
    const prepared = executor.prepare(view.catalogue, request(`subscription { ${selection} } ${fragment}`));
    const frame = (await executor.run(view, prepared, ADA)).result;
    const queried = await graphql(pipelineFor(engine), `query { ${selection} } ${fragment}`);
    expect(queried.errors).toBeUndefined();
    expect(JSON.stringify(frame)).toBe(JSON.stringify({ data: queried.data }));
    expect((frame.data as { P: unknown[] }).P).toHaveLength(3);
  });

  it('serves a namespaced graph\'s Subscription fields (crm_Person) as its Query fields, and refuses the plain names', async () => {
    const namespaced = await referenceEngine();
    try {
      await replaceNamespace(namespaced, 'demo', 'crm');
      const executor = createSubscriptionExecutor({ restrict: same, listLimit: LIST_LIMIT });
      const view = namespaced.view('demo');
      const selection = 'crm_Person(first: 2) { __typename name AUTHORED(first: 1) { __typename ... on Crm_Document { title } } }';
      const frame = (await executor.run(view, executor.prepare(view.catalogue, request(`subscription { ${selection} }`)), ADA)).result;
      const queried = await graphql(pipelineFor(namespaced), `query { ${selection} }`);
      expect(queried.errors).toBeUndefined();
      expect(JSON.stringify(frame)).toBe(JSON.stringify({ data: queried.data }));
      expect((frame.data as { crm_Person: { __typename: string }[] }).crm_Person[0]!.__typename).toBe('Crm_Person');
      expect(() => executor.prepare(view.catalogue, request('subscription { Person(first: 1) { id } }')))
        .toThrow(expect.objectContaining({ code: 'TG_GRAPHQL_NO_NODE_TYPE' }));
    } finally {
      await namespaced.close();
    }
  });

  it('coerces variables once and validates like graphql-js (one root field per subscription)', async () => {
    const executor = createSubscriptionExecutor({ restrict: same, listLimit: LIST_LIMIT });
    const view = engine.view('demo');
    const prepared = executor.prepare(view.catalogue, request('subscription S($n: Int!) { Person(first: $n) { id } }', { n: 2 }));
    const frame = (await executor.run(view, prepared, ADA)).result as { data: { Person: unknown[] } };
    expect(frame.data.Person).toHaveLength(2);
    expect(() => executor.prepare(view.catalogue, request('subscription { Person(first: 1) { id } Topic(first: 1) { id } }')))
      .toThrow(expect.objectContaining({ code: 'TG_GRAPHQL_INVALID', message: expect.stringContaining('must select only one top level field') }));
    expect(() => executor.prepare(view.catalogue, request('subscription S($n: Int!) { Person(first: $n) { id } }', { n: 'two' })))
      .toThrow(expect.objectContaining({ code: 'TG_GRAPHQL_INVALID', message: expect.stringContaining('Int cannot represent non-integer value: "two"') }));
  });

  it('reads every row through the view the access module restricts it to', async () => {
    const other = await referenceEngine();
    try {
      await other.createGraph('small');
      await other.commit({ graph: 'small', mutations: [{ op: 'createNode', label: 'Person', id: 'p-only', props: { name: 'Only' } }] });
      const seen: string[] = [];
      const executor = createSubscriptionExecutor({
        listLimit: LIST_LIMIT,
        restrict: (view, principal) => {
          seen.push(`${principal.subject}@${view.name}`);
          return other.view('small');
        },
      });
      const view = engine.view('demo');
      const prepared = executor.prepare(view.catalogue, request('subscription { Person(first: 5) { id name } }'));
      expect((await executor.run(view, prepared, ADA)).result).toEqual({ data: { Person: [{ id: 'p-only', name: 'Only' }] } });
      expect(seen).toEqual(['ada@demo']);
    } finally {
      await other.close();
    }
  });

  it('refuses queries, mutations, several operations and roots that are not labels, before any row is read', () => {
    const executor = createSubscriptionExecutor({ restrict: () => { throw new Error('must not read'); }, listLimit: LIST_LIMIT });
    const catalogue = engine.view('demo').catalogue;
    expect(() => executor.prepare(catalogue, request('{ Person(first: 1) { id } }')))
      .toThrow(expect.objectContaining({ code: 'TG_GRAPHQL_INVALID', message: expect.stringContaining('subscription operations only; this is a query') }));
    expect(() => executor.prepare(catalogue, request('subscription A { Person(first: 1) { id } } subscription B { Topic(first: 1) { id } }')))
      .toThrow(expect.objectContaining({ code: 'TG_GRAPHQL_INVALID', message: expect.stringContaining('exactly one operation; this one holds 2') }));
    expect(() => executor.prepare(catalogue, request('subscription { Nobody(first: 1) { id } }')))
      .toThrow(expect.objectContaining({ code: 'TG_GRAPHQL_NO_NODE_TYPE', message: expect.stringMatching(/^GraphQL: no node type .*Subscription root fields must be node labels\.$/) }));
    expect(() => executor.prepare(catalogue, request('subscription { Person(first: 1) { nope } }')))
      .toThrow(expect.objectContaining({ code: 'TG_GRAPHQL_INVALID', message: expect.stringContaining('Cannot query field "nope" on type "Person"') }));
  });
});
