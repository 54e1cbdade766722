import { buildSubgraphSchema } from '@apollo/subgraph';
import {
  GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType,
  GraphQLSchema, GraphQLString, GraphQLUnionType, parse,
  type GraphQLField, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLFieldMap, type GraphQLInputType,
  type GraphQLInterfaceType, type GraphQLNamedType, type GraphQLOutputType,
} from 'graphql';
import { namespaceNames, sdlFromModel, type LabelModel, type NamespaceNames, type PropertyField, type SchemaModel, type UnionModel } from '../schema/index.ts';
import { GENERIC_RESOLVERS, fixedTypeResolvers } from './generic-resolvers.ts';

type Field = GraphQLField<unknown, unknown>;
type FieldMap = GraphQLFieldMap<unknown, unknown>;

/**
 * An object type whose field map is put together from field objects built before (graphql-js field
 * objects are plain data), instead of from a config: a label's property fields, and the root fields
 * of unchanged labels, are reused from one schema to the next rather than defined again.
 */
class AssembledObjectType extends GraphQLObjectType<unknown, unknown> {
  #fields: FieldMap | (() => FieldMap);

  constructor(name: string, interfaces: readonly GraphQLInterfaceType[], fields: () => FieldMap) {
    super({ name, interfaces: [...interfaces], fields: {} });
    this.#fields = fields;
  }

  override getFields(): FieldMap {
    if (typeof this.#fields === 'function') this.#fields = this.#fields();
    return this.#fields;
  }
}

/** Arbitrary JSON in and out (createNode's props, updateNode's set). */
const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Arbitrary JSON: the props of createNode and the set of updateNode.',
});

/**
 * What every graph's schema holds whatever its labels: built once per namespace (the Mutation fields
 * and the Node interface take its prefixes), by @apollo/subgraph, from the SDL of an empty graph.
 */
interface FixedParts {
  readonly base: GraphQLSchema;
  readonly json: GraphQLNamedType;
  readonly mutation: GraphQLObjectType;
  readonly node: GraphQLInterfaceType;
  readonly pageInfo: GraphQLObjectType;
  /** After the labels' types, in the order buildSubgraphSchema lists them. */
  readonly tail: readonly GraphQLNamedType[];
  readonly any: GraphQLScalarType;
  readonly serviceField: Field;
}

const fixedParts = new Map<string | null, FixedParts>();

/**
 * Builds the fixed parts now (once per process: tens of milliseconds of @apollo/subgraph's own
 * build), so the first schema a started server builds does not pay for them.
 */
export function warmSchemaAssembly(): void {
  fixed(namespaceNames(null));
}

function fixed(names: NamespaceNames): FixedParts {
  const known = fixedParts.get(names.namespace);
  if (known !== undefined) return known;
  const empty: SchemaModel = { epoch: '', names, labels: [], unions: [] };
  const base = buildSubgraphSchema({ typeDefs: parse(sdlFromModel(empty)), resolvers: { JSON: JSONScalar, ...fixedTypeResolvers(names.nodeType) } as SubgraphResolvers });
  const type = <T extends GraphQLNamedType>(name: string): T => {
    const found = base.getType(name);
    if (found === undefined) throw new Error(`the base subgraph schema has no type ${name}`);
    return found as T;
  };
  const parts: FixedParts = {
    base,
    json: type('JSON'),
    mutation: type('Mutation'),
    node: type(names.nodeType),
    pageInfo: type('PageInfo'),
    tail: ['PageInfo', 'EdgeResult', 'DeleteResult', 'link__Purpose', 'link__Import', 'federation__FieldSet', '_Any', '_Service'].map((name) => type(name)),
    any: type('_Any'),
    serviceField: base.getQueryType()!.getFields()['_service']!,
  };
  fixedParts.set(names.namespace, parts);
  return parts;
}

type SubgraphResolvers = NonNullable<Extract<Parameters<typeof buildSubgraphSchema>[0], { typeDefs: unknown }>['resolvers']>;

