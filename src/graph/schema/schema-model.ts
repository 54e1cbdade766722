import { ToolgraphError } from '../../errors/index.ts';
import type { GraphCatalogue, LabelInfo, PropertyType } from '../engine/index.ts';
import { namespaceNames, type NamespaceNames } from './namespace.ts';

/**
 * How the catalogue maps to GraphQL, as data: the SDL printer and the resolvers read the same
 * model, so names never drift between them.
 *
 * Naming rules:
 * - Each label is an object type of the same name, `implements Node @key(fields: "id")`, with
 *   `id: ID!` and one nullable field per property (lists as `[String!]`).
 * - Each outgoing edge type is a field named by the edge type; each incoming edge type a field
 *   named `<TYPE>_in`. Both take `first`/`limit` and return a non-null list in target id order.
 * - When an edge type reaches several labels from one label, the field's type is a union of every
 *   label the edge type reaches anywhere: `<Pascal>Target` for outgoing (AUTHORED → AuthoredTarget),
 *   `<Pascal>Source` for incoming.
 * - A property wins over an edge field of the same name; the edge field then gets the suffix `_edge`.
 * - Query: `<Label>(first, limit, filters…): [<Label>!]!` and
 *   `<Label>Connection(first, last, after, before, cursor, filters…): <Label>Connection!`. Filters are
 *   `id: ID` plus one argument per scalar (non-list) property whose name is not a pagination
 *   argument; an explicit null matches nodes without the property.
 * - A generated type name that equals a label (say a label `PersonConnection` beside `Person`) is
 *   refused with TG_NAME_INVALID.
 * - With a namespace (namespace.ts), every type name above takes the type prefix (`Crm_Person`,
 *   `Crm_AuthoredTarget`, `Crm_Node`) and every root field the field prefix (`crm_Person`,
 *   `crm_PersonConnection`); labels, properties and edge types stay what the engine stores.
 */
export interface PropertyField {
  readonly kind: 'property';
  readonly name: string;
  readonly type: PropertyType;
  /** GraphQL type text, e.g. `Int` or `[String!]`. */
  readonly graphqlType: string;
}

export interface EdgeField {
  readonly kind: 'edge';
  readonly name: string;
  readonly edgeType: string;
  readonly direction: 'out' | 'in';
  /** Labels at the other end seen from this label, sorted. */
  readonly labels: readonly string[];
  /** The element type: a label's type, or a union name. */
  readonly targetType: string;
}

export interface LabelModel {
  /** The label as the engine stores it. */
  readonly label: string;
  /** Its GraphQL type: the label, after the namespace's type prefix. */
  readonly typeName: string;
  /** Its Query (and Subscription) list field and its connection field: after the namespace's field prefix. */
  readonly listField: string;
  readonly connectionField: string;
  readonly properties: readonly PropertyField[];
  readonly edges: readonly EdgeField[];
  /** Scalar properties usable as equality filter arguments. */
  readonly filters: readonly PropertyField[];
  readonly connectionType: string;
  readonly edgeType: string;
}

export interface UnionModel {
  readonly name: string;
  /** Member type names (labels' types), sorted. */
  readonly members: readonly string[];
}

export interface SchemaModel {
  readonly epoch: string;
  /** The namespace's prefixes (empty without one). */
  readonly names: NamespaceNames;
  readonly labels: readonly LabelModel[];
  readonly unions: readonly UnionModel[];
}

export const PAGINATION_ARGS: ReadonlySet<string> = new Set(['first', 'last', 'limit', 'after', 'before', 'cursor']);

const FIXED_TYPES = ['Query', 'Mutation', 'Subscription', 'Node', 'PageInfo', 'EdgeResult', 'DeleteResult', 'JSON'];

function graphqlTypeOf(type: PropertyType): string {
  return type.startsWith('[') ? `[${type.slice(1, -1)}!]` : type;
}

/** AUTHORED → Authored, WORKS_AT → WorksAt, worksAt → WorksAt. */
export function pascalCase(name: string): string {
  const parts = name.split('_').filter((p) => p !== '');
  return parts.map((p) => (p === p.toUpperCase() ? p.charAt(0) + p.slice(1).toLowerCase() : p.charAt(0).toUpperCase() + p.slice(1))).join('') || 'Edge';
}

/** A label's property fields and filters, built once per LabelInfo (GraphTypes keeps the object while the label's properties stay). */
const propertyParts = new WeakMap<LabelInfo, PropertyParts>();

