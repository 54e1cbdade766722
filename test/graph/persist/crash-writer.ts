// Child process for the crash-safety test: commits batches through the real engine on file
// persistence as fast as it can, on several graphs at once, printing `ack <graph> <version>` once each
// commit has resolved. The test kills it with SIGKILL at random moments.
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { FilePersistence } from '../../../src/graph/persist/file/index.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: crash-writer.ts <dataDir>');
const GRAPHS = ['g0', 'g1', 'g2'];

const persistence = await FilePersistence.open({ directory: dataDir, segmentBytes: 16 * 1024 });
const engine = await GraphEngine.open({ persistence, snapshotEvery: 20 });
for (const graph of GRAPHS) {
  if (!engine.hasGraph(graph)) {
    await engine.createGraph(graph);
    await engine.commit({ graph, mutations: [{ op: 'createNode', id: 'counter', label: 'Counter', props: { count: 1 } }] });
  }
}
process.stdout.write('ready\n');

async function writeForever(graph: string): Promise<never> {
  for (;;) {
    const next = engine.view(graph).node('counter')!.props['count'] as number + 1;
    // One batch: two nodes, an edge between them, and the counter; all or nothing.
    const result = await engine.commit({ graph, mutations: [
      { op: 'createNode', id: `v${next}-a`, label: 'Item', props: { version: next, text: 'x'.repeat(next % 97) } },
      { op: 'createNode', id: `v${next}-b`, label: 'Item', props: { version: next, tags: ['b', String(next)] } },
      { op: 'addEdge', src: `v${next}-a`, tgt: `v${next}-b`, type: 'PAIR' },
      { op: 'updateNode', id: 'counter', set: { count: next } },
    ] });
    process.stdout.write(`ack ${graph} ${result.version}\n`);
  }
}

await Promise.all(GRAPHS.map(writeForever));
