import { readFileSync } from 'node:fs';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateNodeDocument, PeopleWithColleaguesDocument, PersonPageDocument,
  type CreateNodeMutation, type PeopleWithColleaguesQuery, type PersonPageQuery,
} from '../../../generated/graphql/client/graphql.ts';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { sha256Hex } from '../../../src/digest/index.ts';
import { PERSISTED_DOCUMENTS_PATH } from '../../../src/graph/graphql/index.ts';
import { graphqlOptions, post, referenceEngine, startServer, type Server } from './support.ts';

let engine: GraphEngine;
let server: Server | undefined;
beforeAll(async () => {
  engine = await referenceEngine();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await engine.close();
});

interface Sent { method: string; query: boolean; hash: string | undefined }

/** A fetch that records what Apollo Client sends: whether the text went along, and the hash. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) as { query?: string; extensions?: { persistedQuery?: { sha256Hash?: string } } } : {};
    sent.push({ method: init?.method ?? 'GET', query: typeof body.query === 'string', hash: body.extensions?.persistedQuery?.sha256Hash });
    return fetch(input, init);
  };
}

function apollo(url: string, sent: Sent[]): ApolloClient {
  const link = new PersistedQueryLink({ sha256: (text: string) => sha256Hex(text) }).concat(new HttpLink({ uri: url, fetch: recordingFetch(sent) }));
  return new ApolloClient({ link, cache: new InMemoryCache() });
}

describe('automatic persisted queries', () => {
  it('follows Apollo Client\'s protocol: hash only, PersistedQueryNotFound, resend with text, then hash only', async () => {
    server = await startServer(engine);
    const sent: Sent[] = [];
    const query = gql`query Few($n: Int) { Person(first: $n) { id name } }`;
    const first = await apollo(server.url, sent).query({ query, variables: { n: 2 } });
    expect(first.data).toEqual({ Person: [{ __typename: 'Person', id: 'person-001', name: 'Ada Lovelace' }, { __typename: 'Person', id: 'person-002', name: 'Grace Hopper' }] });
    expect(sent.map((s) => s.query)).toEqual([false, true]);
    expect(sent[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(sent[1]!.hash).toBe(sent[0]!.hash);
    // A fresh client (empty cache) now gets its answer from the hash alone.
    const again: Sent[] = [];
    const second = await apollo(server.url, again).query({ query, variables: { n: 1 } });
    expect(second.data).toEqual({ Person: [{ __typename: 'Person', id: 'person-001', name: 'Ada Lovelace' }] });
    expect(again.map((s) => s.query)).toEqual([false]);
  });

  it('refuses text that does not hash to the hash sent, and keeps a bounded store', async () => {
    server = await startServer(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_APQ_MAX_ENTRIES: '2' }));
    const mismatch = await post(server.url, { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex('{ Person { id } }') } } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors![0]!.extensions?.code).toBe('TG_PERSISTED_QUERY_MISMATCH');
    const register = async (query: string) => post(server!.url, { query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } } });
    const hashOnly = async (query: string) => post(server!.url, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } } });
    const queries = ['{ a: __typename }', '{ b: __typename }', '{ c: __typename }'];
    for (const q of queries) expect((await register(q)).status).toBe(200);
    expect((await hashOnly(queries[2]!)).body.data).toEqual({ c: 'Query' });
    // The oldest fell out of the two-entry store: the client must resend it.
    const evicted = await hashOnly(queries[0]!);
    expect(evicted.status).toBe(404);
    expect(evicted.body.errors![0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
  });
});

// ---- item 12: the codegen loop, with the generated typed documents ------------------------------

type WithHash<R, V> = TypedDocumentNode<R, V> & { __meta__?: { hash?: string } };

function hashOf<R, V>(document: WithHash<R, V>): string {
  return document.__meta__!.hash!;
}

/** The smallest typed client: sends a generated document by its sha256 alone, returns typed data. */
async function execute<R, V>(url: string, document: WithHash<R, V>, variables: V): Promise<R> {
  const documentId = document.__meta__?.hash;
  if (documentId === undefined) throw new Error('the document has no persisted hash: run npm run codegen');
  const res = await post(url, { documentId, variables });
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data as R;
}

describe('trusted documents and persisted-only mode', () => {
  it('runs the generated documents by hash alone, typed by the generated client types', async () => {
    server = await startServer(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_PERSISTED_ONLY: 'true' }));
    const page: PersonPageQuery = await execute(server.url, PersonPageDocument, { first: 2 });
    expect(page.PersonConnection.edges.map((e) => e.node.name)).toEqual(['Ada Lovelace', 'Grace Hopper']);
    const next: PersonPageQuery = await execute(server.url, PersonPageDocument, { first: 1, after: page.PersonConnection.pageInfo.endCursor });
    expect(next.PersonConnection.edges[0]!.node.id).toBe('person-003');
    const people: PeopleWithColleaguesQuery = await execute(server.url, PeopleWithColleaguesDocument, { first: 1 });
    expect(people.Person[0]!.WORKS_AT.length).toBeGreaterThan(0);
    for (const item of people.Person[0]!.AUTHORED) {
      if (item.__typename === 'Document') expect(typeof item.title).toBe('string');
      else expect(item.__typename).toBe('Repository');
    }
    const created: CreateNodeMutation = await execute(server.url, CreateNodeDocument, { label: 'Topic', props: { name: 'Typed', weight: 0.25 }, id: 'topic-typed' });
    expect(created.createNode).toEqual({ __typename: 'Topic', id: 'topic-typed', name: 'Typed', weight: 0.25 });
  });

  it('refuses free text and unknown ids, and takes a trusted document\'s exact text (also through /dispatch)', async () => {
    server = await startServer(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_PERSISTED_ONLY: 'true' }));
    const free = await post(server.url, { query: '{ Person { id email } }' });
    expect(free.status).toBe(400);
    expect(free.body.errors![0]!.extensions?.code).toBe('TG_PERSISTED_ONLY');
    expect(free.body.errors![0]!.message).toContain('persisted-only mode');
    const registering = await post(server.url, { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex('{ __typename }') } } });
    expect(registering.body.errors![0]!.extensions?.code).toBe('TG_PERSISTED_ONLY');
    const unknown = await post(server.url, { documentId: 'f'.repeat(64) });
    expect(unknown.body.errors![0]!.extensions?.code).toBe('TG_PERSISTED_QUERY_NOT_FOUND');
    const byApolloExtension = await post(server.url, { extensions: { persistedQuery: { version: 1, sha256Hash: hashOf(PersonPageDocument) } }, variables: { first: 1 } });
    expect(byApolloExtension.body.errors).toBeUndefined();

    const documents = JSON.parse(readFileSync(new URL(`../../../${PERSISTED_DOCUMENTS_PATH}`, import.meta.url), 'utf8')) as Record<string, string>;
    const text = documents[hashOf(PersonPageDocument)]!;
    const http = await post(server.url, { query: text, variables: { first: 1 } });
    expect(http.body.errors).toBeUndefined();
    const dispatched = await post(`${server.origin}/dispatch`, { id: 1, graph: 'demo', method: { GraphQl: { query: text, variables: { first: 1 } } } });
    expect(dispatched.text).toBe(`{"id":1,"result":${http.text}}`);
    const refused = await post(`${server.origin}/dispatch`, { id: 2, graph: 'demo', method: { GraphQl: { query: '{ __typename }' } } });
    expect(JSON.parse(refused.text).result.errors[0].extensions.code).toBe('TG_PERSISTED_ONLY');
  });
});
