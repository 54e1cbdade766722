import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { createRequire } from 'node:module';
import type * as GraphQL from 'graphql';
import type { DocumentNode, GraphQLError, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { ToolgraphError } from '../../src/errors/index.ts';
import type { CarrierPrincipal, SubscriptionExecutor, SubscriptionResult } from '../../src/graph/carrier/index.ts';
import type { GraphCatalogue, GraphView, NodeRecord, Scalar } from '../../src/graph/engine/index.ts';
import { schemaModelFromCatalogue, sdlFromCatalogue } from '../../src/graph/schema/index.ts';

// The CommonJS build of graphql, the one @apollo/subgraph builds schemas with: vitest would otherwise
// load the ESM build beside it, and graphql refuses a schema from "another module or realm".
const { Kind, execute, getVariableValues, parse, validate } = createRequire(import.meta.url)('graphql') as typeof GraphQL;

/**
 * A stand-in for the GraphQL surface's subscription executor (issue 8), for tests and the carrier
 * benchmark only: graphql-js `execute` over `buildSubgraphSchema` of the graph's SDL, with plain
 * per-parent resolvers over the GraphView and a row filter standing in for row-level security.
 */
export type RowFilter = (principal: CarrierPrincipal, node: NodeRecord) => boolean;

/** The RLS double: a node with a `team` property is visible only to principals in that group. */
export const teamRows: RowFilter = (principal, node) => {
  const team = node.props['team'];
  return typeof team !== 'string' || principal.groups.includes(team);
};

/** `teamRows` with the groups an access double grants on top of the signed ones. */
export function teamRowsOf(access: { groupsOf(principal: CarrierPrincipal): readonly string[] }): RowFilter {
  return (principal, node) => {
    const team = node.props['team'];
    return typeof team !== 'string' || access.groupsOf(principal).includes(team);
  };
}

interface Context {
  readonly view: GraphView;
  readonly principal: CarrierPrincipal;
  readonly visible: RowFilter;
}

interface Prepared {
  readonly query: string;
  readonly document: DocumentNode;
  readonly variables: Readonly<Record<string, unknown>> | null;
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

function refusal(error: GraphQLError): ToolgraphError {
  const root = /^Cannot query field "([^"]+)" on type "Subscription"/.exec(error.message);
  if (root) return new ToolgraphError('TG_GRAPHQL_NO_NODE_TYPE', `GraphQL: no node type "${root[1]}"; root fields must be node labels.`);
  return new ToolgraphError('TG_GRAPHQL_INVALID', `The subscription does not validate: ${error.message}`);
}

export interface TestExecutor extends SubscriptionExecutor<Prepared> {
  /** Executor runs so far. */
  runs: number;
  /** When set, runs throw it (an executor fault): runs of `failQuery` only, when that is set too. */
  failWith: Error | undefined;
  failQuery: string | undefined;
}

export function createTestExecutor(options: { visible?: RowFilter } = {}): TestExecutor {
  const visible = options.visible ?? teamRows;
  const schemas = new Map<string, GraphQLSchema>();
  const schemaFor = (catalogue: GraphCatalogue): GraphQLSchema => {
    let schema = schemas.get(catalogue.epoch);
    if (!schema) {
      schema = standInSchema(catalogue);
      schemas.set(catalogue.epoch, schema);
    }
    return schema;
  };
  const executor: TestExecutor = {
    runs: 0,
    failWith: undefined,
    failQuery: undefined,
    prepare(catalogue, request) {
      const schema = schemaFor(catalogue);
      const errors = validate(schema, request.document);
      if (errors.length > 0) throw refusal(errors[0]!);
      const operation = request.document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
      if (coerced.errors) throw new ToolgraphError('TG_GRAPHQL_INVALID', `The subscription variables do not fit: ${coerced.errors[0]!.message}`);
      return { query: request.query, document: request.document, variables: request.variables };
    },
    run(view, prepared, principal): SubscriptionResult {
      executor.runs++;
      if (executor.failWith && (executor.failQuery === undefined || executor.failQuery === prepared.query)) throw executor.failWith;
      const result = execute({
        schema: schemaFor(view.catalogue),
        document: prepared.document,
        variableValues: prepared.variables ?? {},
        contextValue: { view, principal, visible } satisfies Context,
      });
      if (result instanceof Promise) throw new Error('the test executor resolves synchronously');
      const data = (result.data ?? null) as SubscriptionResult['data'];
      return result.errors ? { data, errors: result.errors.map((e) => ({ message: e.message, ...(e.path ? { path: e.path } : {}) })) } : { data };
    },
  };
  return executor;
}
