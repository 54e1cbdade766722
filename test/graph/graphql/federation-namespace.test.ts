import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeServices } from '@apollo/composition';
import { composeServices as composeWithGuild } from '@theguild/federation-composition';
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { loadReferenceGraph } from '../../../src/graph/fixtures/index.ts';
import { replaceNamespace } from '../../../src/graph/schema/index.ts';
import { openEngine } from '../engine/helpers.ts';
import { graphqlOptions, post, startServer, type Server } from './support.ts';

/**
 * Issue 16 item 5: many graphs, one supergraph. Three graphs of one server, two of them with the
 * same labels (`tickets` and `support`: Person and Ticket; `crm`, the reference graph, has a Person
 * too), each with its own namespace, compose with zero errors, and a gateway routes a query across
 * all three and a mutation to the one graph it names.
 */

/** A subgraph of someone else's that extends crm's people, so the gateway asks crm's `_entities` by the namespaced type. */
const REVIEWS_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external"])
  type Query { topReviewed: [Crm_Person!]! }
  type Crm_Person @key(fields: "id") {
    id: ID!
    reviews: [String!]!
  }
`;

let engine: GraphEngine;
let server: Server;
let reviews: HttpServer;
let reviewsUrl: string;
let gateway: ApolloServer | undefined;

async function seedTickets(graph: string, titles: readonly string[]): Promise<void> {
  await engine.createGraph(graph);
  await engine.commit({
    graph,
    mutations: [
      { op: 'createNode', id: `${graph}-person`, label: 'Person', props: { name: `${graph} agent` } },
      ...titles.map((title, i) => ({ op: 'createNode' as const, id: `${graph}-t${i + 1}`, label: 'Ticket', props: { title } })),
      ...titles.map((_title, i) => ({ op: 'addEdge' as const, src: `${graph}-person`, tgt: `${graph}-t${i + 1}`, type: 'ASSIGNED' })),
    ],
  });
}

async function sdlOf(graph: string): Promise<string> {
  const res = await post(`${server.origin}/graphql/${graph}`, { query: '{ _service { sdl } }' });
  return (res.body.data!['_service'] as { sdl: string }).sdl;
}

async function subgraphs(): Promise<{ name: string; typeDefs: ReturnType<typeof parse>; url: string }[]> {
  return Promise.all(['crm', 'tickets', 'support'].map(async (name) => ({ name, typeDefs: parse(await sdlOf(name)), url: `${server.origin}/graphql/${name}` })));
}

beforeAll(async () => {
  engine = await openEngine();
  await loadReferenceGraph(engine, 'crm');
  await seedTickets('tickets', ['Printer on fire', 'VPN down']);
  await seedTickets('support', ['Password reset']);
  // Routers need _service { sdl } even with introspection off.
  server = await startServer(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_INTROSPECTION: 'false' }));
  const schema = buildSubgraphSchema({
    typeDefs: parse(REVIEWS_SDL),
    resolvers: {
      Query: { topReviewed: () => [{ __typename: 'Crm_Person', id: 'person-002' }] },
      Crm_Person: { __resolveReference: (ref: { id: string }) => ref, reviews: (p: { id: string }) => (p.id === 'person-001' ? ['Sharp'] : ['Tireless']) },
    } as never,
  });
  reviews = createServer(createHandler({ schema }));
  await new Promise<void>((resolve) => reviews.listen(0, '127.0.0.1', resolve));
  reviewsUrl = `http://127.0.0.1:${(reviews.address() as AddressInfo).port}/graphql`;
});

afterAll(async () => {
  await gateway?.stop();
  await new Promise<void>((resolve) => reviews?.close(() => resolve()));
  await server?.close();
  await engine?.close();
});

