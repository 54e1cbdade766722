import type { GraphSnapshot, SnapshotChunk, SnapshotStream } from './persistence-port.ts';
import type { EdgeRecord, NodeRecord } from './types.ts';

/** Nodes per chunk and edges per chunk: a few hundred KB of JSON each. */
export const SNAPSHOT_NODES_PER_CHUNK = 2_000;
export const SNAPSHOT_EDGES_PER_CHUNK = 10_000;

/** A whole snapshot as a stream (tests, and snapshots stored whole by earlier versions). */
export function snapshotStream(snapshot: GraphSnapshot, nodesPerChunk = SNAPSHOT_NODES_PER_CHUNK, edgesPerChunk = SNAPSHOT_EDGES_PER_CHUNK): SnapshotStream {
  const { nodes, edges, ...header } = snapshot;
  return {
    header,
    async *chunks(): AsyncIterable<SnapshotChunk> {
      for (let i = 0; i < nodes.length; i += nodesPerChunk) yield { kind: 'nodes', nodes: nodes.slice(i, i + nodesPerChunk) };
      for (let i = 0; i < edges.length; i += edgesPerChunk) yield { kind: 'edges', edges: edges.slice(i, i + edgesPerChunk) };
    },
  };
}

/** Reads a stream whole: for tests and small graphs only, since it holds every chunk. */
export async function readSnapshot(stream: SnapshotStream): Promise<GraphSnapshot> {
  const nodes: NodeRecord[] = [];
  const edges: EdgeRecord[] = [];
  for await (const chunk of stream.chunks()) {
    if (chunk.kind === 'nodes') nodes.push(...chunk.nodes);
    else edges.push(...chunk.edges);
  }
  return { ...stream.header, nodes, edges };
}
