import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEngine, MutationInput } from '../../../src/graph/engine/index.ts';
import { runCypherJson } from '../../../src/graph/cypher/index.ts';
import { dataFromCypher, translateToCypher, type GraphSchema } from '../../../src/graph/graphql/index.ts';
import { replaceNamespace } from '../../../src/graph/schema/index.ts';
import { openEngine } from '../engine/helpers.ts';
import { graphql, graphqlOptions, pipelineFor } from './support.ts';

/**
 * The differential property of issue 8: for random small graphs and random queries (filters,
 * aliases, fragments, nested edges, first/limit, @skip/@include, unions), the GraphQL response's
 * `data` and the data the translated Cypher statements return serialise to the same bytes (RFC 8785;
 * GraphQL orders keys by selection, Cypher's results by code point).
 */

const LABELS = ['Person', 'Org', 'Order'] as const;
const EDGE_TYPES = ['KNOWS', 'OWNS', 'match'] as const;
const NAMES = ['Ann', 'Bob', "O'Neil", 'é\u00e9', 'back\\slash', '', 'line\nbreak', '😀'];

interface PropGen { readonly name: string; readonly arb: fc.Arbitrary<unknown> }

// One type per property name across labels, so the catalogue's types are predictable; Int stays in 32 bits.
const PROPS: readonly PropGen[] = [
  { name: 'name', arb: fc.constantFrom(...NAMES) },
  { name: 'n', arb: fc.integer({ min: -3, max: 3 }) },
  { name: 'big', arb: fc.integer({ min: -2147483648, max: 2147483647 }) },
  { name: 'f', arb: fc.constantFrom(0.5, -1.25, 1.5e-21, 3.5e-7, 12345.678) },
  { name: 'ok', arb: fc.boolean() },
  { name: 'tags', arb: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }) },
  { name: 'type', arb: fc.constantFrom('x', 'y') },
];

interface GraphSpec {
  readonly nodes: readonly { id: string; label: string; props: Record<string, unknown> }[];
  readonly edges: readonly { src: number; tgt: number; type: string }[];
}

const nodeArb = fc.record({
  label: fc.constantFrom(...LABELS),
  props: fc.record(Object.fromEntries(PROPS.map((p) => [p.name, p.arb])) as Record<string, fc.Arbitrary<unknown>>, { requiredKeys: [] }),
});

const graphArb: fc.Arbitrary<GraphSpec> = fc.array(nodeArb, { minLength: 1, maxLength: 9 }).chain((nodes) => fc.record({
  nodes: fc.constant(nodes.map((n, i) => ({ id: i % 3 === 2 ? `n${i}-é` : `n${i}`, ...n }))),
  edges: fc.array(fc.record({ src: fc.nat(nodes.length - 1), tgt: fc.nat(nodes.length - 1), type: fc.constantFrom(...EDGE_TYPES) }), { maxLength: 16 }),
}));

