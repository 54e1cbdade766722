import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import type { GraphqlPipeline } from '../../../src/graph/graphql/index.ts';
import { counting, graphql, pipelineFor, referenceEngine } from './support.ts';

let engine: GraphEngine;
let pipeline: GraphqlPipeline;

beforeAll(async () => {
  engine = await referenceEngine();
  pipeline = pipelineFor(engine);
});
afterAll(async () => {
  await engine.close();
});

const ids = (rows: unknown) => (rows as { id: string }[]).map((r) => r.id);

describe('query forms', () => {
  it.each([
    ['bare', '{ Person(first: 2) { id name } }'],
    ['query', 'query { Person(first: 2) { id name } }'],
    ['named', 'query Two { Person(first: 2) { id name } }'],
  ])('%s selection set', async (_name, query) => {
    const body = await graphql(pipeline, query);
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({ Person: [{ id: 'person-001', name: 'Ada Lovelace' }, { id: 'person-002', name: 'Grace Hopper' }] });
    expect(body.extensions?.version).toBe(engine.view('demo').version);
  });

  it('runs the named operation of several', async () => {
    const response = await pipeline.run({
      graph: 'demo', principal: { subject: 'x', scopes: ['*'] }, method: 'POST',
      params: { query: 'query A { Topic(first: 1) { id } } query B { Organization(first: 1) { id } }', operationName: 'B' },
    });
    expect(JSON.parse(response.body).data).toEqual({ Organization: [{ id: 'org-acme' }] });
    // The same text again under each name, and under none: a prepared document keeps them apart.
    const run = async (operationName?: string) => JSON.parse((await pipeline.run({
      graph: 'demo', principal: { subject: 'x', scopes: ['*'] }, method: 'POST',
      params: { query: 'query A { Topic(first: 1) { id } } query B { Organization(first: 1) { id } }', ...(operationName ? { operationName } : {}) },
    })).body) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] };
    expect((await run('A')).data).toEqual({ Topic: [{ id: engine.view('demo').scan('Topic', { first: 1 })[0]!.id }] });
    expect((await run('B')).data).toEqual({ Organization: [{ id: 'org-acme' }] });
    // Yoga's parse step says it first (its guard against mutations over GET needs the operation).
    expect((await run()).errors![0]).toMatchObject({ message: 'Could not determine what operation to execute.', extensions: { code: 'TG_GRAPHQL_INVALID' } });
  });
});

describe('root arguments', () => {
  it('lists a label in id order; first and limit cap it (the smaller wins)', async () => {
    const all = await graphql(pipeline, '{ Person { id } }');
    const expected = engine.view('demo').scan('Person').map((n) => n.id);
    expect(ids(all.data!['Person'])).toEqual(expected);
    expect([...expected].sort()).toEqual(expected);
    const capped = await graphql(pipeline, '{ a: Person(first: 5) { id } b: Person(limit: 3) { id } c: Person(first: 4, limit: 2) { id } d: Person(first: 0) { id } }');
    expect(ids(capped.data!['a'])).toEqual(expected.slice(0, 5));
    expect(ids(capped.data!['b'])).toEqual(expected.slice(0, 3));
    expect(ids(capped.data!['c'])).toEqual(expected.slice(0, 2));
    expect(capped.data!['d']).toEqual([]);
  });

  it('filters by property equality and by id; null matches nodes without the property', async () => {
    const active = await graphql(pipeline, '{ Person(active: true) { id active } }');
    const expected = engine.view('demo').scan('Person', { filter: { active: true } }).map((n) => n.id);
    expect(ids(active.data!['Person'])).toEqual(expected);
    expect((active.data!['Person'] as { active: boolean }[]).every((p) => p.active)).toBe(true);
    const byId = await graphql(pipeline, '{ Person(id: "person-003") { id name } Organization(id: "person-003") { id } }');
    expect(byId.data).toEqual({ Person: [{ id: 'person-003', name: 'Linus Torvalds' }], Organization: [] });
    const two = await graphql(pipeline, '{ Person(active: true, age: 30) { id } }');
    expect(ids(two.data!['Person'])).toEqual(engine.view('demo').scan('Person', { filter: { active: true, age: 30 } }).map((n) => n.id));
    const local = await referenceEngine();
    try {
      await local.commit({ graph: 'demo', mutations: [{ op: 'createNode', id: 'person-zz', label: 'Person', props: { name: 'No Mail' } }] });
      const none = await graphql(pipelineFor(local), '{ Person(email: null) { id email } }');
      const without = local.view('demo').scan('Person').filter((n) => n.props['email'] === undefined).map((n) => ({ id: n.id, email: null }));
      expect(without).toContainEqual({ id: 'person-zz', email: null });
      expect(none.data).toEqual({ Person: without });
    } finally {
      await local.close();
    }
  });

  it('refuses a negative first with the field named', async () => {
    const body = await graphql(pipeline, '{ Person(first: -1) { id } }');
    expect(body.data).toBeNull();
    expect(body.errors![0]).toMatchObject({ path: ['Person'], extensions: { code: 'TG_BAD_REQUEST' } });
    expect(body.errors![0]!.message).toContain('first must be a non-negative integer; got -1');
  });
});