describe('federation namespaces', () => {
  it('without namespaces the graphs collide (the issue), with one each they compose with zero errors', async () => {
    const before = composeServices(await subgraphs());
    expect((before.errors ?? []).map((e) => e.extensions['code'])).toContain('INVALID_FIELD_SHARING');
    // The Guild's composer (Hive's) refuses the same collisions.
    const guildBefore = composeWithGuild(await subgraphs());
    expect(guildBefore.errors?.length ?? 0).toBeGreaterThan(0);

    expect(await replaceNamespace(engine, 'crm', 'crm')).toEqual({ graph: 'crm', version: expect.any(Number), namespace: 'crm' });
    await replaceNamespace(engine, 'tickets', 'tickets');
    await replaceNamespace(engine, 'support', 'support');

    const sdl = await sdlOf('tickets');
    expect(sdl).toContain('type Tickets_Person implements Tickets_Node @key(fields: "id") {');
    expect(sdl).toContain('  tickets_Ticket(first: Int, limit: Int, id: ID, title: String): [Tickets_Ticket!]!');
    expect(sdl).toContain('  tickets_TicketConnection(first: Int, last: Int, after: String, before: String, cursor: String, id: ID, title: String): Tickets_TicketConnection!');
    expect(sdl).toContain('  tickets_createNode(label: String!, props: JSON!, id: ID, expectedVersion: Int): Tickets_Node!');
    expect(sdl).toContain('type PageInfo @shareable {');

    const after = composeServices([...await subgraphs(), { name: 'reviews', typeDefs: parse(REVIEWS_SDL), url: reviewsUrl }]);
    expect(after.errors ?? []).toEqual([]);
    const guildAfter = composeWithGuild([...await subgraphs(), { name: 'reviews', typeDefs: parse(REVIEWS_SDL), url: reviewsUrl }]);
    expect((guildAfter.errors ?? []).map((e) => e.message)).toEqual([]);
    expect(guildAfter.supergraphSdl).toContain('tickets_createNode');
  });

  it('a gateway answers one query across the three graphs, and routes a mutation to the graph it names only', async () => {
    const composed = composeServices([...await subgraphs(), { name: 'reviews', typeDefs: parse(REVIEWS_SDL), url: reviewsUrl }]);
    expect(composed.errors ?? []).toEqual([]);
    gateway = new ApolloServer({ gateway: new ApolloGateway({ supergraphSdl: composed.supergraphSdl! }) });
    await gateway.start();
    const run = async (query: string) => {
      const response = await gateway!.executeOperation({ query });
      if (response.body.kind !== 'single') throw new Error('expected a single result');
      return response.body.singleResult;
    };

    const spanning = await run(`{
      crm_Person(first: 1) { __typename id name reviews WORKS_AT { name } }
      tickets_Person { __typename name ASSIGNED { __typename title } }
      support_Ticket { __typename id title }
      support_TicketConnection(first: 1) { __typename edges { node { title } } pageInfo { hasNextPage } }
      topReviewed { __typename name age }
    }`);
    expect(spanning.errors).toBeUndefined();
    expect(spanning.data).toEqual({
      crm_Person: [{ __typename: 'Crm_Person', id: 'person-001', name: 'Ada Lovelace', reviews: ['Sharp'], WORKS_AT: [{ name: 'Acme Analytics' }, { name: 'Lumen Foundation' }] }],
      tickets_Person: [{ __typename: 'Tickets_Person', name: 'tickets agent', ASSIGNED: [
        { __typename: 'Tickets_Ticket', title: 'Printer on fire' }, { __typename: 'Tickets_Ticket', title: 'VPN down' },
      ] }],
      support_Ticket: [{ __typename: 'Support_Ticket', id: 'support-t1', title: 'Password reset' }],
      support_TicketConnection: { __typename: 'Support_TicketConnection', edges: [{ node: { title: 'Password reset' } }], pageInfo: { hasNextPage: false } },
      topReviewed: [{ __typename: 'Crm_Person', name: 'Grace Hopper', age: 30 }],
    });

    const counts = () => Object.fromEntries(['crm', 'tickets', 'support'].map((g) => [g, engine.view(g).scan('Ticket', {}).length]));
    const before = counts();
    const written = await run(`mutation {
      tickets_createNode(label: "Ticket", id: "tickets-t9", props: { title: "Coffee machine" }) { __typename id ... on Tickets_Ticket { title } }
      tickets_addEdge(src: "tickets-person", tgt: "tickets-t9", type: "ASSIGNED") { ok }
    }`);
    expect(written.errors).toBeUndefined();
    expect(written.data).toEqual({
      tickets_createNode: { __typename: 'Tickets_Ticket', id: 'tickets-t9', title: 'Coffee machine' },
      tickets_addEdge: { ok: true },
    });
    // The write landed in tickets, and only there.
    expect(counts()).toEqual({ ...before, tickets: before['tickets']! + 1 });
    expect(engine.view('tickets').node('tickets-t9')?.props).toEqual({ title: 'Coffee machine' });
    expect(engine.view('support').node('tickets-t9')).toBeUndefined();
    expect(engine.view('crm').node('tickets-t9')).toBeUndefined();

    const read = await run('{ tickets_Person { ASSIGNED { title } } support_Person { ASSIGNED { title } } }');
    expect(read.data).toEqual({
      tickets_Person: [{ ASSIGNED: [{ title: 'Printer on fire' }, { title: 'VPN down' }, { title: 'Coffee machine' }] }],
      support_Person: [{ ASSIGNED: [{ title: 'Password reset' }] }],
    });
  });

  it('refuses a namespace that is not a short lowercase name, or that another graph has', async () => {
    for (const bad of ['', 'Crm', 'crm_x', '1crm', 'a'.repeat(33), 42]) {
      await expect(replaceNamespace(engine, 'support', bad)).rejects.toMatchObject({ code: 'TG_NAMESPACE_INVALID' });
    }
    await expect(replaceNamespace(engine, 'support', 'tickets')).rejects.toMatchObject({
      code: 'TG_NAMESPACE_TAKEN',
      message: expect.stringContaining('Graph "tickets" already has the namespace "tickets"'),
    });
    expect(engine.namespace('support')).toBe('support');
  });
});
