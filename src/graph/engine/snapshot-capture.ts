import type { GraphStore } from './graph-store.ts';
import type { NodeCell } from './node-cell.ts';
import type { SnapshotChunk, SnapshotHeader, SnapshotStream } from './persistence-port.ts';
import { SNAPSHOT_EDGES_PER_CHUNK, SNAPSHOT_NODES_PER_CHUNK } from './snapshot-stream.ts';
import type { EdgeRecord, Mutation, NodeRecord, Properties } from './types.ts';
import { nextTurn } from './work-slices.ts';

/** A node as it was when the capture began: what the snapshot must show for it. */
interface PreImage {
  readonly label: string;
  readonly props: Properties;
  /** Out-edges by type, types in order, targets in key order. */
  readonly out: readonly (readonly [string, readonly string[]])[];
}

function outEdges(cell: NodeCell): [string, string[]][] {
  return cell.outTypes().sort().map((type) => [type, cell.outOf(type).map((tgt) => tgt.id)]);
}


/**
 * A snapshot of one graph at one version, produced chunk by chunk while commits to the graph go on
 * (copy on write, per node):
 * - Starting it costs one array of references to the nodes, in id order; nothing is copied or serialised.
 * - Chunks are cut from that array: first every node (in slices of SNAPSHOT_NODES_PER_CHUNK), then
 *   every node's out-edges (SNAPSHOT_EDGES_PER_CHUNK). The event loop gets a turn between chunks, so
 *   the longest pause is one chunk's worth of work, whatever the graph's size.
 * - A commit applied meanwhile first calls `beforeApply`: every node it is about to change (its props,
 *   its out-edges, or, for a deleted node, also the out-edges of the nodes pointing at it) that the
 *   snapshot has not yet written in full is saved as it was, once. Chunks show the saved state when
 *   there is one. Nodes created after the start are not in the array, so they are never written.
 * Memory beyond the graph is the reference array plus the nodes changed while it runs.
 */
export class SnapshotCapture implements SnapshotStream {
  readonly header: SnapshotHeader;
  readonly #cells: NodeCell[];
  readonly #before = new Map<NodeCell, PreImage>();
  /** Set once edges are being written: cells before it are done (-1: still writing nodes). */
  #edgeCursor = -1;
  #finished = false;
  #started = false;

  constructor(store: GraphStore, at: string) {
    const all = store.allNodes();
    this.#cells = (Array.isArray(all) ? all : [...all]) as NodeCell[];
    const { labels, edgeTypes, namespace } = store.catalogue;
    this.header = { graph: store.name, version: store.version, at, catalogue: structuredClone({ labels, edgeTypes, ...(namespace === undefined ? {} : { namespace }) }), ...(store.access === null ? {} : { access: store.access }) };
  }

  /** True once every chunk was produced, or the reader gave up: later commits need not call `beforeApply`. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Saves what `mutations` (about to be applied to the store) will change and the snapshot still needs. */
  beforeApply(store: GraphStore, mutations: readonly Mutation[]): void {
    if (this.#finished) return;
    for (const m of mutations) {
      switch (m.op) {
        case 'createNode':
          break;
        case 'updateNode': {
          const cell = store.nodes.get(m.id);
          if (cell) this.#save(cell);
          break;
        }
        case 'deleteNode': {
          const cell = store.nodes.get(m.id);
          if (!cell) break;
          this.#save(cell);
          for (const type of cell.inTypes()) for (const src of cell.inOf(type)) this.#save(src);
          break;
        }
        case 'addEdge':
        case 'removeEdge': {
          const cell = store.nodes.get(m.src);
          if (cell) this.#save(cell);
          break;
        }
      }
    }
  }

  #save(cell: NodeCell): void {
    if (this.#before.has(cell) || this.#written(cell)) return;
    this.#before.set(cell, { label: cell.label, props: cell.props, out: outEdges(cell) });
  }

  /** Whether the snapshot is done with this cell (its node and its edges are written). */
  #written(cell: NodeCell): boolean {
    const cursor = this.#edgeCursor;
    if (cursor < 0) return false;
    if (cursor >= this.#cells.length) return true;
    return cell.key < this.#cells[cursor]!.key;
  }

  async *chunks(): AsyncGenerator<SnapshotChunk> {
    if (this.#started) throw new Error('A snapshot capture can be read once.');
    this.#started = true;
    const cells = this.#cells;
    try {
      let nodes: NodeRecord[] = [];
      for (const cell of cells) {
        const before = this.#before.get(cell);
        nodes.push(before ? { id: cell.id, label: before.label, props: before.props } : { id: cell.id, label: cell.label, props: cell.props });
        if (nodes.length >= SNAPSHOT_NODES_PER_CHUNK) {
          yield { kind: 'nodes', nodes };
          nodes = [];
          await nextTurn();
        }
      }
      if (nodes.length > 0) yield { kind: 'nodes', nodes };
      this.#edgeCursor = 0;
      let edges: EdgeRecord[] = [];
      for (let i = 0; i < cells.length; i++) {
        const cell = cells[i]!;
        const before = this.#before.get(cell);
        const out = before ? before.out : outEdges(cell);
        for (const [type, targets] of out) for (const tgt of targets) edges.push({ src: cell.id, tgt, type });
        if (before) this.#before.delete(cell);
        this.#edgeCursor = i + 1;
        if (edges.length >= SNAPSHOT_EDGES_PER_CHUNK) {
          yield { kind: 'edges', edges };
          edges = [];
          await nextTurn();
        }
      }
      if (edges.length > 0) yield { kind: 'edges', edges };
    } finally {
      this.#finished = true;
      this.#before.clear();
    }
  }
}