describe('selections', () => {
  it('follows edges per parent with first/limit, keeping id order', async () => {
    const body = await graphql(pipeline, '{ Person(first: 3) { id KNOWS(first: 2) { id WORKS_AT { id } } } }');
    const view = engine.view('demo');
    const people = view.scan('Person', { first: 3 });
    expect(body.data!['Person']).toEqual(people.map((p) => ({
      id: p.id,
      KNOWS: view.expandEach([p], 'KNOWS', 'out')[0]!.slice(0, 2).map((k) => ({ id: k.id, WORKS_AT: view.expandEach([k], 'WORKS_AT', 'out')[0]!.map((o) => ({ id: o.id })) })),
    })));
  });

  it('answers aliases, incoming edges and __typename at every level', async () => {
    const body = await graphql(pipeline, '{ __typename who: Person(id: "person-001") { __typename n: name a: KNOWS(first: 1) { id } b: KNOWS(limit: 2) { id } fans: KNOWS_in { id } } }');
    expect(body.data).toEqual({
      __typename: 'Query',
      who: [{
        __typename: 'Person', n: 'Ada Lovelace',
        a: engine.view('demo').expandEach(['person-001'], 'KNOWS', 'out')[0]!.slice(0, 1).map((n) => ({ id: n.id })),
        b: engine.view('demo').expandEach(['person-001'], 'KNOWS', 'out')[0]!.slice(0, 2).map((n) => ({ id: n.id })),
        fans: engine.view('demo').expandEach(['person-001'], 'KNOWS', 'in')[0]!.map((n) => ({ id: n.id })),
      }],
    });
    expect(Object.keys((body.data!['who'] as object[])[0]!)).toEqual(['__typename', 'n', 'a', 'b', 'fans']);
  });

  it('answers named and inline fragments, variables with defaults, @skip and @include', async () => {
    const query = `query Q($n: Int = 2, $withMail: Boolean!, $noAge: Boolean = true) {
      Person(first: $n) { ...Who ... on Person { email @include(if: $withMail) age @skip(if: $noAge) } ... @skip(if: true) { rating } }
    }
    fragment Who on Person { id name }`;
    const body = await graphql(pipeline, query, { withMail: true });
    expect(body.data).toEqual({ Person: [
      { id: 'person-001', name: 'Ada Lovelace', email: 'ada.lovelace@example.org' },
      { id: 'person-002', name: 'Grace Hopper', email: 'grace.hopper@example.org' },
    ] });
    const other = await graphql(pipeline, query, { n: 1, withMail: false, noAge: false });
    expect(other.data).toEqual({ Person: [{ id: 'person-001', name: 'Ada Lovelace', age: 33 }] });
  });

  it('answers unions where an edge type reaches several labels', async () => {
    const body = await graphql(pipeline, `{ Person(id: "person-001") { AUTHORED { __typename ... on Document { title } ... on Repository { name } ... on Node { id } } } }`);
    const targets = engine.view('demo').expandEach(['person-001'], 'AUTHORED', 'out')[0]!;
    expect(new Set(targets.map((t) => t.label))).toEqual(new Set(['Document', 'Repository']));
    expect((body.data!['Person'] as { AUTHORED: unknown[] }[])[0]!.AUTHORED).toEqual(targets.map((t) => (t.label === 'Document'
      ? { __typename: 'Document', title: t.props['title'], id: t.id }
      : { __typename: 'Repository', name: t.props['name'], id: t.id })));
  });

  it('refuses an unknown root field in the spec\'s words, and unknown fields as invalid', async () => {
    const body = await graphql(pipeline, '{ Spaceship { id } }');
    expect(body.data).toBeUndefined();
    expect(body.errors![0]!.message).toMatch(/^GraphQL: no node type "Spaceship"/);
    expect(body.errors![0]!.message).toContain('root fields must be node labels');
    expect(body.errors![0]!.extensions?.code).toBe('TG_GRAPHQL_NO_NODE_TYPE');
    const field = await graphql(pipeline, '{ Person { shoeSize } }');
    expect(field.errors![0]!.extensions?.code).toBe('TG_GRAPHQL_INVALID');
    expect(field.errors![0]!.message).toContain('Cannot query field "shoeSize" on type "Person"');
  });

  it('nulls an Int property outside GraphQL\'s 32-bit range with a field error', async () => {
    const local = await referenceEngine();
    try {
      await local.commit({ graph: 'demo', mutations: [{ op: 'updateNode', id: 'person-001', set: { age: 2 ** 40 } }] });
      const body = await graphql(pipelineFor(local), '{ Person(first: 2) { id age } }');
      expect(body.data).toEqual({ Person: [{ id: 'person-001', age: null }, { id: 'person-002', age: 30 }] });
      expect(body.errors).toEqual([expect.objectContaining({ path: ['Person', 0, 'age'], extensions: { code: 'TG_VALUE_INVALID' } })]);
    } finally {
      await local.close();
    }
  });
});

