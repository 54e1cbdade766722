/**
 * What one evaluation of a subscription read, as the executor reports it, so the carrier re-runs a
 * group only for a committed batch that changed something the evaluation depended on
 * (batch-changes.ts). Every set may hold more than was read (a superset only costs a needless
 * re-run); one that holds less would miss a frame, so the executor reports every node it produced.
 *
 * What makes a batch touch an evaluation, given these sets:
 * - a node created with a label of `scannedLabels` (it may enter a root list);
 * - a node of `nodeIds` updated or deleted (its fields are in the result, or it is a parent whose lists are);
 * - a node updated whose label is in `updatedLabels`, though it was not produced: a root list filtered
 *   by properties may now take it, or row-level security may now show it;
 * - an edge of a type in `edgeTypes` added or removed at a node of `nodeIds` (a parent's list changes);
 * - anything that changes the schema or the access policy.
 * A node the evaluation did not produce changes nothing else: a list cut by `first` ends before it,
 * and a row the subscriber cannot see is neither in the result nor an end of a visible edge.
 */
export interface SubscriptionReads {
  /** Labels of the root lists scanned. */
  readonly scannedLabels: ReadonlySet<string>;
  /** Labels any of whose nodes may change the result when updated (property filters at the root, row rules). */
  readonly updatedLabels: ReadonlySet<string>;
  /** Edge types expanded at any level. */
  readonly edgeTypes: ReadonlySet<string>;
  /** Every node produced, at every level. */
  readonly nodeIds: ReadonlySet<string>;
}