/** The fields graphql-js defines from a config (args and all), to be reused as plain objects. */
function fieldsOf(config: GraphQLFieldConfigMap<unknown, unknown>): FieldMap {
  return new GraphQLObjectType({ name: 'Fields', fields: config }).getFields();
}

/** A stand-in output type: templates get their real type when placed (`{ ...template, type }`). */
const PLACEHOLDER: GraphQLOutputType = GraphQLString;

const SCALARS: Readonly<Record<string, GraphQLScalarType>> = { String: GraphQLString, Int: GraphQLInt, Float: GraphQLFloat, Boolean: GraphQLBoolean };

function outputTypeOf(property: PropertyField): GraphQLOutputType {
  const list = property.type.startsWith('[');
  const scalar = SCALARS[list ? property.type.slice(1, -1) : property.type]!;
  return list ? new GraphQLList(new GraphQLNonNull(scalar)) : scalar;
}

function listOf(type: GraphQLOutputType): GraphQLOutputType {
  return new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));
}

const { rootField, shapedField, resolveLabel } = GENERIC_RESOLVERS;
const PAGE_ARGS: GraphQLFieldConfigArgumentMap = { first: { type: GraphQLInt }, limit: { type: GraphQLInt } };
const CONNECTION_ARGS: GraphQLFieldConfigArgumentMap = {
  first: { type: GraphQLInt }, last: { type: GraphQLInt }, after: { type: GraphQLString }, before: { type: GraphQLString }, cursor: { type: GraphQLString },
};

/** The edge field every label's edges are placed from: `(first: Int, limit: Int)`, read from the shaped value. */
let edgeTemplate: Field | undefined;
function edgeField(name: string, target: GraphQLNamedType): Field {
  edgeTemplate ??= fieldsOf({ edge: { type: PLACEHOLDER, args: PAGE_ARGS, resolve: shapedField } })['edge']!;
  return { ...edgeTemplate, name, type: listOf(target as GraphQLOutputType) };
}

/** The fields of `<Label>Edge` and `<Label>Connection`; `node` and `edges` take their type when placed. */
interface ConnectionTemplates {
  readonly node: Field;
  readonly cursor: Field;
  readonly edges: Field;
  readonly pageInfo: Field;
}

/** Per FixedParts: `pageInfo` references that schema's PageInfo object. */
const connectionFields = new WeakMap<FixedParts, ConnectionTemplates>();
function connectionTemplates(parts: FixedParts): ConnectionTemplates {
  let templates = connectionFields.get(parts);
  if (templates === undefined) {
    const fields = fieldsOf({
      node: { type: PLACEHOLDER, resolve: shapedField },
      cursor: { type: new GraphQLNonNull(GraphQLString), resolve: shapedField },
      edges: { type: PLACEHOLDER, resolve: shapedField },
      pageInfo: { type: new GraphQLNonNull(parts.pageInfo), resolve: shapedField },
    });
    templates = { node: fields['node']!, cursor: fields['cursor']!, edges: fields['edges']!, pageInfo: fields['pageInfo']! };
    connectionFields.set(parts, templates);
  }
  return templates;
}

/** What a label contributes that depends on its own model alone: built once per LabelModel. */
interface LabelParts {
  /** `id` and the properties, in order. */
  readonly own: readonly Field[];
  /** Root field templates (args defined once); placed with the label's type of each schema. */
  readonly list: Field;
  readonly connection: Field;
  readonly subscription: Field;
}

