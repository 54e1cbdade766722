import type { GraphEngine, MutationInput, PropertyValue } from '../../src/graph/engine/index.ts';

/** Nodes of the snapshot tests' graph (enough for several snapshot chunks). */
export const SNAPSHOT_NODES = 5_000;

/** The id of node `i`: ids sort in the order of `i`. */
export const nodeId = (i: number): string => `n${String(i).padStart(5, '0')}`;

/**
 * Creates graph `g`: SNAPSHOT_NODES nodes labelled A and B with `props(i)`, then three edges out of
 * each (NEXT to the following node, SEVEN and ALSO to scattered ones), in two batches.
 */
export async function buildSnapshotGraph(engine: GraphEngine, props: (i: number) => Record<string, PropertyValue>): Promise<void> {
  await engine.createGraph('g');
  const nodes: MutationInput[] = [];
  for (let i = 0; i < SNAPSHOT_NODES; i++) nodes.push({ op: 'createNode', id: nodeId(i), label: i % 2 ? 'A' : 'B', props: props(i) });
  await engine.commit({ graph: 'g', mutations: nodes });
  const edges: MutationInput[] = [];
  for (let i = 0; i < SNAPSHOT_NODES; i++) {
    edges.push({ op: 'addEdge', src: nodeId(i), tgt: nodeId((i + 1) % SNAPSHOT_NODES), type: 'NEXT' });
    edges.push({ op: 'addEdge', src: nodeId(i), tgt: nodeId((i * 7) % SNAPSHOT_NODES), type: 'SEVEN' });
    edges.push({ op: 'addEdge', src: nodeId(i), tgt: nodeId((i * 13 + 5) % SNAPSHOT_NODES), type: 'ALSO' });
  }
  await engine.commit({ graph: 'g', mutations: edges });
}
