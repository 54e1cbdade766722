import { beforeAll, describe, expect, it } from 'vitest';
import type { ToolgraphError } from '../../../src/errors/index.ts';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { runCypher } from '../../../src/graph/cypher/index.ts';
import { buildGraphSchema, dataFromCypher, translateToCypher, type GraphSchema } from '../../../src/graph/graphql/index.ts';
import { cypherLiteral, cypherName } from '../../../src/graph/graphql/cypher-text.ts';
import { replaceNamespace } from '../../../src/graph/schema/index.ts';
import { graphql, pipelineFor, referenceEngine } from './support.ts';
import { failure } from '../../support/toolgraph-failure.ts';

let engine: GraphEngine;
let schema: GraphSchema;
beforeAll(async () => {
  engine = await referenceEngine();
  schema = buildGraphSchema(engine.view('demo').catalogue);
});

function refusal(query: string, variables?: Record<string, unknown>): ToolgraphError {
  return failure(() => translateToCypher(schema, query, { variables }));
}

describe('translateToCypher', () => {
  it('turns a root field into MATCH … RETURN a map projection, edges into sliced pattern comprehensions', () => {
    const t = translateToCypher(schema, `query People($n: String) {
      people: Person(first: 2, name: $n, email: null) { id who: name ...Work }
    } fragment Work on Person { WORKS_AT(first: 1) { __typename name } }`, { variables: { n: 'Ada Lovelace' } });
    expect(t.operation).toBe('People');
    expect(t.roots).toEqual([{
      key: 'people', field: 'Person', list: true,
      cypher: [
        "MATCH (person:Person {name: 'Ada Lovelace'})",
        'WHERE person.email IS NULL',
        "RETURN person {.id, who: person.name, WORKS_AT: [(person)-[:WORKS_AT]->(organization:Organization) | organization {__typename: 'Organization', .name}][..1]} AS people",
        'ORDER BY person.id',
        'LIMIT 2',
      ].join('\n'),
    }]);
    expect(t.plan).toEqual([
      { kind: 'scan', path: 'people', level: 0, label: 'Person', filters: [{ property: 'email', value: null }, { property: 'name', value: 'Ada Lovelace' }], limit: 2 },
      { kind: 'expand', path: 'people.WORKS_AT', level: 1, from: 'Person', edgeType: 'WORKS_AT', direction: 'out', to: ['Organization'], limitPerParent: 1 },
    ]);
  });

  it('gives union targets a CASE over the label when the members select differently, one projection when they agree', () => {
    const t = translateToCypher(schema, '{ Person(first: 1) { a: AUTHORED { ... on Document { title } ... on Repository { id } } b: AUTHORED { ... on Node { id } } } }');
    expect(t.roots[0]!.cypher).toContain("a: [(person)-[:AUTHORED]->(node) | CASE labels(node)[0] WHEN 'Document' THEN node {.title} WHEN 'Repository' THEN node {.id} END]");
    expect(t.roots[0]!.cypher).toContain('b: [(person)-[:AUTHORED]->(node) | node {.id}]');
  });

  it('translates a namespaced graph: prefixed root fields and type conditions, the label in MATCH, the type in __typename', async () => {
    const namespaced = await referenceEngine();
    try {
      await replaceNamespace(namespaced, 'demo', 'crm');
      const crm = buildGraphSchema(namespaced.view('demo').catalogue);
      const t = translateToCypher(crm, '{ crm_Person(first: 1) { __typename AUTHORED { __typename ... on Crm_Document { title } } } }');
      expect(t.roots).toEqual([{
        key: 'crm_Person', field: 'crm_Person', list: true,
        cypher: [
          'MATCH (person:Person)',
          "RETURN person {__typename: 'Crm_Person', AUTHORED: [(person)-[:AUTHORED]->(node) | CASE labels(node)[0] WHEN 'Document' THEN node {__typename: 'Crm_Document', .title} WHEN 'Repository' THEN node {__typename: 'Crm_Repository'} END]} AS crm_Person",
          'ORDER BY person.id',
          'LIMIT 1',
        ].join('\n'),
      }]);
      expect(() => translateToCypher(crm, '{ Person { id } }')).toThrow(/^GraphQL: no node type "Person" in this graph; root fields must be node labels prefixed by the graph's namespace, "crm_" \(crm_Document, /);
      expect(() => translateToCypher(crm, '{ crm_PersonConnection { pageInfo { hasNextPage } } }')).toThrow('crm_PersonConnection: connections (cursor pages) have no translation to the Cypher subset; ask crm_Person(first: …) instead.');
    } finally {
      await namespaced.close();
    }
  });

  it('names nested variables apart and follows incoming edges backwards', () => {
    const t = translateToCypher(schema, '{ Person(first: 1) { KNOWS { KNOWS_in { name } } } }');
    expect(t.roots[0]!.cypher).toContain('[(person)-[:KNOWS]->(person2:Person) | person2 {KNOWS_in: [(person2)<-[:KNOWS]-(person3:Person) | person3 {.name}]}]');
  });

  it('evaluates @skip/@include with the variables, and answers __typename of Query', () => {
    const t = translateToCypher(schema, 'query($x: Boolean!) { __typename Topic(first: 1) { id @include(if: $x) name @skip(if: true) } }', { variables: { x: false } });
    expect(t.roots.map((r) => r.cypher)).toEqual(["RETURN 'Query' AS __typename", 'MATCH (topic:Topic)\nRETURN topic {} AS Topic\nORDER BY topic.id\nLIMIT 1']);
  });

  it('gives the same data as the GraphQL endpoint on the reference graph', async () => {
    const query = '{ __typename p: Person(limit: 3) { name KNOWS(first: 2) { name AUTHORED { __typename ... on Document { title } } } } Organization { id WORKS_AT_in { id } } }';
    const body = await graphql(pipelineFor(engine), query);
    const t = translateToCypher(schema, query);
    const results = await Promise.all(t.roots.map((r) => runCypher(engine, 'demo', r.cypher)));
    expect(dataFromCypher(t, results)).toEqual(body.data);
  });

  it.each<[string, string, string, string]>([
    ['a mutation', 'mutation { deleteNode(id: "x") { ok } }', 'TG_BAD_REQUEST', 'Only queries translate to Cypher; this is a mutation.'],
    ['a connection', '{ PersonConnection(first: 1) { edges { cursor } } }', 'TG_BAD_REQUEST', 'PersonConnection: connections (cursor pages) have no translation'],
    ['_service', '{ _service { sdl } }', 'TG_BAD_REQUEST', '_service has no translation to the Cypher subset'],
    ['an unknown root field', '{ Nope { id } }', 'TG_GRAPHQL_NO_NODE_TYPE', 'GraphQL: no node type "Nope" in this graph; root fields must be node labels'],
    ['an unknown field', '{ Person { nope } }', 'TG_GRAPHQL_INVALID', 'Cannot query field "nope" on type "Person".'],
    ['a syntax error', '{ Person { ', 'TG_GRAPHQL_INVALID', 'Syntax Error'],
    ['a negative first', '{ Person(first: -1) { id } }', 'TG_BAD_REQUEST', 'Person: first must be a non-negative integer; got -1.'],
    ['a negative nested limit', '{ Person { KNOWS(limit: -2) { id } } }', 'TG_BAD_REQUEST', 'KNOWS: limit must be a non-negative integer; got -2.'],
  ])('refuses %s', (_name, query, code, fragment) => {
    const error = refusal(query);
    expect(error.code).toBe(code);
    expect(error.message).toContain(fragment);
  });

  it('refuses variables that do not coerce', () => {
    const error = refusal('query($n: Int) { Person(first: $n) { id } }', { n: 'x' });
    expect(error.code).toBe('TG_GRAPHQL_INVALID');
    expect(error.message).toContain('Int cannot represent');
  });
});

describe('cypherLiteral and cypherName', () => {
  it.each<unknown>(["it's", 'back\\slash', 'line\nbreak\ttab\u0001', '😀 é', '', 1.5e-21, 1e21, -42, 0, true, null, ['a', 1]])(
    'prints %j so that Cypher reads it back', async (value) => {
      const result = await runCypher(engine, 'demo', `RETURN ${cypherLiteral(value)} AS v`);
      expect(result.rows[0]![0]).toEqual(value);
    });

  it('refuses a lone surrogate', () => {
    expect(() => cypherLiteral('\ud800')).toThrow(/lone surrogate/);
  });

  it('quotes reserved words and odd names only', () => {
    expect([cypherName('person'), cypherName('match'), cypherName('End'), cypherName('a b'), cypherName('x`y')]).toEqual(['person', '`match`', '`End`', '`a b`', '`x``y`']);
  });
});
