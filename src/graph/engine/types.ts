/**
 * The data model of the property-graph engine, shared by the engine, the persistence adapters,
 * GraphQL and Cypher.
 *
 * Model rules (documented here once; the engine enforces them):
 * - A graph name matches `^[A-Za-z][A-Za-z0-9_-]{0,63}$` (see GRAPH_NAME_PATTERN).
 * - A node has a label, a string `id` unique in its graph (1 to 256 characters, well-formed
 *   Unicode), and properties. `id` is the node id, never a property name.
 * - Labels, property names and edge types are GraphQL names (`^[_A-Za-z][_0-9A-Za-z]*$`) that do not
 *   start with `__`.
 * - Property values: string, safe integer (Int), finite float (Float), boolean, or a non-empty list
 *   of one of these whose items are all the same kind and never null (`[String]`, `[Int]`, `[Float]`,
 *   `[Boolean]`; a number list with any non-integer item is `[Float]`). NaN, ±Infinity, unsafe
 *   integers, nested objects and lists of lists are refused (TG_VALUE_INVALID).
 * - Every string (ids, values, list items) is well-formed Unicode: a lone surrogate such as `\uD800`
 *   is refused at write time (TG_VALUE_INVALID naming where, e.g. `props.s`). Names are ASCII by
 *   their pattern. Values that versions before this rule stored are read back with each lone
 *   surrogate replaced by U+FFFD (recovery logs a warning), so the server still comes up.
 * - `null` means "no value": writing null removes the property, so committed records never hold null.
 *   An empty list cannot fix a type: it is accepted only for a property already typed as a list.
 * - A property's type is fixed per label by its first write, with one widening: numbers. An Int
 *   property that is written a non-integral number becomes Float ([Int] becomes [Float] when a list
 *   with a non-integral item arrives), since a first value of `0` says nothing about the next being
 *   `0.29`. The widening is a catalogue change (the epoch moves, the GraphQL schema follows); it never
 *   narrows back, and Int values keep fitting a Float property. Replaying the log or a snapshot yields
 *   the same types. Any other change of kind is refused (TG_VALUE_INVALID). An integer-valued JSON
 *   number such as `1.0` is an Int.
 * - Edges are a set: at most one edge per (src, tgt, type); adding an existing edge is a no-op
 *   that still counts in its batch; removing a missing edge is TG_EDGE_NOT_FOUND.
 * - The catalogue only grows: a label, property or edge-type label pair stays after its last node or
 *   edge is gone, so the schema clients see does not flap. Dropping the graph resets it.
 */

/** A single property value as written; `null` unsets. */
export type Scalar = string | number | boolean | null;

/** A property value: a scalar, or a homogeneous list of non-null scalars. Committed records never hold null. */
export type PropertyValue = Scalar | readonly (string | number | boolean)[];

export type Properties = Readonly<Record<string, PropertyValue>>;

/**
 * A node as readers see it. Records handed out by a GraphView are live: `props` is replaced (never
 * mutated) when the node is updated, so a `props` object you hold is stable.
 */
export interface NodeRecord {
  readonly id: string;
  readonly label: string;
  readonly props: Properties;
}

export interface EdgeRecord {
  readonly src: string;
  readonly tgt: string;
  readonly type: string;
}

/** A committed mutation as logged: createNode always carries its id, props never hold null. */
export type Mutation =
  | { readonly op: 'createNode'; readonly id: string; readonly label: string; readonly props: Properties }
  | { readonly op: 'updateNode'; readonly id: string; readonly set: Properties; readonly unset?: readonly string[] }
  | { readonly op: 'deleteNode'; readonly id: string }
  | { readonly op: 'addEdge'; readonly src: string; readonly tgt: string; readonly type: string }
  | { readonly op: 'removeEdge'; readonly src: string; readonly tgt: string; readonly type: string }
  /**
   * Replaces the graph's access policy (null removes it). The engine stores the document as it is;
   * src/graph/access validates it before and compiles it after. Only `GraphEngine.setAccess` writes
   * one: client batches cannot carry it.
   */
  | { readonly op: 'setAccess'; readonly policy: AccessDocument | null }
  /**
   * Sets the graph's GraphQL namespace (null removes it): a catalogue fact, so the epoch moves and the
   * schema follows. src/graph/schema validates the name before; only `GraphEngine.setNamespace`
   * writes one: client batches cannot carry it.
   */
  | { readonly op: 'setNamespace'; readonly namespace: string | null };

