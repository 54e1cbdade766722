import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import type { GraphqlPipeline } from '../../../src/graph/graphql/index.ts';
import { graphql, pipelineFor, referenceEngine } from './support.ts';
import { openAccess } from '../../support/open-access.ts';

let engine: GraphEngine;
let pipeline: GraphqlPipeline;
const version = () => engine.view('demo').version;

beforeEach(async () => {
  engine = await referenceEngine();
  pipeline = pipelineFor(engine);
});
afterEach(async () => {
  await engine.close();
});

describe('mutations', () => {
  it('runs every field of an operation as one batch with one version bump, returning objects through the query executor', async () => {
    const before = version();
    const body = await graphql(pipeline, `mutation {
      t: createNode(label: "Topic", id: "topic-new", props: {name: "New", weight: 0.5}) { __typename id ... on Topic { name weight } }
      u: updateNode(id: "person-001", set: {age: 34}, unset: ["email"]) { id ... on Person { age email KNOWS(first: 1) { id } } }
      e: addEdge(src: "person-001", tgt: "topic-new", type: "LIKES") { ok __typename }
      d: deleteNode(id: "person-030") { ok id }
      __typename
    }`);
    expect(body.errors).toBeUndefined();
    expect(body.extensions?.version).toBe(before + 1);
    expect(version()).toBe(before + 1);
    const firstKnown = engine.view('demo').expandEach(['person-001'], 'KNOWS', 'out')[0]!.slice(0, 1).map((n) => ({ id: n.id }));
    expect(body.data).toEqual({
      t: { __typename: 'Topic', id: 'topic-new', name: 'New', weight: 0.5 },
      u: { id: 'person-001', age: 34, email: null, KNOWS: firstKnown },
      e: { ok: true, __typename: 'EdgeResult' },
      d: { ok: true, id: 'person-030' },
      __typename: 'Mutation',
    });
    // The next request reads the new state.
    const read = await graphql(pipeline, '{ Person(id: "person-001") { age LIKES { id } } }');
    expect(read.errors?.[0]?.message ?? '').toBe('');
    expect(read.data).toEqual({ Person: [{ age: 34, LIKES: [{ id: 'topic-new' }] }] });
  });

  it('applies nothing when a later field fails, and names that field', async () => {
    const before = version();
    const body = await graphql(pipeline, `mutation {
      ok: createNode(label: "Topic", id: "topic-x", props: {name: "X"}) { id }
      bad: removeEdge(src: "person-001", tgt: "person-002", type: "NEVER") { ok }
    }`);
    expect(body.data).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]).toMatchObject({ path: ['bad'], extensions: { code: 'TG_EDGE_NOT_FOUND' } });
    expect(body.errors![0]!.message).toMatch(/^bad: no NEVER edge from "person-001" to "person-002"/);
    expect(version()).toBe(before);
    expect(engine.view('demo').node('topic-x')).toBeUndefined();
  });

  it('commits only at the expected version: a stale one is TG_VERSION_CONFLICT with nothing applied', async () => {
    const at = version();
    const ok = await graphql(pipeline, 'mutation($v: Int) { updateNode(id: "person-002", set: {age: 31}, expectedVersion: $v) { id } }', { v: at });
    expect(ok.errors).toBeUndefined();
    expect(version()).toBe(at + 1);
    const stale = await graphql(pipeline, `mutation { a: updateNode(id: "person-002", set: {age: 99}) { id } b: addEdge(src: "person-002", tgt: "person-003", type: "KNOWS", expectedVersion: ${at}) { ok } }`);
    expect(stale.data).toBeNull();
    expect(stale.errors![0]!.extensions).toEqual({ code: 'TG_VERSION_CONFLICT', details: { expectedVersion: at, currentVersion: at + 1 } });
    expect(engine.view('demo').node('person-002')!.props['age']).toBe(31);
    expect(version()).toBe(at + 1);
    const differ = await graphql(pipeline, `mutation { a: deleteNode(id: "person-003", expectedVersion: ${at + 1}) { ok } b: deleteNode(id: "person-004", expectedVersion: ${at}) { ok } }`);
    expect(differ.errors![0]).toMatchObject({ path: ['b'], extensions: { code: 'TG_BAD_REQUEST' } });
    expect(differ.errors![0]!.message).toContain('one operation is one batch with one expected version');
    expect(version()).toBe(at + 1);
  });

  it('refuses a field that would return a node a later field deletes, before anything is written', async () => {
    const before = version();
    const body = await graphql(pipeline, 'mutation { u: updateNode(id: "person-005", set: {age: 1}) { id } d: deleteNode(id: "person-005") { ok } }');
    expect(body.errors![0]).toMatchObject({ path: ['u'], extensions: { code: 'TG_BAD_REQUEST' } });
    expect(version()).toBe(before);
  });

  it('reports refused values with the engine\'s code', async () => {
    const body = await graphql(pipeline, 'mutation { createNode(label: "Person", props: {age: "old"}) { id } }');
    expect(body.data).toBeNull();
    expect(body.errors![0]!.extensions?.code).toBe('TG_VALUE_INVALID');
    expect(body.errors![0]!.message).toMatch(/^createNode: props.age: property "age" of label Person is Int/);
  });

  it('makes no batch when every field is skipped', async () => {
    const before = version();
    const body = await graphql(pipeline, 'mutation($no: Boolean = true) { createNode(label: "Topic", props: {}) @skip(if: $no) { id } __typename }');
    expect(body.data).toEqual({ __typename: 'Mutation' });
    expect(version()).toBe(before);
  });

  it('serves a label created by a mutation at once: the schema is rebuilt for the new catalogue', async () => {
    const created = await graphql(pipeline, 'mutation { createNode(label: "Spaceship", id: "ship-1", props: {name: "Heart of Gold"}) { __typename id } }');
    expect(created.data).toEqual({ createNode: { __typename: 'Spaceship', id: 'ship-1' } });
    const read = await graphql(pipeline, '{ Spaceship { id name } SpaceshipConnection(first: 1) { edges { node { name } } } }');
    expect(read.data).toEqual({ Spaceship: [{ id: 'ship-1', name: 'Heart of Gold' }], SpaceshipConnection: { edges: [{ node: { name: 'Heart of Gold' } }] } });
  });
});