function labelParts(model: LabelModel): LabelParts {
  const own: GraphQLFieldConfigMap<unknown, unknown> = { id: { type: new GraphQLNonNull(GraphQLID), resolve: shapedField } };
  for (const p of model.properties) own[p.name] = { type: outputTypeOf(p), resolve: shapedField };
  const filters: GraphQLFieldConfigArgumentMap = { id: { type: GraphQLID } };
  for (const f of model.filters) filters[f.name] = { type: outputTypeOf(f) as GraphQLInputType };
  const roots = fieldsOf({
    list: { type: PLACEHOLDER, args: { ...PAGE_ARGS, ...filters }, resolve: rootField },
    connection: { type: PLACEHOLDER, args: { ...CONNECTION_ARGS, ...filters }, resolve: rootField },
    subscription: { type: PLACEHOLDER, args: { ...PAGE_ARGS, ...filters } },
  });
  return { own: Object.values(fieldsOf(own)), list: roots['list']!, connection: roots['connection']!, subscription: roots['subscription']! };
}

/** A label as one schema placed it: its type, its connection types and root fields, and the types its edge fields reach. */
interface PlacedLabel {
  readonly type: GraphQLObjectType;
  readonly connection: GraphQLObjectType;
  readonly edge: GraphQLObjectType;
  readonly listField: Field;
  readonly connectionField: Field;
  readonly subscriptionField: Field;
  /** The type objects this label's edge fields reference, in edge order (what placing it assumed). */
  readonly targets: readonly GraphQLNamedType[];
}

interface PlacedUnion {
  readonly type: GraphQLUnionType;
  readonly members: readonly GraphQLNamedType[];
}

/**
 * Puts together the graphql-js schema of a SchemaModel, equal to `buildSubgraphSchema` of its SDL
 * (test/graph/graphql/schema-assembler.test.ts compares them), at a cost that follows the change:
 * - per LabelModel (the model keeps the object while the label is unchanged), its own fields and
 *   root-field arguments are defined once;
 * - a label type is placed again only when its model changed or a type its edge fields reach was
 *   placed again (graphql-js types reference each other as objects); placing it reuses its field
 *   objects, and its root fields take the new type without defining their arguments again;
 * - the Query and Subscription types are assembled from those field objects (one entry per label).
 * What remains in proportion to the whole schema is graphql-js's own walk of the types when the
 * GraphQLSchema is made (validation is skipped: the same schema from SDL is validated in the test).
 */
export class SchemaAssembler {
  readonly #parts = new WeakMap<LabelModel, LabelParts>();
  readonly #placed = new WeakMap<LabelModel, PlacedLabel>();
  /** By name and members; trimmed to the most recently used. */
  readonly #unions = new Map<string, PlacedUnion>();
  /** Per FixedParts: the field's argument references that schema's `_Any`. */
  readonly #entitiesTemplates = new WeakMap<FixedParts, Field>();

