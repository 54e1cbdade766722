import { readFileSync } from 'node:fs';
import { Lexer, Source, TokenKind } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { counting, graphql, graphqlOptions, pipelineFor, referenceEngine } from './support.ts';

let engine: GraphEngine;
beforeAll(async () => {
  engine = await referenceEngine();
});
afterAll(async () => {
  await engine.close();
});

/** Lexical tokens of a document as graphql-js's lexer sees them (what graphql-armor counts). */
function tokens(query: string): number {
  const lexer = new Lexer(new Source(query));
  let n = 0;
  while (lexer.advance().kind !== TokenKind.EOF) n++;
  return n;
}

const nested = (levels: number) => `{ Person(first: 1) { ${'KNOWS(first: 1) { '.repeat(levels - 2)}id${' }'.repeat(levels - 2)} } }`;

interface LimitCase {
  readonly limit: string;
  readonly env: string;
  /** The setting's value, the document just under (or at) it, and one just over. */
  readonly max: number;
  readonly under: string;
  readonly over: string;
  readonly found?: number;
}

const CASES: LimitCase[] = [
  { limit: 'depth', env: 'TOOLGRAPH_GRAPHQL_MAX_DEPTH', max: 5, under: nested(5), over: nested(6), found: 6 },
  // armor: (object 2 + 1.5 × scalar 1) × first 10 = 35.
  { limit: 'cost', env: 'TOOLGRAPH_GRAPHQL_MAX_COST', max: 35, under: '{ Person(first: 10) { id } }', over: '{ Person(first: 10) { id } }', found: 35 },
  { limit: 'aliases', env: 'TOOLGRAPH_GRAPHQL_MAX_ALIASES', max: 2, under: '{ a: Topic(first: 1) { id } b: Topic(first: 1) { id } }', over: '{ a: Topic(first: 1) { id } b: Topic(first: 1) { id } c: Topic(first: 1) { id } }', found: 3 },
  { limit: 'directives', env: 'TOOLGRAPH_GRAPHQL_MAX_DIRECTIVES', max: 2, under: '{ Topic(first: 1) { id @include(if: true) name @include(if: true) } }', over: '{ Topic(first: 1) { id @include(if: true) name @include(if: true) weight @skip(if: false) } }', found: 3 },
  { limit: 'fields', env: 'TOOLGRAPH_GRAPHQL_MAX_FIELDS', max: 5, under: '{ Topic(first: 1) { ...T name } } fragment T on Topic { id weight description }', over: '{ Topic(first: 1) { ...T name aliases } } fragment T on Topic { id weight description }', found: 6 },
  { limit: 'tokens', env: 'TOOLGRAPH_GRAPHQL_MAX_TOKENS', max: tokens('{ Topic(first: 1) { id } }'), under: '{ Topic(first: 1) { id } }', over: '{ Topic(first: 1) { id name } }' },
];

