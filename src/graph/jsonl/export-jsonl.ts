import type { GraphEngine } from '../engine/index.ts';

export interface ExportOutcome {
  readonly records: number;
  readonly nodes: number;
  readonly edges: number;
}

/** Writes a graph as JSON Lines: every node (`{label, id, props}`) in id order, then every edge. */
export async function exportJsonl(engine: GraphEngine, graph: string, out: NodeJS.WritableStream, onProgress: (items: number) => void = () => undefined): Promise<ExportOutcome> {
  const view = engine.view(graph);
  let written = 0;
  const write = async (value: unknown) => {
    if (!out.write(`${JSON.stringify(value)}\n`)) await new Promise((resolve) => out.once('drain', resolve));
    if (++written % 1000 === 0) onProgress(written);
  };
  for (const node of view.allNodes()) await write({ label: node.label, id: node.id, props: node.props });
  const nodes = written;
  for (const edge of view.allEdges()) await write({ src: edge.src, tgt: edge.tgt, type: edge.type });
  onProgress(written);
  return { records: written, nodes, edges: written - nodes };
}