interface PropertyParts {
  readonly properties: readonly PropertyField[];
  readonly filters: readonly PropertyField[];
  /** `id` and the property names: what an edge field's name must not take. */
  readonly names: ReadonlySet<string>;
}
/** The model last built from a LabelInfo: reused while its edges and names stay, so consumers can cache per LabelModel object. */
const labelModels = new WeakMap<LabelInfo, LabelModel>();

function propertiesOf(info: LabelInfo): PropertyParts {
  let parts = propertyParts.get(info);
  if (parts === undefined) {
    const properties: PropertyField[] = Object.entries(info.properties).map(([name, type]) => ({
      kind: 'property', name, type, graphqlType: graphqlTypeOf(type),
    }));
    parts = {
      properties,
      filters: properties.filter((p) => !p.type.startsWith('[') && !PAGINATION_ARGS.has(p.name)),
      names: new Set(['id', ...properties.map((p) => p.name)]),
    };
    propertyParts.set(info, parts);
  }
  return parts;
}

function sameEdges(a: readonly EdgeField[], b: readonly EdgeField[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name || x.edgeType !== y.edgeType || x.direction !== y.direction || x.targetType !== y.targetType || x.labels.length !== y.labels.length) return false;
    for (let j = 0; j < x.labels.length; j++) if (x.labels[j] !== y.labels[j]) return false;
  }
  return true;
}

/** An edge field before its name is settled against the label's property names. */
interface RawEdge {
  readonly edgeType: string;
  readonly direction: 'out' | 'in';
  readonly labels: readonly string[];
  readonly targetType: string;
}

/** What the labels' names and the edge types decide: type names, unions, and each label's edges. */
interface Structure {
  readonly names: NamespaceNames;
  readonly labelNames: readonly string[];
  readonly edgeTypes: GraphCatalogue['edgeTypes'];
  readonly connections: ReadonlyMap<string, readonly [string, string]>;
  readonly unions: readonly UnionModel[];
  readonly raw: ReadonlyMap<string, readonly RawEdge[]>;
}

/** The last structure built: a property change leaves names and edge types as they were, so the next model reuses it. */
let lastStructure: Structure | undefined;
/** A label's edge fields, settled for one structure and its property names. */
const settledEdges = new WeakMap<LabelInfo, { readonly structure: Structure; readonly edges: readonly EdgeField[] }>();

function sameStructure(structure: Structure, names: NamespaceNames, labelNames: readonly string[], edgeTypes: GraphCatalogue['edgeTypes']): boolean {
  if (structure.names !== names) return false;
  if (structure.labelNames.length !== labelNames.length || structure.edgeTypes.length !== edgeTypes.length) return false;
  for (let i = 0; i < labelNames.length; i++) if (structure.labelNames[i] !== labelNames[i]) return false;
  // GraphTypes hands out the same EdgeTypeInfo object while an edge type's pairs stay.
  for (let i = 0; i < edgeTypes.length; i++) if (structure.edgeTypes[i] !== edgeTypes[i]) return false;
  return true;
}

function structureOf(catalogue: GraphCatalogue): Structure {
  const labelNames = catalogue.labels.map((l) => l.label);
  const names = namespaceNames(catalogue.namespace);
  if (lastStructure !== undefined && sameStructure(lastStructure, names, labelNames, catalogue.edgeTypes)) return lastStructure;
  const T = names.typePrefix;
  const taken = new Set<string>([...FIXED_TYPES, names.nodeType, ...labelNames.map((l) => `${T}${l}`)]);
  const claim = (name: string, why: string): string => {
    if (taken.has(name)) {
      throw new ToolgraphError('TG_NAME_INVALID', `The GraphQL type name "${name}" (${why}) is already taken by a label or a fixed type; rename that label.`);
    }
    taken.add(name);
    return name;
  };

  const connections = new Map<string, [string, string]>();
  for (const label of labelNames) {
    connections.set(label, [claim(`${T}${label}Connection`, `the connection type of ${label}`), claim(`${T}${label}Edge`, `the edge type of ${label}`)]);
  }

  // Per edge type: every target label and every source label, for the unions.
  const unions: UnionModel[] = [];
  const unionName = new Map<string, string>();
  const outgoing = new Map<string, Map<string, string[]>>(); // src label → edge type → tgt labels
  const incoming = new Map<string, Map<string, string[]>>(); // tgt label → edge type → src labels
  for (const info of catalogue.edgeTypes) {
    const tgts = new Set<string>();
    const srcs = new Set<string>();
    for (const { src, tgt } of info.pairs) {
      tgts.add(tgt);
      srcs.add(src);
      push(outgoing, src, info.type, tgt);
      push(incoming, tgt, info.type, src);
    }
    if (tgts.size > 1) {
      const name = claim(`${T}${pascalCase(info.type)}Target`, `the targets of ${info.type}`);
      unions.push({ name, members: [...tgts].sort().map((l) => `${T}${l}`) });
      unionName.set(`out\u0000${info.type}`, name);
    }
    if (srcs.size > 1) {
      const name = claim(`${T}${pascalCase(info.type)}Source`, `the sources of ${info.type}`);
      unions.push({ name, members: [...srcs].sort().map((l) => `${T}${l}`) });
      unionName.set(`in\u0000${info.type}`, name);
    }
  }
  unions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const raw = new Map<string, RawEdge[]>();
  for (const label of labelNames) {
    const edges: RawEdge[] = [];
    const add = (map: Map<string, string[]> | undefined, direction: 'out' | 'in'): void => {
      if (!map) return;
      for (const edgeType of [...map.keys()].sort()) {
        const others = [...new Set(map.get(edgeType))].sort();
        const targetType = others.length === 1 ? `${T}${others[0]!}` : unionName.get(`${direction}\u0000${edgeType}`)!;
        edges.push({ edgeType, direction, labels: others, targetType });
      }
    };
    add(outgoing.get(label), 'out');
    add(incoming.get(label), 'in');
    if (edges.length > 0) raw.set(label, edges);
  }
  lastStructure = { names, labelNames, edgeTypes: catalogue.edgeTypes, connections, unions, raw };
  return lastStructure;
}

