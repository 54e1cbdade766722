import type { GraphQLSchema } from 'graphql';
import type { PropertyType } from '../engine/index.ts';
import type { EdgeField, LabelModel, NamespaceNames, SchemaModel } from '../schema/index.ts';

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
  /**
   * The subgraph SDL exactly as `npm run introspect` prints it (and `_service { sdl }` serves it).
   * Printed on first read: most schemas never serve it.
   */
  readonly sdl: string;
  /** Label (as the engine stores it) → its plan. */
  readonly labels: ReadonlyMap<string, LabelPlan>;
  /** Query (and Subscription) field name → what it reads. */
  readonly roots: ReadonlyMap<string, RootField>;
  /** The namespace's prefixes (docs/graphql.md#namespaces); empty without one. */
  readonly names: NamespaceNames;
  /** A label type's name → the label (`_entities` representations name types). */
  readonly labelOfType: ReadonlyMap<string, string>;
  /** `<Label>Connection` and `<Label>Edge` type names → label. */
  readonly connectionTypes: ReadonlyMap<string, string>;
  readonly edgeTypes: ReadonlyMap<string, string>;
  /** Union names → member labels. */
  readonly unions: ReadonlyMap<string, ReadonlySet<string>>;
}
