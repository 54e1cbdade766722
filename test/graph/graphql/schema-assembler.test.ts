import { buildSubgraphSchema } from '@apollo/subgraph';
import fc from 'fast-check';
import { GraphQLSchema, introspectionFromSchema, parse, printSchema, validate, validateSchema, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { GraphTypes } from '../../../src/graph/engine/graph-types.ts';
import { GraphSchemaBuilder, GraphSchemaCache } from '../../../src/graph/graphql/index.ts';
import { sdlFromCatalogue } from '../../../src/graph/schema/index.ts';
import { applyGrowth as apply, growthRounds } from '../../support/catalogue-growth.ts';

/** The schema as @apollo/subgraph builds it from the SDL: what the assembled one must equal. */
function reference(types: GraphTypes): GraphQLSchema {
  return buildSubgraphSchema({ typeDefs: parse(sdlFromCatalogue(types.read())) });
}

describe('the assembled GraphQL schema', () => {
  it('equals buildSubgraphSchema of the SDL after every step of random catalogue growth, built incrementally', () => {
    fc.assert(fc.property(growthRounds, (rounds) => {
      const types = new GraphTypes();
      const builder = new GraphSchemaBuilder();
      for (const round of rounds) {
        for (const s of round) apply(types, s);
        const built = builder.build(types.read());
        const expected = reference(types);
        expect(printSchema(built.schema)).toBe(printSchema(expected));
        expect(introspectionFromSchema(built.schema)).toEqual(introspectionFromSchema(expected));
        // The assembled schema skips graphql-js's validation; the same schema validated must pass.
        expect(validateSchema(new GraphQLSchema({ ...built.schema.toConfig(), assumeValid: false }))).toEqual([]);
        expect(built.sdl).toBe(sdlFromCatalogue(types.read()));
      }
    }), { numRuns: 30 });
  });

  it('equals buildSubgraphSchema of the SDL when a namespace comes, changes and goes between steps of growth', () => {
    fc.assert(fc.property(growthRounds, fc.array(fc.constantFrom(null, 'crm', 'tickets'), { minLength: 8, maxLength: 8 }), (rounds, namespaces) => {
      const types = new GraphTypes();
      const builder = new GraphSchemaBuilder();
      rounds.forEach((round, i) => {
        for (const s of round) apply(types, s);
        types.setNamespace(namespaces[i]!);
        const built = builder.build(types.read());
        const expected = reference(types);
        expect(printSchema(built.schema)).toBe(printSchema(expected));
        expect(introspectionFromSchema(built.schema)).toEqual(introspectionFromSchema(expected));
        expect(validateSchema(new GraphQLSchema({ ...built.schema.toConfig(), assumeValid: false }))).toEqual([]);
        expect(built.sdl).toBe(sdlFromCatalogue(types.read()));
        if (namespaces[i] !== null) {
          const prefix = `${namespaces[i]!.charAt(0).toUpperCase()}${namespaces[i]!.slice(1)}_`;
          const own = Object.keys(built.schema.getTypeMap()).filter((name) => !name.startsWith('__') && !name.startsWith('_') && !name.startsWith('link__') && !name.startsWith('federation__'));
          // Every type the graph defines carries the prefix, except the shared, @shareable ones.
          expect(own.filter((name) => !name.startsWith(prefix)).sort()).toEqual(
            ['Boolean', 'DeleteResult', 'EdgeResult', 'Float', 'ID', 'Int', 'JSON', 'Mutation', 'PageInfo', 'Query', 'String', 'Subscription'].filter((name) => built.schema.getType(name) !== undefined));
          for (const root of [built.schema.getQueryType(), built.schema.getMutationType(), built.schema.getSubscriptionType()]) {
            // By key: validation looks fields up by their key in the field map, printing by their name.
            for (const [key, field] of Object.entries(root?.getFields() ?? {})) {
              expect(key).toBe(field.name);
              if (!key.startsWith('_')) expect(key.startsWith(`${namespaces[i]!}_`), key).toBe(true);
            }
          }
        }
      });
    }), { numRuns: 30 });
  });

  it('validates documents as the reference does, federation fields included', () => {
    const types = new GraphTypes();
    for (const s of [{ kind: 'pair', type: 'KNOWS', src: 0, tgt: 1 }, { kind: 'pair', type: 'KNOWS', src: 0, tgt: 2 }, { kind: 'property', label: 0, name: 'n', type: 'Int' }] as const) apply(types, s);
    const built = new GraphSchemaBuilder().build(types.read()).schema;
    const expected = reference(types);
    for (const text of [
      '{ A(first: 1, n: 2) { id n KNOWS { ... on B { id } ... on C { id } } } }',
      '{ A { KNOWS { id } } }',
      '{ AConnection(first: 1, cursor: "x") { edges { node { id } cursor } pageInfo { hasNextPage } } }',
      'query($r: [_Any!]!) { _entities(representations: $r) { ... on B { id } } _service { sdl } }',
      '{ Nope }',
      'mutation { createNode(label: "A", props: {n: 1}) { id ... on A { n } } }',
      'subscription { B(first: 1) { id KNOWS_in { id } } }',
    ]) {
      const document = parse(text);
      expect(validate(built, document).map((e) => e.message), text).toEqual(validate(expected, document).map((e) => e.message));
    }
  });

  it('reuses the types of labels a change does not reach, and the root fields of unchanged labels', () => {
    const types = new GraphTypes();
    for (let i = 0; i < 50; i++) types.setType(`L${i}`, 'p', 'Int');
    types.addPair('LINK', 'L1', 'L2');
    const builder = new GraphSchemaBuilder();
    const before = builder.build(types.read()).schema;
    types.setType('L2', 'q', 'String');
    const after = builder.build(types.read()).schema;
    // L2 changed, and L1 reaches it through LINK; the other 48 labels are untouched.
    expect(after.getType('L2')).not.toBe(before.getType('L2'));
    expect(after.getType('L1')).not.toBe(before.getType('L1'));
    expect((after.getType('L1') as GraphQLObjectType).getFields()['p']).toBe((before.getType('L1') as GraphQLObjectType).getFields()['p']);
    const kept = Array.from({ length: 50 }, (_, i) => `L${i}`).filter((l) => l !== 'L1' && l !== 'L2');
    for (const label of kept) {
      expect(after.getType(label), label).toBe(before.getType(label));
      expect(after.getQueryType()!.getFields()[label]).toBe(before.getQueryType()!.getFields()[label]);
    }
  });

  it('loads a large schema in slices that give the event loop back, as the synchronous build would', async () => {
    const types = new GraphTypes();
    for (let l = 0; l < 400; l++) for (let p = 0; p < 20; p++) types.setType(`L${l}`, `p${p}`, 'Int');
    const cache = new GraphSchemaCache();
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const loaded = await cache.load(types.read());
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(0);
    expect(cache.cached(types.read())).toBe(loaded);
    expect(printSchema(loaded.schema)).toBe(printSchema(new GraphSchemaBuilder().build(types.read()).schema));
  });
});