/** A small deterministic PRNG: queries are drawn from the graph's own schema with a seed fast-check picks. */
function random(seed: number): { int(n: number): number; chance(p: number): boolean; pick<T>(items: readonly T[]): T } {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

/** A random query over the schema: text plus variables, with fragments kept in a side list. */
function randomQuery(schema: GraphSchema, spec: GraphSpec, seed: number): { query: string; variables: Record<string, unknown> } {
  const r = random(seed);
  // A label's type and root field: the label itself, or its namespaced names.
  const type = (label: string): string => schema.labels.get(label)!.model.typeName;
  const fragments: string[] = [];
  const variableDefs: string[] = [];
  const variables: Record<string, unknown> = {};
  let aliasCount = 0;
  // Aliases are unique; some are Cypher's reserved words, which the translation must quote.
  const RESERVED = ['end', 'where', 'order', 'return'];
  const fresh = (): string => (aliasCount < RESERVED.length && r.chance(0.3) ? RESERVED[aliasCount++]! : `a${aliasCount++}`);
  const alias = (): string => (r.chance(0.25) ? `${fresh()}: ` : '');
  const directive = (): string => {
    if (!r.chance(0.15)) return '';
    if (r.chance(0.5)) return ` @skip(if: ${r.chance(0.5)})`;
    const name = `inc${variableDefs.length}`;
    variableDefs.push(`$${name}: Boolean!`);
    variables[name] = r.chance(0.5);
    return ` @include(if: $${name})`;
  };
  const pageArgs = (): string[] => {
    const args: string[] = [];
    if (r.chance(0.3)) args.push(`first: ${r.int(4)}`);
    if (r.chance(0.2)) {
      const name = `lim${variableDefs.length}`;
      variableDefs.push(`$${name}: Int`);
      const value = r.chance(0.2) ? null : r.int(4);
      if (r.chance(0.8)) variables[name] = value;
      args.push(`limit: $${name}`);
    }
    return args;
  };

  // Fields of one response key must agree (same arguments; inside union members, the same type):
  // an edge field with arguments, or one under a union member, gets an alias of its own.
  const selection = (label: string, depth: number, member = false): string => {
    const plan = schema.labels.get(label)!;
    const parts: string[] = [];
    const count = 1 + r.int(4);
    for (let i = 0; i < count; i++) {
      const choice = r.int(10);
      if (choice === 0) parts.push(`${alias()}__typename${directive()}`);
      else if (choice === 1) parts.push(`${alias()}id${directive()}`);
      else if (choice <= 5 || depth >= 3) {
        const props = plan.model.properties;
        if (props.length > 0) parts.push(`${alias()}${r.pick(props).name}${directive()}`);
        else parts.push('id');
      } else if (choice <= 8 && plan.model.edges.length > 0) {
        const edge = r.pick(plan.model.edges);
        const args = pageArgs();
        const inner = edge.labels.length === 1
          ? selection(edge.labels[0]!, depth + 1, member)
          : [r.chance(0.5) ? '__typename' : `... on ${schema.names.nodeType} { id }`, ...edge.labels.filter(() => r.chance(0.7)).map((l) => `... on ${type(l)} { ${selection(l, depth + 1, true)} }`)].join(' ');
        const key = args.length > 0 || member ? `${fresh()}: ` : alias();
        parts.push(`${key}${edge.name}${args.length > 0 ? `(${args.join(', ')})` : ''}${directive()} { ${inner} }`);
      } else if (r.chance(0.5)) {
        parts.push(`... on ${type(label)}${directive()} { ${selection(label, depth + 1, member)} }`);
      } else {
        const name = `F${fragments.length}`;
        fragments.push('');
        const index = fragments.length - 1;
        fragments[index] = `fragment ${name} on ${type(label)} { ${selection(label, depth + 1, member)} }`;
        parts.push(`...${name}${directive()}`);
      }
    }
    return parts.join(' ');
  };

  const roots: string[] = [];
  const labels = [...schema.labels.keys()];
  const rootCount = 1 + r.int(2);
  for (let i = 0; i < rootCount; i++) {
    const label = r.pick(labels);
    const model = schema.labels.get(label)!.model;
    const args = pageArgs();
    const nodesOf = spec.nodes.filter((n) => n.label === label);
    if (r.chance(0.4) && model.filters.length > 0) {
      const filter = r.pick(model.filters);
      const seen = nodesOf.map((n) => n.props[filter.name]).filter((v) => v !== undefined);
      const value = r.chance(0.2) || seen.length === 0 ? null : r.pick(seen);
      if (r.chance(0.5)) args.push(`${filter.name}: ${JSON.stringify(value)}`);
      else {
        const name = `v${variableDefs.length}`;
        variableDefs.push(`$${name}: ${filter.graphqlType}`);
        variables[name] = value;
        args.push(`${filter.name}: $${name}`);
      }
    }
    if (r.chance(0.1) && nodesOf.length > 0) args.push(`id: ${JSON.stringify(r.pick(nodesOf).id)}`);
    roots.push(`${i > 0 || r.chance(0.2) ? `${r.chance(0.3) ? 'with' : 'r'}${i}: ` : ''}${model.listField}${args.length > 0 ? `(${args.join(', ')})` : ''} { ${selection(label, 0)} }`);
  }
  if (r.chance(0.1)) roots.push('__typename');
  const head = variableDefs.length > 0 ? `query Q(${variableDefs.join(', ')}) ` : r.chance(0.5) ? 'query ' : '';
  return { query: `${head}{ ${roots.join(' ')} } ${fragments.join(' ')}`, variables };
}

let engine: GraphEngine;
let graphs = 0;
beforeAll(async () => {
  engine = await openEngine();
});
afterAll(async () => {
  await engine.close();
});

async function load(spec: GraphSpec, namespaced = false): Promise<string> {
  const graph = `g${++graphs}`;
  await engine.createGraph(graph);
  if (namespaced) await replaceNamespace(engine, graph, `ns${graphs}`);
  const mutations: MutationInput[] = spec.nodes.map((n) => ({ op: 'createNode', id: n.id, label: n.label, props: n.props as never }));
  const seen = new Set<string>();
  for (const e of spec.edges) {
    const src = spec.nodes[e.src]!.id;
    const tgt = spec.nodes[e.tgt]!.id;
    const key = `${src}\u0000${tgt}\u0000${e.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    mutations.push({ op: 'addEdge', src, tgt, type: e.type });
  }
  await engine.commit({ graph, mutations });
  return graph;
}

describe('GraphQL → Cypher: differential', () => {
  const differential = async (runs: number, namespaced: boolean): Promise<{ nested: number; unions: number }> => {
    // Random selections count many aliases and fields: the limits are not what this test is about.
    const pipeline = pipelineFor(engine, graphqlOptions({
      TOOLGRAPH_GRAPHQL_MAX_ALIASES: '10000', TOOLGRAPH_GRAPHQL_MAX_COST: '100000000', TOOLGRAPH_GRAPHQL_MAX_DEPTH: '100',
      TOOLGRAPH_GRAPHQL_MAX_DIRECTIVES: '10000', TOOLGRAPH_GRAPHQL_MAX_TOKENS: '100000', TOOLGRAPH_GRAPHQL_MAX_FIELDS: '100000',
    }));
    let unions = 0;
    let nested = 0;
    await fc.assert(fc.asyncProperty(graphArb, fc.integer(), async (spec, seed) => {
      const graph = await load(spec, namespaced);
      try {
        const schema = pipeline.schemaOf(graph);
        const { query, variables } = randomQuery(schema, spec, seed);
        const body = await graphql(pipeline, query, variables, undefined, graph);
        expect(body.errors, query).toBeUndefined();
        const translation = translateToCypher(schema, query, { variables });
        if (translation.plan.some((s) => s.kind === 'expand')) nested++;
        if (translation.roots.some((t) => t.cypher.includes('CASE'))) unions++;
        const results = [];
        for (const root of translation.roots) {
          const text = await runCypherJson(engine, graph, root.cypher);
          const parsed = JSON.parse(text) as { rows: unknown[][]; version: number };
          expect(parsed.version).toBe(body.extensions?.version);
          results.push(parsed);
        }
        const cypherBytes = canonicalize(dataFromCypher(translation, results));
        expect(cypherBytes, `${query}\n${JSON.stringify(variables)}\n${translation.roots.map((t) => t.cypher).join('\n')}`).toBe(canonicalize(body.data));
      } finally {
        await engine.dropGraph(graph);
      }
    }), { numRuns: runs });
    return { nested, unions };
  };

  it('the GraphQL data and the translated Cypher data serialise to the same bytes (1000 random graphs and queries)', async () => {
    const { nested, unions } = await differential(1000, false);
    // The generator reaches the interesting shapes, not only flat scans.
    expect(nested).toBeGreaterThan(300);
    expect(unions).toBeGreaterThan(20);
  }, 120_000);

  it('the same holds for graphs with a namespace (prefixed root fields, type conditions and __typename; 300 random graphs)', async () => {
    const { nested, unions } = await differential(300, true);
    expect(nested).toBeGreaterThan(90);
    expect(unions).toBeGreaterThan(5);
  }, 120_000);
});
