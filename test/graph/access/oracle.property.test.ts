import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replaceAccessPolicy, type AccessPolicy, type Operand, type Predicate } from '../../../src/graph/access/index.ts';
import type { GraphEngine, MutationInput, NodeRecord } from '../../../src/graph/engine/index.ts';
import { encodeCursor } from '../../../src/graph/graphql/connection-page.ts';
import type { Principal } from '../../../src/principal/index.ts';
import { openEngine } from '../engine/helpers.ts';
import { pipelineFor } from '../graphql/support.ts';
import { ADMIN, cypher, gql, withoutVersion } from './fixture.ts';
import { predicateOver } from './predicate-arbitrary.ts';

const LABELS = ['Person', 'Document', 'Team'] as const;
const TEAMS = ['red', 'blue', 'green'];

interface NodeSpec { label: (typeof LABELS)[number]; team: string | null; level: number | null; tags: string[] | null }
interface Case { nodes: NodeSpec[]; edges: [number, number, string][]; rows: Partial<Record<string, Predicate>>; star: Predicate | null; groups: string[]; level: number | null }

const operand: fc.Arbitrary<Operand> = fc.oneof(
  fc.constantFrom<Operand>({ row: 'team' }, { row: 'level' }, { row: 'tags' }, { row: 'id' }, { row: 'absent' }),
  fc.constantFrom<Operand>({ claim: 'groups' }, { claim: 'level' }, { claim: 'sub' }, { claim: 'nothing' }),
  fc.oneof(fc.constantFrom(...TEAMS), fc.integer({ min: 0, max: 3 }), fc.constant(['red', 'blue'] as (string | number | boolean)[])).map((value): Operand => ({ value })),
);

const predicate = predicateOver(operand, { withCrossShrink: true });

const nodeSpec: fc.Arbitrary<NodeSpec> = fc.record({
  label: fc.constantFrom(...LABELS),
  team: fc.option(fc.constantFrom(...TEAMS)),
  level: fc.option(fc.integer({ min: 0, max: 3 })),
  tags: fc.option(fc.subarray(TEAMS, { minLength: 1 })),
});

const caseArb: fc.Arbitrary<Case> = fc.record({
  nodes: fc.array(nodeSpec, { minLength: 0, maxLength: 14 }),
  edges: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('LINKS', 'OWNS')), { maxLength: 20 }),
  rows: fc.record({ Person: predicate, Document: predicate, Team: predicate }, { requiredKeys: [] }),
  star: fc.option(predicate),
  groups: fc.subarray(TEAMS),
  level: fc.option(fc.integer({ min: 0, max: 3 })),
});

// ---- the oracle: an independent interpreter of the documented semantics -------------------------

type V = string | number | boolean | readonly (string | number | boolean)[] | undefined;
const U = 'unknown';
type T = boolean | typeof U;

function value(op: Operand, node: NodeRecord, claims: Record<string, V>): V {
  if ('row' in op) return op.row === 'id' ? node.id : (Object.hasOwn(node.props, op.row) ? node.props[op.row] as V : undefined);
  if ('claim' in op) return Object.hasOwn(claims, op.claim) ? claims[op.claim] : undefined;
  return op.value;
}
const scalar = (v: V): v is string | number | boolean => v !== undefined && !Array.isArray(v);

function truth(p: Predicate, node: NodeRecord, claims: Record<string, V>): T {
  if (typeof p === 'boolean') return p;
  if ('eq' in p) {
    const [a, b] = p.eq.map((o) => value(o, node, claims));
    return scalar(a) && scalar(b) ? a === b : U;
  }
  if ('in' in p) {
    const [a, b] = p.in.map((o) => value(o, node, claims));
    if (!scalar(a) || b === undefined) return U;
    return scalar(b) ? a === b : (b as readonly unknown[]).includes(a);
  }
  if ('not' in p) {
    const t = truth(p.not, node, claims);
    return t === U ? U : !t;
  }
  const parts = ('and' in p ? p.and : p.or).map((q) => truth(q, node, claims));
  if ('and' in p) return parts.includes(false) ? false : parts.includes(U) ? U : true;
  return parts.includes(true) ? true : parts.includes(U) ? U : false;
}

function policyOf(c: Case): AccessPolicy {
  const rows: Record<string, Predicate> = {};
  for (const [label, p] of Object.entries(c.rows)) if (p !== undefined) rows[label] = p;
  if (c.star !== null) rows['*'] = c.star;
  return { version: 1, read: [{ anyone: true }], write: [], rows };
}

function principalOf(c: Case): Principal {
  return { subject: 'u1', scopes: ['kg:read'], groups: c.groups, claims: { sub: 'u1', groups: c.groups, ...(c.level === null ? {} : { level: c.level }) } };
}

