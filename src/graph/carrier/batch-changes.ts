import type { ChangeEvent } from '../engine/index.ts';
import type { SubscriptionReads } from './subscription-reads.ts';

/**
 * What one committed batch changed, summarised once for every group of its graph: the labels of the
 * nodes it created and updated, the nodes it touched, and the ends of its edges by type. A group's
 * last evaluation is re-run only when `touches(reads)` (see subscription-reads.ts for the rules).
 */
export class BatchChanges {
  /** A change that touches every evaluation (one the carrier could not check in detail). */
  static readonly EVERYTHING = new BatchChanges(Number.POSITIVE_INFINITY, true);

  /** The graph version the batch produced. */
  readonly version: number;
  /** The batch changed the schema or the access policy: every evaluation may differ. */
  readonly everything: boolean;
  readonly createdLabels = new Set<string>();
  readonly updatedLabels = new Set<string>();
  /** Nodes created, updated or deleted. */
  readonly nodeIds = new Set<string>();
  /** Edge type → the ids at both ends of the edges of that type added or removed. */
  readonly edgeEnds = new Map<string, Set<string>>();

  private constructor(version: number, everything: boolean) {
    this.version = version;
    this.everything = everything;
  }

  /**
   * The changes of a committed batch. `labelOf` answers an updated node's label from the graph as
   * the batch left it (updateNode names only the id); a node gone by then (updated, then deleted in
   * the same batch) changes nothing but its id.
   */
  static of(event: ChangeEvent, labelOf: (id: string) => string | undefined): BatchChanges {
    let everything = event.catalogueChanged;
    for (const m of event.mutations) if (m.op === 'setAccess' || m.op === 'setNamespace') everything = true;
    const changes = new BatchChanges(event.version, everything);
    if (everything) return changes;
    for (const m of event.mutations) {
      switch (m.op) {
        case 'createNode':
          changes.createdLabels.add(m.label);
          changes.nodeIds.add(m.id);
          break;
        case 'updateNode': {
          changes.nodeIds.add(m.id);
          const label = labelOf(m.id);
          if (label !== undefined) changes.updatedLabels.add(label);
          break;
        }
        case 'deleteNode':
          changes.nodeIds.add(m.id);
          break;
        case 'addEdge':
        case 'removeEdge': {
          let ends = changes.edgeEnds.get(m.type);
          if (ends === undefined) changes.edgeEnds.set(m.type, (ends = new Set()));
          ends.add(m.src).add(m.tgt);
          break;
        }
        default:
          break;
      }
    }
    return changes;
  }

  /** Whether an evaluation that read `reads` (null: it could not say what) may answer differently now. */
  touches(reads: SubscriptionReads | null): boolean {
    if (reads === null || this.everything) return true;
    for (const label of this.createdLabels) if (reads.scannedLabels.has(label)) return true;
    for (const label of this.updatedLabels) if (reads.updatedLabels.has(label)) return true;
    if (meets(this.nodeIds, reads.nodeIds)) return true;
    for (const [type, ends] of this.edgeEnds) if (reads.edgeTypes.has(type) && meets(ends, reads.nodeIds)) return true;
    return false;
  }
}

/** Whether two sets share an element, walking the smaller one. */
function meets(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const value of small) if (large.has(value)) return true;
  return false;
}
