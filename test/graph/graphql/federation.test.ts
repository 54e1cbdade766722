import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeServices } from '@apollo/composition';
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { graphqlOptions, post, referenceEngine, startServer, type Server } from './support.ts';

/** A second subgraph that extends our Person: it adds reviews, and a greeting that requires our name. */
const REVIEWS_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external", "@requires"])
  type Query { topReviewed: [Person!]! }
  type Person @key(fields: "id") {
    id: ID!
    name: String @external
    reviews: [String!]!
    greeting: String @requires(fields: "name")
  }
`;

const REVIEWS: Record<string, string[]> = { 'person-001': ['Sharp', 'Kind'], 'person-002': ['Tireless'] };

let engine: GraphEngine;
let ours: Server;
let reviews: HttpServer;
let reviewsUrl: string;
let gateway: ApolloServer;

beforeAll(async () => {
  engine = await referenceEngine();
  // Routers need _service { sdl } even with introspection off.
  ours = await startServer(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_INTROSPECTION: 'false' }));
  const schema = buildSubgraphSchema({
    typeDefs: parse(REVIEWS_SDL),
    resolvers: {
      Query: { topReviewed: () => [{ __typename: 'Person', id: 'person-002' }, { __typename: 'Person', id: 'person-001' }] },
      Person: {
        __resolveReference: (ref: { id: string; name?: string }) => ref,
        reviews: (p: { id: string }) => REVIEWS[p.id] ?? [],
        greeting: (p: { name?: string }) => `Hello, ${p.name ?? '?'}`,
      },
    } as never,
  });
  reviews = createServer(createHandler({ schema }));
  await new Promise<void>((resolve) => reviews.listen(0, '127.0.0.1', resolve));
  reviewsUrl = `http://127.0.0.1:${(reviews.address() as AddressInfo).port}/graphql`;
});

afterAll(async () => {
  await gateway?.stop();
  await new Promise<void>((resolve) => reviews?.close(() => resolve()));
  await ours?.close();
  await engine?.close();
});

describe('federation', () => {
  it('serves _service { sdl } with the federation directives, equal to what introspection prints', async () => {
    const res = await post(ours.url, { query: '{ _service { sdl } }' });
    const sdl = (res.body.data!['_service'] as { sdl: string }).sdl;
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable", "@external"])');
    expect(sdl).toContain('type Person implements Node @key(fields: "id")');
    expect(sdl).toContain('type PageInfo @shareable');
  });

  it('answers _entities in request order, null for a missing entity, in one pass', async () => {
    const res = await post(ours.url, {
      query: 'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Person { name } ... on Topic { name } } }',
      variables: { r: [
        { __typename: 'Topic', id: 'topic-graphql' }, { __typename: 'Person', id: 'nobody' },
        { __typename: 'Person', id: 'person-002' }, { __typename: 'Topic', id: 'person-001' },
      ] },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ _entities: [{ __typename: 'Topic', name: 'GraphQL' }, null, { __typename: 'Person', name: 'Grace Hopper' }, null] });
  });

  it('composes with a subgraph that extends a label type, and a gateway joins both', async () => {
    const sdl = (await post(ours.url, { query: '{ _service { sdl } }' })).body.data!['_service'] as { sdl: string };
    const composed = composeServices([
      { name: 'graph', typeDefs: parse(sdl.sdl), url: ours.url },
      { name: 'reviews', typeDefs: parse(REVIEWS_SDL), url: reviewsUrl },
    ]);
    expect(composed.errors ?? []).toEqual([]);
    gateway = new ApolloServer({ gateway: new ApolloGateway({ supergraphSdl: composed.supergraphSdl! }) });
    await gateway.start();
    const run = async (query: string) => {
      const response = await gateway.executeOperation({ query });
      if (response.body.kind !== 'single') throw new Error('expected a single result');
      return response.body.singleResult;
    };
    // Our root field, their field on our type (the gateway asks their _entities).
    const ourRoot = await run('{ Person(first: 2) { id name reviews WORKS_AT { name } } }');
    expect(ourRoot.errors).toBeUndefined();
    expect(ourRoot.data).toEqual({ Person: [
      { id: 'person-001', name: 'Ada Lovelace', reviews: ['Sharp', 'Kind'], WORKS_AT: [{ name: 'Acme Analytics' }, { name: 'Lumen Foundation' }] },
      { id: 'person-002', name: 'Grace Hopper', reviews: ['Tireless'], WORKS_AT: [{ name: 'Northwind Labs' }] },
    ] });
    // Their root field, our fields (the gateway asks our _entities), and a field that requires ours.
    const theirRoot = await run('{ topReviewed { id name age greeting } }');
    expect(theirRoot.errors).toBeUndefined();
    expect(theirRoot.data).toEqual({ topReviewed: [
      { id: 'person-002', name: 'Grace Hopper', age: 30, greeting: 'Hello, Grace Hopper' },
      { id: 'person-001', name: 'Ada Lovelace', age: 33, greeting: 'Hello, Ada Lovelace' },
    ] });
  });
});
