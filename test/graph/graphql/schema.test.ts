import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HEADER } from '../../../scripts/introspect.ts';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import type { GraphqlPipeline } from '../../../src/graph/graphql/index.ts';
import { graphql, pipelineFor, referenceEngine } from './support.ts';

let engine: GraphEngine;
let pipeline: GraphqlPipeline;

beforeEach(async () => {
  engine = await referenceEngine();
  pipeline = pipelineFor(engine);
});
afterEach(async () => {
  await engine.close();
});

describe('the schema served from the graph', () => {
  it('serves for the reference graph exactly the SDL of specs/graph.graphql', async () => {
    const file = readFileSync(new URL('../../../specs/graph.graphql', import.meta.url), 'utf8');
    const body = await graphql(pipeline, '{ _service { sdl } }');
    expect(`${HEADER}${(body.data!['_service'] as { sdl: string }).sdl}`).toBe(file);
  });

  it('rebuilds when the catalogue changes: a new property and a new edge type are selectable at once', async () => {
    expect((await graphql(pipeline, '{ Person(first: 1) { nickname } }')).errors![0]!.extensions?.code).toBe('TG_GRAPHQL_INVALID');
    await engine.commit({ graph: 'demo', mutations: [
      { op: 'updateNode', id: 'person-001', set: { nickname: 'Countess' } },
      { op: 'addEdge', src: 'person-001', tgt: 'topic-graphql', type: 'FOLLOWS' },
    ] });
    const body = await graphql(pipeline, '{ Person(first: 1) { nickname FOLLOWS { name } } Topic(id: "topic-graphql") { FOLLOWS_in { nickname } } }');
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({
      Person: [{ nickname: 'Countess', FOLLOWS: [{ name: 'GraphQL' }] }],
      Topic: [{ FOLLOWS_in: [{ nickname: 'Countess' }] }],
    });
  });

  it('fails no request in flight while the catalogue changes under it', async () => {
    const inFlight: Promise<unknown>[] = [];
    const versions = new Set<number>();
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 10; i++) {
        inFlight.push(graphql(pipeline, `{ Person(first: 3) { name KNOWS { name } } c${i}: PersonConnection(first: 2) { pageInfo { endCursor } } }`).then((body) => {
          expect(body.errors).toBeUndefined();
          versions.add(body.extensions!.version!);
        }));
      }
      // Each batch adds a label, so each changes the catalogue epoch and the schema.
      writes.push(engine.commit({ graph: 'demo', mutations: [{ op: 'createNode', id: `ship-${round}`, label: `Ship${round}`, props: { name: `Ship ${round}` } }] }));
      // Let some of it land before the next round starts, so rounds straddle schema changes.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all([...inFlight, ...writes]);
    expect(versions.size).toBeGreaterThan(1);
    const last = await graphql(pipeline, '{ Ship19 { name } Ship0 { name } }');
    expect(last.data).toEqual({ Ship19: [{ name: 'Ship 19' }], Ship0: [{ name: 'Ship 0' }] });
  });

  it('runs one request against one schema even when a mutation changes the catalogue mid-request', async () => {
    const body = await graphql(pipeline, 'mutation { a: createNode(label: "Planet", id: "earth", props: {name: "Earth"}) { __typename id } b: addEdge(src: "earth", tgt: "person-001", type: "HOME_OF") { ok } }');
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({ a: { __typename: 'Planet', id: 'earth' }, b: { ok: true } });
    expect((await graphql(pipeline, '{ Planet { HOME_OF { name } } }')).data).toEqual({ Planet: [{ HOME_OF: [{ name: 'Ada Lovelace' }] }] });
  });
});