  assemble(model: SchemaModel): GraphQLSchema {
    const steps = this.steps(model);
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
    }
  }

  /**
   * `assemble` as steps: it yields after each label it places and each label type it completes, so a
   * caller can give the event loop back between steps (a first build places every label). Only the
   * last step, graphql-js making the GraphQLSchema, walks the whole schema at once. Steps of
   * concurrent builds may interleave: each works on its own snapshot of the placements it reuses.
   */
  *steps(model: SchemaModel): Generator<void, GraphQLSchema, void> {
    const parts = fixed(model.names);
    const unionKey = (u: UnionModel): string => `${u.name}\u0000${u.members.join(',')}`;

    // Types that must be placed again: new or changed ones, then every type whose fields reach one.
    const referrers = new Map<string, string[]>();
    const refer = (target: string, from: string): void => {
      const list = referrers.get(target);
      if (list === undefined) referrers.set(target, [from]);
      else list.push(from);
    };
    for (const label of model.labels) for (const e of label.edges) refer(e.targetType, label.typeName);
    for (const union of model.unions) for (const member of union.members) refer(member, union.name);
    const stale = new Set<string>();
    const markStale = (name: string): void => {
      if (stale.has(name)) return;
      stale.add(name);
      const pending = [name];
      while (pending.length > 0) {
        for (const from of referrers.get(pending.pop()!) ?? []) {
          if (!stale.has(from)) {
            stale.add(from);
            pending.push(from);
          }
        }
      }
    };
    // The placements this build reuses, taken now: another build may replace them meanwhile.
    const kept = new Map<string, PlacedLabel>();
    const keptUnions = new Map<string, PlacedUnion>();
    for (const label of model.labels) {
      const placed = this.#placed.get(label);
      if (placed === undefined) markStale(label.typeName);
      else kept.set(label.typeName, placed);
    }
    for (const union of model.unions) {
      const placed = this.#unions.get(unionKey(union));
      if (placed === undefined) markStale(union.name);
      else keptUnions.set(union.name, placed);
    }

    yield;
    const registry = new Map<string, GraphQLNamedType>();
    // Reusing a type is right only if every type it references is reused too; a placement made for
    // another schema of the same builder could reference other objects, so check and widen until stable.
    for (;;) {
      registry.clear();
      for (const label of model.labels) if (!stale.has(label.typeName)) registry.set(label.typeName, kept.get(label.typeName)!.type);
      for (const union of model.unions) if (!stale.has(union.name)) registry.set(union.name, keptUnions.get(union.name)!.type);
      let made = 0;
      for (const label of model.labels) {
        if (!stale.has(label.typeName)) continue;
        registry.set(label.typeName, this.#labelType(label, registry, parts));
        if (++made % 100 === 0) yield;
      }
      for (const union of model.unions) {
        if (stale.has(union.name)) registry.set(union.name, new GraphQLUnionType({ name: union.name, types: () => union.members.map((m) => registry.get(m) as GraphQLObjectType), resolveType: resolveLabel }));
      }
      const mismatched: string[] = [];
      for (const label of model.labels) {
        if (stale.has(label.typeName)) continue;
        const { targets } = kept.get(label.typeName)!;
        if (label.edges.some((e, i) => registry.get(e.targetType) !== targets[i])) mismatched.push(label.typeName);
      }
      for (const union of model.unions) {
        if (stale.has(union.name)) continue;
        const { members } = keptUnions.get(union.name)!;
        if (union.members.some((m, i) => registry.get(m) !== members[i])) mismatched.push(union.name);
      }
      if (mismatched.length === 0) break;
      for (const name of mismatched) markStale(name);
    }
    yield;

    const placedLabels = new Map<string, PlacedLabel>();
    for (const label of model.labels) {
      if (!stale.has(label.typeName)) {
        placedLabels.set(label.typeName, kept.get(label.typeName)!);
        continue;
      }
      placedLabels.set(label.typeName, this.#place(label, registry.get(label.typeName) as GraphQLObjectType, registry, parts));
      yield;
    }
    // Complete the new label types now, a step each, rather than all inside graphql-js's walk.
    for (const label of model.labels) {
      if (!stale.has(label.typeName)) continue;
      (registry.get(label.typeName) as GraphQLObjectType).getFields();
      yield;
    }
    const placedUnions = new Map<string, PlacedUnion>();
    for (const union of model.unions) {
      const key = unionKey(union);
      const placed = stale.has(union.name) ? { type: registry.get(union.name) as GraphQLUnionType, members: union.members.map((m) => registry.get(m)!) } : keptUnions.get(union.name)!;
      this.#unions.delete(key);
      this.#unions.set(key, placed);
      placedUnions.set(union.name, placed);
    }
    this.#trimUnions(model.unions.length);

    const labelTypes = model.labels.map((l) => placedLabels.get(l.typeName)!.type);
    const entity = labelTypes.length > 0 ? new GraphQLUnionType({ name: '_Entity', types: labelTypes, resolveType: resolveLabel }) : undefined;
    const query = new AssembledObjectType('Query', [], () => {
      const fields: FieldMap = {};
      for (const label of model.labels) {
        const placed = placedLabels.get(label.typeName)!;
        fields[label.listField] = placed.listField;
        fields[label.connectionField] = placed.connectionField;
      }
      if (entity !== undefined) fields['_entities'] = this.#entitiesField(entity, parts);
      fields['_service'] = parts.serviceField;
      return fields;
    });
    const subscription = model.labels.length === 0 ? undefined : new AssembledObjectType('Subscription', [], () => {
      const fields: FieldMap = {};
      for (const label of model.labels) fields[label.listField] = placedLabels.get(label.typeName)!.subscriptionField;
      return fields;
    });
    // The order buildSubgraphSchema gives its types (the order of the SDL, then federation's), so
    // introspection lists them alike.
    const types: GraphQLNamedType[] = [parts.json, query, parts.mutation];
    if (subscription !== undefined) types.push(subscription);
    types.push(parts.node, ...labelTypes, ...model.unions.map((u) => placedUnions.get(u.name)!.type));
    for (const label of model.labels) {
      const placed = placedLabels.get(label.typeName)!;
      types.push(placed.connection, placed.edge);
    }
    types.push(...parts.tail);
    if (entity !== undefined) types.push(entity);
    const base = parts.base;
    return new GraphQLSchema({
      query, mutation: parts.mutation, ...(subscription !== undefined ? { subscription } : {}), types,
      directives: base.getDirectives(), astNode: base.astNode, extensionASTNodes: base.extensionASTNodes, extensions: base.extensions,
      assumeValid: true,
    });
  }

  /** A label's type for this schema: its own fields, then edge fields to the registry's types. */
  #labelType(label: LabelModel, registry: ReadonlyMap<string, GraphQLNamedType>, fixedParts: FixedParts): GraphQLObjectType {
    return new AssembledObjectType(label.typeName, [fixedParts.node], () => {
      const parts = this.#partsOf(label);
      const fields: FieldMap = {};
      for (const field of parts.own) fields[field.name] = field;
      for (const e of label.edges) fields[e.name] = edgeField(e.name, registry.get(e.targetType)!);
      return fields;
    });
  }

  /** Places a label's connection types and root fields around its new type, and remembers the placement. */
  #place(label: LabelModel, type: GraphQLObjectType, registry: ReadonlyMap<string, GraphQLNamedType>, fixedParts: FixedParts): PlacedLabel {
    const own = this.#partsOf(label);
    const t = connectionTemplates(fixedParts);
    const edge = new AssembledObjectType(label.edgeType, [], () => ({ node: { ...t.node, type: new GraphQLNonNull(type) }, cursor: t.cursor }));
    const connection = new AssembledObjectType(label.connectionType, [], () => ({ edges: { ...t.edges, type: listOf(edge) }, pageInfo: t.pageInfo }));
    const placed: PlacedLabel = {
      type, connection, edge,
      listField: { ...own.list, name: label.listField, type: listOf(type) },
      connectionField: { ...own.connection, name: label.connectionField, type: new GraphQLNonNull(connection) },
      subscriptionField: { ...own.subscription, name: label.listField, type: listOf(type) },
      targets: label.edges.map((e) => registry.get(e.targetType)!),
    };
    this.#placed.set(label, placed);
    return placed;
  }

  #partsOf(label: LabelModel): LabelParts {
    let parts = this.#parts.get(label);
    if (parts === undefined) {
      parts = labelParts(label);
      this.#parts.set(label, parts);
    }
    return parts;
  }

  #entitiesField(entity: GraphQLUnionType, parts: FixedParts): Field {
    let template = this.#entitiesTemplates.get(parts);
    if (template === undefined) {
      template = fieldsOf({
        entities: { type: PLACEHOLDER, args: { representations: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(parts.any))) } }, resolve: rootField },
      })['entities']!;
      this.#entitiesTemplates.set(parts, template);
    }
    return { ...template, name: '_entities', type: new GraphQLNonNull(new GraphQLList(entity)) };
  }

  /** Keeps the unions of the last few schemas (several graphs share a builder); the rest are placed again when needed. */
  #trimUnions(inUse: number): void {
    const keep = 4 * inUse + 256;
    for (const key of this.#unions.keys()) {
      if (this.#unions.size <= keep) break;
      this.#unions.delete(key);
    }
  }
}