describe('breadth-first execution', () => {
  it('does one scan per root field and one expansion per edge field and level, never a lookup per row', async () => {
    const { engine: counted, calls } = counting(engine);
    const p = pipelineFor(counted);
    await graphql(p, '{ __typename }');
    for (const key of Object.keys(calls)) calls[key] = 0;
    const body = await graphql(p, '{ Person { id KNOWS { id WORKS_AT { name OWNS { id } } } WORKS_AT { id } } }');
    expect((body.data!['Person'] as unknown[]).length).toBe(30);
    // Levels: KNOWS and WORKS_AT under Person, WORKS_AT under KNOWS, OWNS under that: 4 expansions.
    expect(calls).toEqual({ scan: 1, expandEach: 4, expand: 0, node: 0, edges: 0 });
  });

  it('expands a union position once per label it holds', async () => {
    const { engine: counted, calls } = counting(engine);
    const body = await graphql(pipelineFor(counted), '{ Person { AUTHORED { ... on Document { CITES { id } } ... on Repository { OWNS_in { id } } } } }');
    expect(body.errors).toBeUndefined();
    expect(calls).toEqual({ scan: 1, expandEach: 3, expand: 0, node: 0, edges: 0 });
  });
});

// ---- the fast path against graphql-js walking the same values ------------------------------------

interface Gen { query: string; variables: Record<string, boolean> }

const PROPS: Record<string, string[]> = {
  Person: ['name', 'age', 'active', 'email', 'rating', 'languages'],
  Organization: ['name', 'country', 'founded'],
  Project: ['name', 'stars', 'tags'],
  Document: ['title', 'pages'],
  Repository: ['name', 'stars'],
  Topic: ['name', 'weight'],
};
const EDGES: Record<string, [string, string][]> = {
  Person: [['KNOWS', 'Person'], ['WORKS_AT', 'Organization'], ['CONTRIBUTES_TO', 'Project'], ['KNOWS_in', 'Person'], ['AUTHORED', 'AuthoredTarget']],
  Organization: [['OWNS', 'Repository'], ['WORKS_AT_in', 'Person']],
  Project: [['TAGGED', 'Topic'], ['CONTRIBUTES_TO_in', 'Person']],
  Document: [['ABOUT', 'Topic'], ['CITES', 'Document']],
  Repository: [['OWNS_in', 'Organization']],
  Topic: [['ABOUT_in', 'Document']],
};

function selection(label: string, depth: number): fc.Arbitrary<string> {
  const members = label === 'AuthoredTarget' ? ['Document', 'Repository'] : [label];
  const fieldOf = (l: string): fc.Arbitrary<string> => {
    const scalars = fc.constantFrom('id', '__typename', ...PROPS[l]!);
    const edges = depth >= 2 ? [] : EDGES[l]!.map(([name, target]) => fc.tuple(fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }), selection(target, depth + 1))
      .map(([first, sub]) => `${name}${first === undefined ? '' : `(first: ${first})`} { ${sub} }`));
    return fc.oneof({ weight: 3, arbitrary: scalars }, ...edges.map((arbitrary) => ({ weight: 1, arbitrary })));
  };
  const item = fc.oneof(
    ...members.map((l) => ({ weight: 4, arbitrary: fc.tuple(fieldOf(l), fc.boolean(), fc.constantFrom('', ' @include(if: $yes)', ' @skip(if: $yes)', ' @skip(if: false)'))
      .map(([field, inline, directive]) => (label === 'AuthoredTarget' || inline ? `... on ${l}${directive} { ${field} }` : `${field}${field.includes('{') ? '' : directive}`)) })),
  );
  return fc.array(item, { minLength: 1, maxLength: 4 }).map((items) => items.join(' '));
}

