import type { SubscriptionReads } from '../carrier/index.ts';
import type { GraphCatalogue, NodeRecord, Scalar } from '../engine/index.ts';

/**
 * What a subscription's evaluation reads, recorded by the executor as it goes (ExecState.reads): the
 * root lists' labels, the edge types it expands and every node it produces, at every level. The
 * carrier re-runs the evaluation only for a batch that touches these (graph/carrier
 * subscription-reads.ts). A node is recorded once its list is cut to its page, so a parent's
 * thousand neighbours under `first: 1` record one. Queries record nothing (their ExecState has none).
 */
export class ReadRecorder implements SubscriptionReads {
  readonly scannedLabels = new Set<string>();
  readonly updatedLabels = new Set<string>();
  readonly edgeTypes = new Set<string>();
  readonly nodeIds = new Set<string>();
  /** Set when the evaluation read something these sets cannot describe: then every batch touches it. */
  unbounded = false;
  readonly #rowFiltered: boolean;
  readonly #catalogue: GraphCatalogue;

  /**
   * `rowFiltered`: the evaluation reads through row-level security, so an update may show or hide a
   * row it did not produce; `catalogue` says which labels an edge type joins.
   */
  constructor(rowFiltered: boolean, catalogue: GraphCatalogue) {
    this.#rowFiltered = rowFiltered;
    this.#catalogue = catalogue;
  }

  /** A root list of `label` with these equality filters produced `rows`. */
  scanned(label: string, filter: Readonly<Record<string, Scalar>>, rows: readonly NodeRecord[]): void {
    this.scannedLabels.add(label);
    // The id filter names one node: only a node created with that id can enter. Any other filter,
    // or row rules, may take a node in or out when it is updated.
    if (this.#rowFiltered || Object.keys(filter).some((key) => key !== 'id')) this.updatedLabels.add(label);
    this.#produced(rows);
  }

  /** An expansion over `edgeType` produced `rows` (the whole level, each parent's list cut to its page). */
  expanded(edgeType: string, rows: readonly NodeRecord[]): void {
    if (!this.edgeTypes.has(edgeType)) {
      this.edgeTypes.add(edgeType);
      // A hidden neighbour made visible by an update enters a visible parent's list: its label is one the type joins.
      if (this.#rowFiltered) {
        for (const pair of this.#catalogue.edgeTypes.find((t) => t.type === edgeType)?.pairs ?? []) {
          this.updatedLabels.add(pair.src).add(pair.tgt);
        }
      }
    }
    this.#produced(rows);
  }

  #produced(rows: readonly NodeRecord[]): void {
    const ids = this.nodeIds;
    for (let i = 0; i < rows.length; i++) ids.add(rows[i]!.id);
  }
}
