import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { createRequire } from 'node:module';
import type * as GraphQL from 'graphql';
import type { GraphQLSchema } from 'graphql';
import type { CarrierPrincipal } from '../../src/graph/carrier/index.ts';
import type { GraphCatalogue, GraphView, NodeRecord, Scalar } from '../../src/graph/engine/index.ts';
import { schemaModelFromCatalogue, sdlFromCatalogue } from '../../src/graph/schema/index.ts';

// The CommonJS build of graphql, the one @apollo/subgraph builds schemas with: vitest would otherwise
// load the ESM build beside it, and graphql refuses a schema from "another module or realm".
const { parse } = createRequire(import.meta.url)('graphql') as typeof GraphQL;

/**
 * The carrier benchmark's stock-GraphQL peer (scripts/bench/carrier-server.ts): graphql-js `execute`
 * over `buildSubgraphSchema` of the graph's SDL, with plain per-parent resolvers over the GraphView
 * and a row filter in place of row-level security, run once per subscriber per event as a stock
 * GraphQL server would. The carrier's own tests run the product's executor (graph/graphql).
 */
export type RowFilter = (principal: CarrierPrincipal, node: NodeRecord) => boolean;

/** The RLS double: a node with a `team` property is visible only to principals in that group. */
export const teamRows: RowFilter = (principal, node) => {
  const team = node.props['team'];
  return typeof team !== 'string' || principal.groups.includes(team);
};

interface Context {
  readonly view: GraphView;
  readonly principal: CarrierPrincipal;
  readonly visible: RowFilter;
}

type Args = Record<string, unknown>;

function limitOf(args: Args): number {
  const bounds = [args['first'], args['limit']].filter((v): v is number => typeof v === 'number');
  return bounds.length === 0 ? Infinity : Math.min(...bounds);
}

type Subscribe = () => AsyncIterable<unknown>;

function resolversFor(catalogue: GraphCatalogue, subscribe?: Subscribe): GraphQLResolverMap<unknown> {
  const model = schemaModelFromCatalogue(catalogue);
  const subscription: Record<string, { resolve: (root: unknown, args: Args, ctx: Context) => NodeRecord[]; subscribe?: Subscribe }> = {};
  const map: GraphQLResolverMap<unknown> = {};
  for (const label of model.labels) {
    subscription[label.label] = {
      resolve(_root, args, ctx) {
        const filter: Record<string, Scalar> = {};
        for (const [name, value] of Object.entries(args)) if (name !== 'first' && name !== 'limit') filter[name] = value as Scalar;
        return ctx.view.scan(label.label, { filter }).filter((n) => ctx.visible(ctx.principal, n)).slice(0, limitOf(args));
      },
      ...(subscribe ? { subscribe } : {}),
    };
    const fields: Record<string, (parent: NodeRecord, args: Args, ctx: Context) => unknown> = { id: (parent) => parent.id };
    for (const p of label.properties) fields[p.name] = (parent) => parent.props[p.name] ?? null;
    for (const e of label.edges) {
      fields[e.name] = (parent, args, ctx) => ctx.view.expandEach([parent], e.edgeType, e.direction)[0]!
        .filter((n) => e.labels.includes(n.label) && ctx.visible(ctx.principal, n))
        .slice(0, limitOf(args));
    }
    map[label.label] = fields as never;
  }
  for (const union of model.unions) map[union.name] = { __resolveType: (node: NodeRecord) => node.label } as never;
  map['Node'] = { __resolveType: (node: NodeRecord) => node.label } as never;
  map['Subscription'] = subscription as never;
  return map;
}

/**
 * The stand-in schema: the graph's subgraph SDL with the resolvers above. With `subscribe`, each
 * Subscription field also gets it as its event source, so a stock GraphQL server (the benchmark's
 * Yoga peer) runs the same resolvers once per subscriber per event.
 */
export function standInSchema(catalogue: GraphCatalogue, subscribe?: Subscribe): GraphQLSchema {
  return buildSubgraphSchema({ typeDefs: parse(sdlFromCatalogue(catalogue)), resolvers: resolversFor(catalogue, subscribe) });
}

/** The context the stand-in resolvers read. */
export function standInContext(view: GraphView, principal: CarrierPrincipal, visible: RowFilter = teamRows): Context {
  return { view, principal, visible };
}
