import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceAccessPolicy } from '../../../src/graph/access/index.ts';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { encodeCursor } from '../../../src/graph/graphql/connection-page.ts';
import type { GraphqlPipeline } from '../../../src/graph/graphql/index.ts';
import type { Principal } from '../../../src/principal/index.ts';
import { openEngine } from '../engine/helpers.ts';
import { graphqlOptions, pipelineFor, startServer } from '../graphql/support.ts';
import { ADMIN, TEAM_POLICY, cypher, gql, seedTeams, withoutVersion } from './fixture.ts';

const alice: Principal = { subject: 'alice', scopes: ['kg:read', 'kg:write'], groups: ['red'] };
const bob: Principal = { subject: 'bob', scopes: ['kg:read', 'kg:write'], groups: ['blue'] };
const eve: Principal = { subject: 'eve', scopes: ['kg:read', 'kg:write'], groups: ['green'] };
/** What each principal must not see: other teams' documents, the team-less one, the rule-less topic. */
const HIDDEN: Record<string, readonly string[]> = { alice: ['d2', 'd4', 'd5', 't1'], bob: ['d1', 'd3', 'd5', 'd6', 't1'] };

const GRAPHQL: readonly [string, string, Record<string, unknown>?][] = [
  ['list with edge fields both ways', '{ Document { id title team AUTHORED_in { id } CITES { id } CITES_in { id } } }'],
  ['people and their edge fields', '{ Person { id name AUTHORED { id title } LIKES { id } } }'],
  ['a label without a row rule', '{ Topic { id name } }'],
  ['an id filter', '{ a: Document(id: "d2") { id } b: Document(id: "d1") { id } }'],
  ['a first page', '{ DocumentConnection(first: 2) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }'],
  ['a last page', '{ DocumentConnection(last: 1) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }'],
  ['pages around hidden cursors', 'query($a: String, $b: String) { x: DocumentConnection(first: 1, after: $a) { edges { cursor } pageInfo { hasNextPage hasPreviousPage } } y: DocumentConnection(last: 1, before: $b) { edges { cursor } pageInfo { hasNextPage hasPreviousPage } } z: DocumentConnection(first: 0, after: $a) { pageInfo { hasNextPage hasPreviousPage startCursor } } }',
    { a: encodeCursor('Document', 'd2'), b: encodeCursor('Document', 'd4') }],
  ['_entities', 'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Document { id } ... on Topic { id } ... on Person { id } } }',
    { r: ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'].map((id) => ({ __typename: 'Document', id })).concat([{ __typename: 'Topic', id: 't1' }, { __typename: 'Person', id: 'p1' }]) }],
];

const CYPHER: readonly string[] = [
  'MATCH (d:Document) RETURN count(d)',
  'MATCH (n) RETURN count(*)',
  'MATCH (t:Topic) RETURN count(t)',
  'MATCH (a)-[r]->(b) RETURN count(r)',
  'MATCH (p:Person)-[:AUTHORED]->(d) RETURN p.id, d.id',
  "MATCH (d:Document) WHERE d.id = 'd2' RETURN d",
  "MATCH (d:Document {team: 'blue'}) RETURN d.title",
  'MATCH (d:Document) RETURN d ORDER BY d.title DESC',
  'MATCH (p:Person) OPTIONAL MATCH (p)-[:AUTHORED]->(d) RETURN p.id, count(d)',
  'CALL db.labels()',
  'CALL db.propertyKeys()',
  'CALL db.relationshipTypes()',
  'MATCH (p:Person) CALL db.labels() YIELD label RETURN label, count(p)',
  'MATCH (p:Person) CALL { WITH p MATCH (p)-[:AUTHORED]->(d) RETURN count(d) AS n } RETURN p.id, n ORDER BY p.id',
  'CALL { MATCH (d:Document) RETURN d.id AS id UNION MATCH (t:Topic) RETURN t.id AS id } RETURN id ORDER BY id',
  'MATCH (p:Person) CALL { MATCH (d:Document) RETURN d.title AS title ORDER BY title LIMIT 2 } RETURN p.id, title ORDER BY p.id, title',
  'MATCH path = (a)-[*0..3]-(b) RETURN path ORDER BY path',
  'MATCH path = (:Person)-[:AUTHORED]->(d) RETURN nodes(path), relationships(path), length(path) ORDER BY d.id',
];

let engine: GraphEngine;
let pipeline: GraphqlPipeline;

beforeEach(async () => {
  engine = await openEngine();
  await seedTeams(engine, 'g');
  await replaceAccessPolicy(engine, 'g', TEAM_POLICY);
  pipeline = pipelineFor(engine);
});
afterEach(async () => {
  await engine.close();
});

/** The oracle: the same graph with every row hidden from `who` deleted, read by kg:admin. */
async function oracleFor(who: string): Promise<{ engine: GraphEngine; pipeline: GraphqlPipeline }> {
  const oracle = await openEngine();
  await seedTeams(oracle, 'g');
  await oracle.commit({ graph: 'g', mutations: HIDDEN[who]!.map((id) => ({ op: 'deleteNode' as const, id })) });
  return { engine: oracle, pipeline: pipelineFor(oracle) };
}

describe.each([['alice', alice], ['bob', bob]] as const)('%s reads exactly what a graph without the rows hidden from them shows', (who, principal) => {
  it.each(GRAPHQL)('GraphQL: %s', async (_name, query, variables) => {
    const oracle = await oracleFor(who);
    try {
      const seen = await gql(pipeline, 'g', principal, query, variables);
      expect(seen['errors']).toBeUndefined();
      expect(withoutVersion(seen)).toEqual(withoutVersion(await gql(oracle.pipeline, 'g', ADMIN, query, variables)));
      // And what the hidden rows would show is really there for an administrator.
      const all = JSON.stringify(await gql(pipeline, 'g', ADMIN, query, variables));
      expect(HIDDEN[who]!.some((id) => all.includes(`"${id}"`)) || all.includes('secret') || !query.includes('Topic')).toBe(true);
    } finally {
      await oracle.engine.close();
    }
  });

  it.each(CYPHER)('Cypher: %s', async (query) => {
    const oracle = await oracleFor(who);
    try {
      const seen = await cypher(engine, 'g', principal, query);
      expect(seen['error']).toBeUndefined();
      expect(withoutVersion(seen)).toEqual(withoutVersion(await cypher(oracle.engine, 'g', ADMIN, query)));
    } finally {
      await oracle.engine.close();
    }
  });
});

describe('what the hidden rows must never show through', () => {
  it('counts really differ between principals (the oracle comparison is not vacuous)', async () => {
    const count = async (p: Principal) => (await cypher(engine, 'g', p, 'MATCH (d:Document) RETURN count(d)'))['result'];
    expect(await count(ADMIN)).toMatchObject({ rows: [[6]] });
    expect(await count(alice)).toMatchObject({ rows: [[3]] });
    expect(await count(bob)).toMatchObject({ rows: [[2]] });
  });

  it('db.labels(), db.propertyKeys() and db.relationshipTypes() leave out a label whose every row is hidden', async () => {
    // Cypher reaches the procedures only through engineAs: they read the caller's filtered view.
    const list = async (p: Principal, procedure: string) => ((await cypher(engine, 'g', p, `CALL ${procedure}()`))['result'] as { rows: unknown[][] }).rows.flat();
    expect(await list(ADMIN, 'db.labels')).toEqual(['Document', 'Person', 'Topic']);
    expect(await list(alice, 'db.labels')).toEqual(['Document', 'Person']);
    expect(await list(ADMIN, 'db.relationshipTypes')).toEqual(['AUTHORED', 'CITES', 'LIKES']);
    expect(await list(alice, 'db.relationshipTypes')).toEqual(['AUTHORED', 'CITES']);
    await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 't1', set: { secretKey: 1 } }] });
    expect(await list(ADMIN, 'db.propertyKeys')).toContain('secretKey');
    expect(await list(alice, 'db.propertyKeys')).toEqual(['name', 'team', 'title']);
    expect(await cypher(engine, 'g', eve, 'CALL db.labels()')).toMatchObject({ error: { code: 'TG_GRAPH_NOT_FOUND' } });
  });

  it('a principal no read matcher grants meets the graph exactly as a graph that does not exist', async () => {
    const missing = await gql(pipeline, 'nope', eve, '{ Document { id } }');
    const denied = await gql(pipeline, 'g', eve, '{ Document { id } }');
    expect(denied).toEqual(JSON.parse(JSON.stringify(missing).replaceAll('nope', 'g')));
    expect(denied).toMatchObject({ refused: { code: 'TG_GRAPH_NOT_FOUND' } });
    const schema = await gql(pipeline, 'g', eve, '{ __schema { types { name } } }');
    expect(schema).toEqual(denied);
    const cypherMissing = await cypher(engine, 'nope', eve, 'MATCH (n) RETURN count(n)');
    const cypherDenied = await cypher(engine, 'g', eve, 'MATCH (n) RETURN count(n)');
    expect(cypherDenied).toEqual(JSON.parse(JSON.stringify(cypherMissing).replaceAll('nope', 'g')));
    expect(JSON.stringify(cypherDenied)).not.toMatch(/Document|count|\b6\b/);
  });

  it('GraphiQL (a browser\'s GET) is no way to learn that a hidden graph exists', async () => {
    const server = await startServer(engine, graphqlOptions(), eve);
    try {
      const get = async (graph: string) => {
        const res = await fetch(`${server.origin}/graphql/${graph}`, { headers: { accept: 'text/html' } });
        return { status: res.status, body: (await res.text()).replaceAll(`\\"${graph}\\"`, 'NAME') };
      };
      const denied = await get('g');
      expect(denied.status).toBe(404);
      expect(denied).toEqual(await get('nope'));
    } finally {
      await server.close();
    }
    const admin = await startServer(engine, graphqlOptions(), ADMIN);
    try {
      expect((await fetch(`${admin.origin}/graphql/g`, { headers: { accept: 'text/html' } })).status).toBe(200);
    } finally {
      await admin.close();
    }
  });

  it('a graph with no policy is hidden from everyone but kg:admin (default deny)', async () => {
    await engine.createGraph('bare');
    await engine.commit({ graph: 'bare', mutations: [{ op: 'createNode', id: 'x', label: 'Person', props: { name: 'X' } }] });
    expect(await gql(pipeline, 'bare', alice, '{ Person { id } }')).toMatchObject({ refused: { code: 'TG_GRAPH_NOT_FOUND' } });
    expect(await cypher(engine, 'bare', { subject: 'r', scopes: ['kg:read'] }, 'MATCH (n) RETURN count(n)')).toMatchObject({ error: { code: 'TG_GRAPH_NOT_FOUND' } });
    expect(await gql(pipeline, 'bare', ADMIN, '{ Person { id } }')).toMatchObject({ data: { Person: [{ id: 'x' }] } });
    expect(await gql(pipeline, 'bare', { subject: 'local', scopes: ['*'] }, '{ Person { id } }')).toMatchObject({ data: { Person: [{ id: 'x' }] } });
  });

  it('updating, deleting or linking a hidden row fails exactly like a missing one, and writes nothing', async () => {
    const version = engine.view('g').version;
    for (const [hidden, missing] of [['d2', 'zz'], ['d5', 'zz'], ['t1', 'zz']] as const) {
      for (const template of [
        'mutation { updateNode(id: "ID", set: {title: "x"}) { id } }',
        'mutation { deleteNode(id: "ID") { ok } }',
        'mutation { addEdge(src: "p1", tgt: "ID", type: "AUTHORED") { ok } }',
        'mutation { removeEdge(src: "p1", tgt: "ID", type: "AUTHORED") { ok } }',
      ]) {
        const onHidden = await gql(pipeline, 'g', alice, template.replace('ID', hidden));
        const onMissing = await gql(pipeline, 'g', alice, template.replace('ID', missing));
        expect(onHidden['errors'], template).toBeDefined();
        expect(JSON.stringify(onHidden).replaceAll(hidden, 'ID'), template).toBe(JSON.stringify(onMissing).replaceAll(missing, 'ID'));
      }
      const viaCypher = await cypher(engine, 'g', alice, `MATCH (d {id: '${hidden}'}) DETACH DELETE d RETURN count(d)`);
      expect(viaCypher).toMatchObject({ result: { rows: [[0]] } });
    }
    expect(engine.view('g').version).toBe(version);
    expect(engine.view('g').node('d2')).toMatchObject({ props: { title: 'blue one' } });
  });

  it('writes need a write grant: bob reads but may not write; alice writes only what she sees', async () => {
    const refused = await gql(pipeline, 'g', bob, 'mutation { createNode(label: "Document", id: "d9", props: {team: "blue"}) { id } }');
    expect(refused).toMatchObject({ data: null, errors: [{ extensions: { code: 'TG_ACCESS_DENIED' } }] });
    expect(await cypher(engine, 'g', bob, "CREATE (d:Document {team: 'blue'}) RETURN d")).toMatchObject({ error: { code: 'TG_ACCESS_DENIED' } });
    expect(await cypher(engine, 'g', bob, "UNWIND [1] AS i CALL { CREATE (d:Document {team: 'blue'}) RETURN d } RETURN d")).toMatchObject({ error: { code: 'TG_ACCESS_DENIED' } });
    expect(engine.view('g').node('d9')).toBeUndefined();
    // A subquery writes only what its caller sees: alice's rows are her three documents.
    const viaCall = await cypher(engine, 'g', alice, 'MATCH (d:Document) CALL { WITH d SET d.called = true } RETURN count(d)');
    expect(viaCall).toMatchObject({ result: { rows: [[3]] } });
    const called = (await cypher(engine, 'g', ADMIN, 'MATCH (d:Document) WHERE d.called = true RETURN d.id'))['result'] as { rows: unknown[] };
    expect(called.rows).toEqual([['d1'], ['d3'], ['d6']]);
    const touched = await cypher(engine, 'g', alice, 'MATCH (d:Document) SET d.seen = true RETURN count(d)');
    expect(touched).toMatchObject({ result: { rows: [[3]] } });
    const seen = (await cypher(engine, 'g', ADMIN, 'MATCH (d:Document) WHERE d.seen = true RETURN d.id'))['result'] as { rows: unknown[] };
    expect(seen.rows).toEqual([['d1'], ['d3'], ['d6']]);
    const ok = await gql(pipeline, 'g', alice, 'mutation { updateNode(id: "d1", set: {title: "edited"}) { id ... on Document { title } } }');
    expect(ok).toMatchObject({ data: { updateNode: { id: 'd1', title: 'edited' } } });
  });

  it('a row a write moves out of sight is not returned to its writer', async () => {
    const moved = await gql(pipeline, 'g', alice, 'mutation { updateNode(id: "d1", set: {team: "blue"}) { id } }');
    expect(moved['data']).toBeNull();
    expect(JSON.stringify(moved)).not.toContain('red one');
    expect(engine.view('g').node('d1')).toMatchObject({ props: { team: 'blue' } });
    expect(await gql(pipeline, 'g', alice, '{ Document(id: "d1") { id } }')).toMatchObject({ data: { Document: [] } });
  });

  it('a policy change applies to the next request (compiled per version)', async () => {
    expect(await gql(pipeline, 'g', alice, '{ Document { id } }')).toMatchObject({ data: { Document: [{ id: 'd1' }, { id: 'd3' }, { id: 'd6' }] } });
    await replaceAccessPolicy(engine, 'g', { ...TEAM_POLICY, rows: { '*': true } });
    expect(((await gql(pipeline, 'g', alice, '{ Document { id } Topic { id } }'))['data'] as { Document: unknown[]; Topic: unknown[] })).toEqual({
      Document: ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'].map((id) => ({ id })), Topic: [{ id: 't1' }],
    });
    await replaceAccessPolicy(engine, 'g', { ...TEAM_POLICY, read: [] });
    expect(await gql(pipeline, 'g', alice, '{ Document { id } }')).toMatchObject({ refused: { code: 'TG_GRAPH_NOT_FOUND' } });
  });
});