describe('scopes', () => {
  const reader = { subject: 'r', scopes: ['kg:read'] };
  const graphqlOnly = { subject: 'g', scopes: ['query:graphql'] };
  const writer = { subject: 'w', scopes: ['kg:write'] };
  const cypherOnly = { subject: 'c', scopes: ['query:cypher'] };
  beforeEach(async () => {
    await openAccess(engine, 'demo');
  });

  it('lets read scopes read and only write scopes write', async () => {
    for (const principal of [reader, graphqlOnly, writer]) {
      const body = await graphql(pipeline, '{ Topic(first: 1) { id } }', undefined, principal);
      expect(body.errors, principal.subject).toBeUndefined();
    }
    const before = version();
    for (const principal of [reader, graphqlOnly]) {
      const body = await graphql(pipeline, 'mutation { deleteNode(id: "person-001") { ok } }', undefined, principal);
      expect(body.data, principal.subject).toBeUndefined();
      expect(body.errors![0]!.extensions?.code).toBe('TG_INSUFFICIENT_SCOPE');
      expect(body.errors![0]!.message).toContain('A GraphQL mutation needs one of the scopes kg:write, kg:admin, *');
    }
    expect(version()).toBe(before);
    const written = await graphql(pipeline, 'mutation { deleteNode(id: "person-001") { ok } }', undefined, writer);
    expect(written.data).toEqual({ deleteNode: { ok: true } });
  });

  it('refuses a principal without any GraphQL scope before reading anything', async () => {
    await expect(pipeline.run({ graph: 'demo', principal: cypherOnly, method: 'POST', params: { query: '{ __typename }' } }))
      .rejects.toMatchObject({ code: 'TG_INSUFFICIENT_SCOPE' });
  });
});