const operation: fc.Arbitrary<Gen> = fc.tuple(
  fc.constantFrom(...Object.keys(PROPS)), fc.integer({ min: 0, max: 6 }), fc.boolean(),
).chain(([label, first, yes]) => selection(label, 0).map((generated) => {
  // Every edge field gets its own alias, so fields with different arguments never merge.
  let n = 0;
  const sel = generated.replace(/(?<!on )\b([A-Z][A-Za-z_]*)(?=(\(first: \d+\))? \{)/g, (name) => `e${n++}: ${name}`);
  return {
  query: `query Q($yes: Boolean!) { root: ${label}(first: ${first}) { __typename @include(if: $yes) ${sel} } }`,
  variables: { yes },
  };
}));

describe('executor against graphql-js', () => {
  it('answers exactly what graphql-js gives walking the same schema (random selections)', async () => {
    await fc.assert(fc.asyncProperty(operation, async ({ query, variables }) => {
      const fast = await graphql(pipeline, query, variables);
      expect(fast.errors, query).toBeUndefined();
      // Selecting __type sends the operation through graphql-js, whose resolvers read the shaped values.
      const slow = await graphql(pipeline, query.replace('{ root:', '{ __type(name: "Query") { name } root:'), variables);
      expect(slow.errors, query).toBeUndefined();
      expect(JSON.stringify(slow.data!['root']), query).toBe(JSON.stringify(fast.data!['root']));
    }), { numRuns: 150 });
  });
});

describe('parameters of a document already prepared', () => {
  const query = '{ Person(first: 1) { id } }';
  const run = async (params: Record<string, unknown>, method: 'GET' | 'POST' = 'POST') => JSON.parse((await pipeline.run({
    graph: 'demo', principal: { subject: 'x', scopes: ['*'] }, method, params,
  })).body) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] };

  it('still go through every check the plain path skips', async () => {
    expect((await run({ query })).data).toEqual({ Person: [{ id: 'person-001' }] });
    expect((await run({ query, variables: null, operationName: null })).data).toEqual({ Person: [{ id: 'person-001' }] });
    expect((await run({ query, bogus: 1 })).errors?.[0]?.message).toMatch(/^Unexpected parameter "bogus"/);
    expect((await run({ query, variables: [1] })).errors?.[0]?.message).toMatch(/^Expected "variables" to be an object or null/);
    expect((await run({ query, operationName: 5 })).errors?.[0]?.message).toMatch(/^Expected "operationName" to be a string or null/);
    expect((await run({ query: '' })).errors?.[0]?.extensions.code).toBe('TG_BAD_REQUEST');
    // APQ sees the extension even for a known text: a wrong hash is refused.
    const mismatch = await run({ query, extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } } });
    expect(mismatch.errors?.[0]?.extensions.code).toBe('TG_PERSISTED_QUERY_MISMATCH');
    // A query (never a mutation) by GET from the same cache entry.
    expect((await run({ query }, 'GET')).data).toEqual({ Person: [{ id: 'person-001' }] });
  });
});

describe('a prepared document run again', () => {
  it('shapes new rows with the steps it kept, and re-plans selections under directives', async () => {
    const query = 'query ($id: ID, $x: Boolean!) { Person(id: $id) { id name nick: name @include(if: $x) __typename } }';
    const first = await graphql(pipeline, query, { id: 'person-001', x: true });
    expect(first.data).toEqual({ Person: [{ id: 'person-001', name: 'Ada Lovelace', nick: 'Ada Lovelace', __typename: 'Person' }] });
    expect((await graphql(pipeline, query, { id: 'person-002', x: false })).data).toEqual({ Person: [{ id: 'person-002', name: 'Grace Hopper', __typename: 'Person' }] });
    const plain = '{ Person(first: 2) { id name } }';
    const again = [await graphql(pipeline, plain), await graphql(pipeline, plain)];
    expect(again[1]).toEqual(again[0]);
    expect(again[0]!.data).toEqual({ Person: [{ id: 'person-001', name: 'Ada Lovelace' }, { id: 'person-002', name: 'Grace Hopper' }] });
  });
});