/** An access policy as the engine stores it: a JSON object (its schema is specs/access-policy.schema.json). */
export type AccessDocument = Readonly<Record<string, unknown>>;

/** A graph's access policy with the graph version whose batch stored it (its policy version). */
export interface StoredAccess {
  readonly version: number;
  readonly policy: AccessDocument;
}

/**
 * A mutation as a client sends it: createNode may omit `id` (the engine assigns one before logging,
 * so replays are deterministic) and `props`; null values unset.
 */
export type MutationInput =
  | { readonly op: 'createNode'; readonly id?: string; readonly label: string; readonly props?: Properties }
  | Exclude<Mutation, { op: 'createNode' | 'setAccess' | 'setNamespace' }>;

export interface BatchRequest {
  readonly graph: string;
  /** When given, the batch commits only if the graph is still at this version (else TG_VERSION_CONFLICT). */
  readonly expectedVersion?: number;
  readonly mutations: readonly MutationInput[];
  /**
   * The writer's row visibility (src/graph/access): a node it rejects is treated as missing by
   * updateNode, deleteNode, addEdge and removeEdge, with the very error a missing node gets.
   */
  readonly visible?: (node: NodeRecord) => boolean;
}

/** A batch as it is logged and replayed: normalised mutations, the version it produced. */
export interface CommittedBatch {
  readonly graph: string;
  readonly version: number;
  readonly mutations: readonly Mutation[];
  /** ISO 8601 UTC. */
  readonly committedAt: string;
}

/** What `GraphEngine.commit` answers. */
export interface CommitResult {
  readonly graph: string;
  readonly version: number;
  /** One entry per mutation, in order: the node it concerns (assigned id for createNode), null for edge mutations. */
  readonly ids: readonly (string | null)[];
  readonly mutations: readonly Mutation[];
  readonly catalogueChanged: boolean;
  readonly epoch: string;
}

/**
 * Published on the change feed for every committed batch (local or applied from a follower), and
 * when a graph is created or dropped (`kind`; mutations are empty then).
 */
export interface ChangeEvent {
  readonly kind: 'batch' | 'createGraph' | 'dropGraph';
  readonly graph: string;
  readonly version: number;
  readonly mutations: readonly Mutation[];
  readonly catalogueChanged: boolean;
  /** The catalogue epoch after the change ('' after dropGraph). */
  readonly epoch: string;
}

type ScalarType = 'String' | 'Int' | 'Float' | 'Boolean';
export type PropertyType = ScalarType | '[String]' | '[Int]' | '[Float]' | '[Boolean]';

export interface LabelInfo {
  readonly label: string;
  /** Keys in code-point order. */
  readonly properties: Readonly<Record<string, PropertyType>>;
}

export interface EdgeTypeInfo {
  readonly type: string;
  /** Source and target labels seen on this edge type, sorted by (src, tgt). */
  readonly pairs: readonly { readonly src: string; readonly tgt: string }[];
}

/**
 * Labels with their property types, edge types with their label pairs; every list in code-point
 * order. `epoch` is a digest of the content, so it changes exactly when the catalogue does and is the
 * same on every instance holding the same catalogue.
 */
export interface GraphCatalogue {
  readonly epoch: string;
  /** The graph's GraphQL namespace (docs/graphql.md#namespaces), absent when it has none. */
  readonly namespace?: string;
  readonly labels: readonly LabelInfo[];
  readonly edgeTypes: readonly EdgeTypeInfo[];
}

export type Direction = 'out' | 'in' | 'both';

export interface ScanOptions {
  /** Property equality; `id` filters on the node id; a null value matches nodes without the property. */
  readonly filter?: Readonly<Record<string, Scalar>>;
  /** Exclusive keyset bounds on id (code-point order). */
  readonly after?: string;
  readonly before?: string;
  /** At most this many from the start of the range. */
  readonly first?: number;
  /** At most this many from the end of the range (still returned in ascending order). Ignored when `first` is given. */
  readonly last?: number;
  /**
   * A further row test, applied with the filter and before `first`/`last` (the access module's row
   * rule, so a page of visible rows is cut in one pass over the range).
   */
  readonly keep?: (node: NodeRecord) => boolean;
}

/** One edge met while expanding a frontier node, with the neighbour at its other end. */
export interface EdgeHit {
  readonly edge: EdgeRecord;
  readonly node: NodeRecord;
}

export interface GraphSummary {
  readonly name: string;
  readonly version: number;
  readonly nodes: number;
  readonly edges: number;
}
