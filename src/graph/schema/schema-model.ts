import { ToolgraphError } from '../../errors/index.ts';
import type { GraphCatalogue, PropertyType } from '../engine/index.ts';

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
  /** The element type: a label, or a union name. */
  readonly targetType: string;
}

export interface LabelModel {
  readonly label: string;
  readonly properties: readonly PropertyField[];
  readonly edges: readonly EdgeField[];
  /** Scalar properties usable as equality filter arguments. */
  readonly filters: readonly PropertyField[];
  readonly connectionType: string;
  readonly edgeType: string;
}

export interface UnionModel {
  readonly name: string;
  readonly members: readonly string[];
}

export interface SchemaModel {
  readonly epoch: string;
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

export function schemaModelFromCatalogue(catalogue: GraphCatalogue): SchemaModel {
  const labelNames = catalogue.labels.map((l) => l.label);
  const taken = new Set<string>([...FIXED_TYPES, ...labelNames]);
  const claim = (name: string, why: string): string => {
    if (taken.has(name)) {
      throw new ToolgraphError('TG_NAME_INVALID', `The GraphQL type name "${name}" (${why}) is already taken by a label or a fixed type; rename that label.`);
    }
    taken.add(name);
    return name;
  };

  const connections = new Map<string, [string, string]>();
  for (const label of labelNames) {
    connections.set(label, [claim(`${label}Connection`, `the connection type of ${label}`), claim(`${label}Edge`, `the edge type of ${label}`)]);
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
      const name = claim(`${pascalCase(info.type)}Target`, `the targets of ${info.type}`);
      unions.push({ name, members: [...tgts].sort() });
      unionName.set(`out\u0000${info.type}`, name);
    }
    if (srcs.size > 1) {
      const name = claim(`${pascalCase(info.type)}Source`, `the sources of ${info.type}`);
      unions.push({ name, members: [...srcs].sort() });
      unionName.set(`in\u0000${info.type}`, name);
    }
  }
  unions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const labels: LabelModel[] = catalogue.labels.map((info) => {
    const properties: PropertyField[] = Object.entries(info.properties).map(([name, type]) => ({
      kind: 'property', name, type, graphqlType: graphqlTypeOf(type),
    }));
    const used = new Set<string>(['id', ...properties.map((p) => p.name)]);
    const edges: EdgeField[] = [];
    const addEdges = (map: Map<string, string[]> | undefined, direction: 'out' | 'in'): void => {
      if (!map) return;
      for (const edgeType of [...map.keys()].sort()) {
        const others = [...new Set(map.get(edgeType))].sort();
        let name = direction === 'out' ? edgeType : `${edgeType}_in`;
        while (used.has(name)) name = `${name}_edge`;
        used.add(name);
        const targetType = others.length === 1 ? others[0]! : unionName.get(`${direction}\u0000${edgeType}`)!;
        edges.push({ kind: 'edge', name, edgeType, direction, labels: others, targetType });
      }
    };
    addEdges(outgoing.get(info.label), 'out');
    addEdges(incoming.get(info.label), 'in');
    const [connectionType, edgeType] = connections.get(info.label)!;
    return {
      label: info.label, properties, edges, connectionType, edgeType,
      filters: properties.filter((p) => !p.type.startsWith('[') && !PAGINATION_ARGS.has(p.name)),
    };
  });
  return { epoch: catalogue.epoch, labels, unions };
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