const NO_EDGES: readonly EdgeField[] = Object.freeze([]);

/** A property wins over an edge field of the same name: the edge field takes `_edge` until it is free. */
function edgesOf(info: LabelInfo, structure: Structure, names: ReadonlySet<string>): readonly EdgeField[] {
  const settled = settledEdges.get(info);
  if (settled?.structure === structure) return settled.edges;
  const raw = structure.raw.get(info.label);
  let edges = NO_EDGES;
  if (raw !== undefined) {
    const taken = new Set<string>();
    edges = raw.map(({ edgeType, direction, labels, targetType }) => {
      let name = direction === 'out' ? edgeType : `${edgeType}_in`;
      while (names.has(name) || taken.has(name)) name = `${name}_edge`;
      taken.add(name);
      return { kind: 'edge', name, edgeType, direction, labels, targetType };
    });
  }
  settledEdges.set(info, { structure, edges });
  return edges;
}

/**
 * The model of a catalogue. A label whose LabelInfo, edges and type names are as in the last model
 * built from that LabelInfo gets the same LabelModel object back (with the same property arrays), so
 * a schema change costs the labels it touches, and consumers (the GraphQL schema builder, the
 * executor's plans) can cache per LabelModel. A change of properties only reuses the type names,
 * unions and edges of the last model too.
 */
export function schemaModelFromCatalogue(catalogue: GraphCatalogue): SchemaModel {
  const steps = schemaModelSteps(catalogue);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** schemaModelFromCatalogue as steps (one per hundred labels), for callers that give the event loop back between them. */
export function* schemaModelSteps(catalogue: GraphCatalogue): Generator<void, SchemaModel, void> {
  const structure = structureOf(catalogue);
  const labels: LabelModel[] = [];
  for (const info of catalogue.labels) {
    labels.push(labelModelOf(info, structure));
    if (labels.length % 100 === 0) yield;
  }
  return { epoch: catalogue.epoch, names: structure.names, labels, unions: structure.unions };
}

function labelModelOf(info: LabelInfo, structure: Structure): LabelModel {
  const { properties, filters, names } = propertiesOf(info);
  const edges = edgesOf(info, structure, names);
  const [connectionType, edgeType] = structure.connections.get(info.label)!;
  const previous = labelModels.get(info);
  if (previous !== undefined && previous.connectionType === connectionType && previous.edgeType === edgeType
    && (previous.edges === edges || sameEdges(previous.edges, edges))) return previous;
  const { typePrefix, fieldPrefix } = structure.names;
  const model: LabelModel = {
    label: info.label, typeName: `${typePrefix}${info.label}`, listField: `${fieldPrefix}${info.label}`,
    connectionField: `${fieldPrefix}${info.label}Connection`, properties, edges, connectionType, edgeType, filters,
  };
  labelModels.set(info, model);
  return model;
}

function push(map: Map<string, Map<string, string[]>>, a: string, type: string, b: string): void {
  let inner = map.get(a);
  if (!inner) {
    inner = new Map();
    map.set(a, inner);
  }
  let list = inner.get(type);
  if (!list) {
    list = [];
    inner.set(type, list);
  }
  list.push(b);
}