function mutationsOf(c: Case): MutationInput[] {
  // Fixed first nodes, one per label with every property, so every field the queries name exists.
  const base: NodeSpec[] = LABELS.map((label) => ({ label, team: 'red', level: 1, tags: ['red'] }));
  const nodes = [...base, ...c.nodes];
  const id = (i: number) => `n${String(i).padStart(2, '0')}`;
  const out: MutationInput[] = nodes.map((n, i) => ({
    op: 'createNode', id: id(i), label: n.label,
    props: { ...(n.team === null ? {} : { team: n.team }), ...(n.level === null ? {} : { level: n.level }), ...(n.tags === null ? {} : { tags: n.tags }) },
  }));
  // Every label pair over both edge types among the fixed nodes: every edge field exists on every label.
  const seen = new Set<string>();
  for (let s = 0; s < base.length; s++) {
    for (let t = 0; t < base.length; t++) {
      for (const type of ['LINKS', 'OWNS']) {
        out.push({ op: 'addEdge', src: id(s), tgt: id(t), type });
        seen.add(`${id(s)} ${id(t)} ${type}`);
      }
    }
  }
  for (const [s, t, type] of c.edges) {
    const key = `${id(s % nodes.length)} ${id(t % nodes.length)} ${type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ op: 'addEdge', src: id(s % nodes.length), tgt: id(t % nodes.length), type });
  }
  return out;
}

async function build(c: Case): Promise<GraphEngine> {
  const engine = await openEngine();
  await engine.createGraph('g');
  await engine.commit({ graph: 'g', mutations: mutationsOf(c) });
  return engine;
}

const ANY = '__typename ... on Person { id } ... on Document { id } ... on Team { id }';

const QUERIES = (ids: readonly string[]): [string, Record<string, unknown>?][] => [
  ...LABELS.map((l): [string] => [`{ ${l} { id team level tags LINKS { ${ANY} } OWNS { ${ANY} } LINKS_in { ${ANY} } } }`]),
  ...LABELS.map((l): [string, Record<string, unknown>] => [
    `query($c: String) { a: ${l}Connection(first: 2) { edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } b: ${l}Connection(last: 2, before: $c) { edges { cursor } pageInfo { hasNextPage hasPreviousPage } } c: ${l}Connection(first: 1, after: $c) { edges { cursor } pageInfo { hasNextPage hasPreviousPage } } d: ${l}(team: "red") { id } }`,
    { c: encodeCursor(l, ids[Math.floor(ids.length / 2)] ?? 'n00') },
  ]),
  ['query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Person { id } ... on Document { id } ... on Team { id } } }',
    { r: ids.map((id, i) => ({ __typename: LABELS[i % 3], id })) }],
];

const CYPHER = [
  'MATCH (n) RETURN count(n)',
  'MATCH (a)-[r]->(b) RETURN count(r)',
  'MATCH (p:Person) RETURN p ORDER BY p.id',
  'MATCH (a)-[:LINKS]->(b)-[:OWNS]->(c) RETURN a.id, b.id, c.id',
  "MATCH (d:Document) WHERE d.team = 'red' OR d.level > 1 RETURN count(d), collect(d.id)",
  'MATCH (a) OPTIONAL MATCH (a)-[:LINKS]-(b) RETURN a.id, count(b)',
];

describe('property: every surface answers as if the hidden rows were deleted', () => {
  it('GraphQL and Cypher for random graphs, policies and principals equal kg:admin on the oracle graph', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const engine = await build(c);
        const oracle = await build(c);
        try {
          await replaceAccessPolicy(engine, 'g', policyOf(c));
          const principal = principalOf(c);
          const claims = principal.claims as Record<string, V>;
          const policy = policyOf(c);
          const hidden: string[] = [];
          for (const node of engine.view('g').allNodes()) {
            const rule = policy.rows[node.label] ?? policy.rows['*'];
            if (rule === undefined || truth(rule, node, claims) !== true) hidden.push(node.id);
          }
          if (hidden.length > 0) await oracle.commit({ graph: 'g', mutations: hidden.map((id) => ({ op: 'deleteNode' as const, id })) });
          const ids = [...engine.view('g').allNodes()].map((n) => n.id);
          const [p1, p2] = [pipelineFor(engine), pipelineFor(oracle)];
          for (const [query, variables] of QUERIES(ids)) {
            const seen = await gql(p1, 'g', principal, query, variables);
            expect(seen['errors'], query).toBeUndefined();
            expect(withoutVersion(seen), query).toEqual(withoutVersion(await gql(p2, 'g', ADMIN, query, variables)));
          }
          for (const query of CYPHER) {
            const seen = await cypher(engine, 'g', principal, query);
            expect(seen['error'], query).toBeUndefined();
            expect(withoutVersion(seen), query).toEqual(withoutVersion(await cypher(oracle, 'g', ADMIN, query)));
          }
        } finally {
          await engine.close();
          await oracle.close();
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
