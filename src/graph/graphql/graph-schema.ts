import { buildSubgraphSchema } from '@apollo/subgraph';
import { GraphQLScalarType, parse, type GraphQLSchema } from 'graphql';
import type { GraphCatalogue, PropertyType } from '../engine/index.ts';
import { schemaModelFromCatalogue, sdlFromModel, type EdgeField, type LabelModel, type SchemaModel } from '../schema/index.ts';
import { genericResolvers } from './generic-resolvers.ts';

/** A label's field as the executor reads it: the node id, a property, or an edge to follow. */
export type NodeField =
  | { readonly kind: 'id' }
  | { readonly kind: 'property'; readonly name: string; readonly type: PropertyType }
  | { readonly kind: 'edge'; readonly edge: EdgeField };

export interface LabelPlan {
  readonly model: LabelModel;
  /** GraphQL field name → what it reads. */
  readonly fields: ReadonlyMap<string, NodeField>;
}

/** What a Query field is: a label list, a label connection, or one of federation's fields. */
export type RootField =
  | { readonly kind: 'list'; readonly label: string }
  | { readonly kind: 'connection'; readonly label: string }
  | { readonly kind: 'entities' }
  | { readonly kind: 'service' };

/**
 * The GraphQL schema of one catalogue epoch with the lookup tables the executor needs. Equal
 * catalogues have equal epochs, so graphs with the same catalogue share one GraphSchema.
 */
export interface GraphSchema {
  readonly epoch: string;
  readonly schema: GraphQLSchema;
  readonly model: SchemaModel;
  /** The subgraph SDL exactly as `npm run introspect` prints it (and `_service { sdl }` serves it). */
  readonly sdl: string;
  readonly labels: ReadonlyMap<string, LabelPlan>;
  readonly roots: ReadonlyMap<string, RootField>;
  /** `<Label>Connection` and `<Label>Edge` type names → label. */
  readonly connectionTypes: ReadonlyMap<string, string>;
  readonly edgeTypes: ReadonlyMap<string, string>;
  /** Union names → member labels. */
  readonly unions: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Arbitrary JSON in and out (createNode's props, updateNode's set). */
const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Arbitrary JSON: the props of createNode and the set of updateNode.',
});

function labelPlan(model: LabelModel): LabelPlan {
  const fields = new Map<string, NodeField>([['id', { kind: 'id' }]]);
  for (const p of model.properties) fields.set(p.name, { kind: 'property', name: p.name, type: p.type });
  for (const e of model.edges) fields.set(e.name, { kind: 'edge', edge: e });
  return { model, fields };
}

/** Builds the executable subgraph schema of a catalogue (same SDL as `npm run introspect`). */
export function buildGraphSchema(catalogue: GraphCatalogue): GraphSchema {
  const model = schemaModelFromCatalogue(catalogue);
  const sdl = sdlFromModel(model);
  const labels = new Map<string, LabelPlan>();
  const roots = new Map<string, RootField>([['_entities', { kind: 'entities' }], ['_service', { kind: 'service' }]]);
  const connectionTypes = new Map<string, string>();
  const edgeTypes = new Map<string, string>();
  for (const label of model.labels) {
    labels.set(label.label, labelPlan(label));
    roots.set(label.label, { kind: 'list', label: label.label });
    roots.set(label.connectionType, { kind: 'connection', label: label.label });
    connectionTypes.set(label.connectionType, label.label);
    edgeTypes.set(label.edgeType, label.label);
  }
  const unions = new Map<string, ReadonlySet<string>>(model.unions.map((u) => [u.name, new Set(u.members)]));
  const partial = { epoch: catalogue.epoch, model, sdl, labels, roots, connectionTypes, edgeTypes, unions };
  const resolvers = genericResolvers(partial);
  const schema = buildSubgraphSchema({
    typeDefs: parse(sdl),
    resolvers: { JSON: JSONScalar, ...resolvers } as SubgraphResolvers,
  });
  return { ...partial, schema };
}

export type GraphSchemaParts = Omit<GraphSchema, 'schema'>;

type SubgraphResolvers = NonNullable<Extract<Parameters<typeof buildSubgraphSchema>[0], { typeDefs: unknown }>['resolvers']>;

/**
 * GraphSchemas by catalogue epoch, most recently used kept. A request takes the schema of the
 * epoch it sees and keeps it to the end, so a rebuild never disturbs requests in flight.
 */
export class GraphSchemaCache {
  readonly #byEpoch = new Map<string, GraphSchema>();
  readonly #max: number;

  constructor(max = 32) {
    this.#max = max;
  }

  #last: GraphSchema | undefined;

  get(catalogue: GraphCatalogue): GraphSchema {
    if (this.#last?.epoch === catalogue.epoch) return this.#last;
    const schema = this.#lookup(catalogue);
    this.#last = schema;
    return schema;
  }

  #lookup(catalogue: GraphCatalogue): GraphSchema {
    const hit = this.#byEpoch.get(catalogue.epoch);
    if (hit) {
      // Re-insert to mark it most recently used.
      this.#byEpoch.delete(catalogue.epoch);
      this.#byEpoch.set(catalogue.epoch, hit);
      return hit;
    }
    const built = buildGraphSchema(catalogue);
    this.#byEpoch.set(catalogue.epoch, built);
    if (this.#byEpoch.size > this.#max) this.#byEpoch.delete(this.#byEpoch.keys().next().value!);
    return built;
  }
}
