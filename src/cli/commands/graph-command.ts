import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import type { GraphEngine } from '../../graph/engine/index.ts';
import { IMPORT_BATCH_SIZE, importJsonlFile } from '../../graph/fixtures/index.ts';
import type { CliIo } from '../cli-io.ts';
import { usingEngine, withEngineOptions } from '../open-cli-engine.ts';
import { createProgressBar, formatBytes } from '../progress-bar.ts';

/** Writes a graph as JSON Lines: every node (`{label, id, props}`) in id order, then every edge. */
export async function exportJsonl(engine: GraphEngine, graph: string, out: NodeJS.WritableStream, onProgress: (items: number) => void = () => undefined): Promise<number> {
  const view = engine.view(graph);
  let written = 0;
  const write = async (value: unknown) => {
    if (!out.write(`${JSON.stringify(value)}\n`)) await new Promise((resolve) => out.once('drain', resolve));
    if (++written % 1000 === 0) onProgress(written);
  };
  for (const node of view.allNodes()) await write({ label: node.label, id: node.id, props: node.props });
  for (const edge of view.allEdges()) await write({ src: edge.src, tgt: edge.tgt, type: edge.type });
  onProgress(written);
  return written;
}

export function registerGraphCommand(program: Command, io: CliIo): void {
  const graph = program.command('graph').description('Create, list, drop, import and export graphs in the configured store');

  const create = graph.command('create').argument('<name>', 'graph name (^[A-Za-z][A-Za-z0-9_-]{0,63}$)').description('Create an empty graph');
  const openForCreate = withEngineOptions(create);
  create.action((name: string, opts: Record<string, unknown>) =>
    usingEngine(openForCreate(opts), async (engine) => {
      await engine.createGraph(name);
      io.out(`created graph ${name}`);
    }));

  const list = graph.command('list').description('List graphs with their version and size').option('--json', 'Print JSON');
  const openForList = withEngineOptions(list);
  list.action((opts: Record<string, unknown>) =>
    usingEngine(openForList(opts), async (engine) => {
      const graphs = engine.listGraphs();
      if (opts['json']) {
        io.out(JSON.stringify(graphs, null, 2));
        return;
      }
      io.out(`${'graph'.padEnd(24)} ${'version'.padStart(8)} ${'nodes'.padStart(10)} ${'edges'.padStart(10)}`);
      for (const g of graphs) io.out(`${g.name.padEnd(24)} ${String(g.version).padStart(8)} ${String(g.nodes).padStart(10)} ${String(g.edges).padStart(10)}`);
    }));

  const drop = graph.command('drop').argument('<name>').description('Drop a graph and everything in it');
  const openForDrop = withEngineOptions(drop);
  drop.action((name: string, opts: Record<string, unknown>) =>
    usingEngine(openForDrop(opts), async (engine) => {
      await engine.dropGraph(name);
      io.out(`dropped graph ${name}`);
    }));

  const importCommand = graph
    .command('import')
    .argument('<graph>')
    .argument('<file>', 'JSON Lines: {"label","id","props"} nodes and {"src","tgt","type"} edges')
    .option('--create', 'Create the graph first')
    .description(`Import a JSON Lines file, ${IMPORT_BATCH_SIZE} lines per atomic batch`);
  const openForImport = withEngineOptions(importCommand);
  importCommand.action((name: string, file: string, opts: Record<string, unknown>) =>
    usingEngine(openForImport(opts), async (engine) => {
      const size = (await stat(file)).size;
      if (opts['create']) await engine.createGraph(name);
      const bar = createProgressBar({ label: `import ${name}`, total: size, format: formatBytes });
      const outcome = await importJsonlFile(engine, name, file, (bytes) => bar.update(bytes));
      bar.finish();
      io.out(`imported ${outcome.lines} lines into ${name} in ${outcome.batches} batches; now at version ${outcome.version}`);
    }));

  const exportCommand = graph.command('export').argument('<graph>').option('--out <file>', 'Write here instead of stdout').description('Export a graph as JSON Lines');
  const openForExport = withEngineOptions(exportCommand);
  exportCommand.action((name: string, opts: Record<string, unknown>) =>
    usingEngine(openForExport(opts), async (engine) => {
      const view = engine.view(name);
      const target = typeof opts['out'] === 'string' ? createWriteStream(opts['out']) : process.stdout;
      const bar = createProgressBar({ label: `export ${name}`, total: view.nodeCount + view.edgeCount });
      const count = await exportJsonl(engine, name, target, (items) => bar.update(items));
      bar.finish();
      if (target !== process.stdout) {
        target.end();
        await finished(target);
        io.err(`exported ${count} lines from ${name} at version ${view.version}`);
      }
    }));
}