describe('limits: just under passes, just over is refused before execution', () => {
  it.each(CASES)('$limit', async ({ limit, env, max, under, over, found }) => {
    const { engine: counted, calls } = counting(engine);
    // The cost case compares one document against two settings: at its cost, and one below.
    const underPipeline = pipelineFor(counted, graphqlOptions({ [env]: String(max) }));
    const overPipeline = limit === 'cost' ? pipelineFor(counted, graphqlOptions({ [env]: String(max - 1) })) : underPipeline;
    const ok = await graphql(underPipeline, under);
    expect(ok.errors, under).toBeUndefined();
    expect(ok.data).toBeDefined();
    calls['scan'] = 0;
    const refused = await graphql(overPipeline, over);
    expect(refused.data, over).toBeUndefined();
    expect(refused.extensions).toBeUndefined();
    expect(calls['scan']).toBe(0);
    expect(refused.errors).toHaveLength(1);
    const error = refused.errors![0]!;
    const limitValue = limit === 'cost' ? max - 1 : max;
    expect(error.extensions).toMatchObject({ code: 'TG_QUERY_TOO_COMPLEX', details: { limit, max: limitValue, ...(found === undefined ? {} : { found }) } });
    expect(error.message).toContain(`the ${limit} limit is ${limitValue} (${env})`);
  });

  it('caps the document text in UTF-8 bytes (query bytes)', async () => {
    const base = '{ Topic(first: 1) { id } } #';
    const at = base + 'é'.repeat((64 - Buffer.byteLength(base)) / 2);
    expect(Buffer.byteLength(at)).toBe(64);
    const pipeline = pipelineFor(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_MAX_QUERY_BYTES: '64' }));
    expect((await graphql(pipeline, at)).errors).toBeUndefined();
    const refused = await graphql(pipeline, `${at}x`);
    expect(refused.errors![0]).toMatchObject({ extensions: { code: 'TG_QUERY_TOO_COMPLEX', details: { limit: 'queryBytes', max: 64, found: 65 } } });
    expect(refused.errors![0]!.message).toContain('TOOLGRAPH_GRAPHQL_MAX_QUERY_BYTES');
  });

  it('runs graphql-armor max-depth 2.4.2 or later, which a fragment named __schema cannot bypass', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../../node_modules/@escape.tech/graphql-armor-max-depth/package.json', import.meta.url), 'utf8')) as { version: string };
    const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
    expect(major * 1e6 + minor * 1e3 + patch, version).toBeGreaterThanOrEqual(2_004_002);
    const pipeline = pipelineFor(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_MAX_DEPTH: '5' }));
    const body = await graphql(pipeline, `{ Person(first: 1) { ...__schema } } fragment __schema on Person { ${'KNOWS(first: 1) { '.repeat(8)}id${' }'.repeat(8)} }`);
    expect(body.data).toBeUndefined();
    expect(body.errors!.map((e) => e.extensions?.details?.['limit'])).toContain('depth');
  });

  it('counts a fragment bomb without expanding it', async () => {
    const levels = 30;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Person { ${i === levels - 1 ? 'id' : `a${i}: KNOWS(first: 1) { ...F${i + 1} } b${i}: KNOWS_in(first: 1) { ...F${i + 1} }`} }`).join(' ');
    const pipeline = pipelineFor(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_MAX_ALIASES: '1000', TOOLGRAPH_GRAPHQL_MAX_DEPTH: '1000', TOOLGRAPH_GRAPHQL_MAX_TOKENS: '100000', TOOLGRAPH_GRAPHQL_MAX_COST: '100000000' }));
    const started = performance.now();
    const body = await graphql(pipeline, `{ Person(first: 1) { ...F0 } } ${fragments}`);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(body.errors![0]!.extensions?.code).toBe('TG_QUERY_TOO_COMPLEX');
    expect(body.errors!.map((e) => e.extensions?.details?.['limit'])).toContain('fields');
  });

  it.each([
    ['depth', { TOOLGRAPH_GRAPHQL_MAX_DEPTH: '3' }, nested(4)],
    ['aliases', { TOOLGRAPH_GRAPHQL_MAX_ALIASES: '1' }, '{ a: Topic(first: 1) { id } b: Topic(first: 1) { id } }'],
    ['directives', { TOOLGRAPH_GRAPHQL_MAX_DIRECTIVES: '1' }, '{ Topic(first: 1) { id @include(if: true) name @include(if: true) } }'],
    ['fields', { TOOLGRAPH_GRAPHQL_MAX_FIELDS: '2' }, '{ Topic(first: 1) { id name weight } }'],
  ])('past the %s limit, graphql-js\'s own rules (quadratic on repeated fields) do not run', async (limit, settings, query) => {
    // The document also selects a field no type has: only the limit is reported, so the rule that
    // would name it (with the other standard rules) never ran.
    const pipeline = pipelineFor(engine, graphqlOptions(settings));
    const body = await graphql(pipeline, query.replace(/ }$/, ' noSuchField }'));
    expect(body.errors!.map((e) => [e.extensions?.code, e.extensions?.details?.['limit']])).toEqual([['TG_QUERY_TOO_COMPLEX', limit]]);
  });

  it('turns introspection off but keeps _service { sdl } for routers', async () => {
    const pipeline = pipelineFor(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_INTROSPECTION: 'false' }));
    const schema = await graphql(pipeline, '{ __schema { queryType { name } } }');
    expect(schema.errors![0]!.extensions?.code).toBe('TG_GRAPHQL_INVALID');
    expect(schema.errors![0]!.message).toContain('introspection');
    const type = await graphql(pipeline, '{ __type(name: "Person") { name } }');
    expect(type.errors).toBeDefined();
    const sdl = await graphql(pipeline, '{ _service { sdl } __typename }');
    expect(sdl.errors).toBeUndefined();
    expect((sdl.data!['_service'] as { sdl: string }).sdl).toContain('type Person implements Node @key(fields: "id")');
    // No "Did you mean" hints leak the schema either, and the unknown-label message lists no labels.
    const typo = await graphql(pipeline, '{ Persn { id } Person { nme } }');
    expect(typo.errors!.map((e) => e.message).join('\n')).not.toMatch(/Did you mean|Organization/);
  });

  it('masks the inline-fragment hint too, which would list the types of a union or interface that have the field', async () => {
    const union = '{ Person(first: 1) { AUTHORED(first: 1) { title } } }';
    const iface = 'mutation { createNode(label: "Probe", props: {}) { name } }';
    const open = pipelineFor(engine, graphqlOptions());
    expect((await graphql(open, union)).errors![0]!.message).toBe('Cannot query field "title" on type "AuthoredTarget". Did you mean to use an inline fragment on "Document"?');
    expect((await graphql(open, iface)).errors![0]!.message).toContain('Did you mean to use an inline fragment on "Organization", "Person"');
    const closed = pipelineFor(engine, graphqlOptions({ TOOLGRAPH_GRAPHQL_INTROSPECTION: 'false' }));
    const masked = [await graphql(closed, union), await graphql(closed, iface)];
    expect(masked.map((body) => body.errors!.map((e) => [e.message, e.extensions?.code]))).toEqual([
      [['Cannot query field "title" on type "AuthoredTarget". [Suggestion hidden]', 'TG_GRAPHQL_INVALID']],
      [['Cannot query field "name" on type "Node". [Suggestion hidden]', 'TG_GRAPHQL_INVALID']],
    ]);
    // The other hints read the same as before.
    expect((await graphql(closed, '{ Person(frist: 1) { id } }')).errors![0]!.message).toBe('Unknown argument "frist" on field "Query.Person". [Suggestion hidden]');
  });
});
