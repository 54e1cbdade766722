import type {
  Direction, EdgeHit, EdgeRecord, GraphCatalogue, NodeRecord, Scalar, ScanOptions,
} from './types.ts';

/**
 * The read interface of one graph: everything GraphQL and Cypher read goes through it.
 *
 * It reads the live graph. A commit applies in one synchronous step, so a run of reads with no
 * `await` between them sees one version (`version`). Every list is in id code-point order, so results
 * are deterministic.
 */
export interface GraphView {
  readonly name: string;
  readonly version: number;
  readonly catalogue: GraphCatalogue;
  readonly nodeCount: number;
  readonly edgeCount: number;

  node(id: string): NodeRecord | undefined;

  /** Nodes of a label matching the filter, ascending id, within the keyset bounds. An unknown label gives []. */
  scan(label: string, options?: ScanOptions): NodeRecord[];

  /** Nodes of a label matching the filter (and `keep`, when given). */
  count(label: string, filter?: Readonly<Record<string, Scalar>>, keep?: (node: NodeRecord) => boolean): number;

  /** Labels of the catalogue, code-point order. */
  labels(): readonly string[];

  /**
   * One BFS step for a whole frontier: for each frontier id that names a node, its neighbours over
   * `edgeType` (null: every type) in `direction`, ascending neighbour id (ties by edge type, then
   * out before in). A neighbour reached over two edges appears twice; a self-loop appears once under
   * 'both'. Ids naming no node get no entry. Lists are shared and must not be mutated.
   */
  expand(frontier: readonly string[], edgeType: string | null, direction: Direction): Map<string, readonly NodeRecord[]>;

  /**
   * The same BFS step, answered position by position: entry i lists the neighbours of frontier[i]
   * (empty for an id naming no node). Frontier entries may be records from this view (no id lookup;
   * the fast path for resolvers that hold parent rows) or ids. Repeated entries are fine.
   */
  expandEach(frontier: readonly (NodeRecord | string)[], edgeType: string | null, direction: Direction): (readonly NodeRecord[])[];

  /** As `expand`, with the edge of each step (for Cypher's relationship variables and `type(r)`). */
  edges(frontier: readonly string[], edgeType: string | null, direction: Direction): Map<string, readonly EdgeHit[]>;

  /** Every node, ascending id. */
  allNodes(): Iterable<NodeRecord>;

  /** Every edge, ordered by (src id, type, tgt id). */
  allEdges(): Iterable<EdgeRecord>;
}
