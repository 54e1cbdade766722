import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { parse } from 'graphql';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { composeServices } from '@apollo/composition';
import { HEADER, introspect, loadFixtureEngine } from '../../../scripts/introspect.ts';
import { sdlFromCatalogue } from '../../../src/graph/schema/index.ts';

const OTHER_SUBGRAPH = `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable", "@external"])

type Query {
  ticket(id: ID!): Ticket
}

type Ticket @key(fields: "id") {
  id: ID!
  title: String!
  assignee: Person
}

type Person @key(fields: "id") {
  id: ID!
  openTickets: [Ticket!]!
}

type PageInfo @shareable {
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
  endCursor: String
}
`;

describe('introspection of the reference graph', () => {
  it('loads every fixture line', async () => {
    const engine = await loadFixtureEngine();
    const view = engine.view('reference');
    expect(view.labels()).toEqual(['Document', 'Organization', 'Person', 'Project', 'Repository', 'Topic']);
    expect(view.nodeCount).toBeGreaterThanOrEqual(50);
    expect(view.nodeCount).toBeLessThanOrEqual(150);
    const authored = view.catalogue.edgeTypes.find((e) => e.type === 'AUTHORED');
    expect(authored?.pairs).toEqual([{ src: 'Person', tgt: 'Document' }, { src: 'Person', tgt: 'Repository' }]);
    const kinds = new Set(view.catalogue.labels.flatMap((l) => Object.values(l.properties)));
    for (const t of ['String', 'Int', 'Float', 'Boolean', '[String]'] as const) expect(kinds).toContain(t);
    await engine.close();
  });

  it('matches the committed specs/graph.graphql byte for byte, and is deterministic', async () => {
    const first = await introspect();
    const second = await introspect();
    expect(second).toBe(first);
    expect(first.startsWith(HEADER)).toBe(true);
    expect(await readFile(new URL('../../../specs/graph.graphql', import.meta.url), 'utf8')).toBe(first);
  });

  it('has the federation header, keys, unions, connections and the mutation signatures', async () => {
    const sdl = await introspect();
    expect(sdl).toContain('extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable", "@external"])');
    expect(sdl).toContain('type Person implements Node @key(fields: "id") {\n  id: ID!\n  active: Boolean\n  age: Int');
    expect(sdl).toContain('  languages: [String!]\n');
    expect(sdl).toContain('  AUTHORED(first: Int, limit: Int): [AuthoredTarget!]!');
    expect(sdl).toContain('union AuthoredTarget = Document | Repository');
    expect(sdl).toContain('  AUTHORED_in(first: Int, limit: Int): [Person!]!');
    expect(sdl).toContain('  Person(first: Int, limit: Int, id: ID, active: Boolean, age: Int, email: String, name: String, rating: Float): [Person!]!');
    expect(sdl).toContain('  PersonConnection(first: Int, last: Int, after: String, before: String, cursor: String, id: ID,');
    expect(sdl).toContain('type PageInfo @shareable {');
    expect(sdl).toContain('  addEdge(src: ID!, tgt: ID!, type: String!, expectedVersion: Int): EdgeResult!');
    expect(sdl).toContain('  createNode(label: String!, props: JSON!, id: ID, expectedVersion: Int): Node!');
    expect(sdl).toContain('type EdgeResult @shareable {\n  ok: Boolean!\n}');
  });

  it('builds with buildSubgraphSchema and serves _service and _entities', async () => {
    const schema = buildSubgraphSchema({ typeDefs: parse(await introspect()) });
    const query = schema.getQueryType()!.getFields();
    expect(Object.keys(query)).toEqual(expect.arrayContaining(['Person', 'PersonConnection', '_service', '_entities']));
    expect(schema.getType('_Entity')).toBeDefined();
  });

  it('composes with a second subgraph without errors', async () => {
    const result = composeServices([
      { name: 'graph', url: 'http://127.0.0.1:1/graphql', typeDefs: parse(await introspect()) },
      { name: 'tickets', url: 'http://127.0.0.1:2/graphql', typeDefs: parse(OTHER_SUBGRAPH) },
    ]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.supergraphSdl).toContain('type Ticket');
  });

  it('builds for an empty catalogue too', () => {
    const sdl = sdlFromCatalogue({ epoch: 'e', labels: [], edgeTypes: [] });
    expect(() => buildSubgraphSchema({ typeDefs: parse(sdl) })).not.toThrow();
  });
});
