import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import { IMPORT_BATCH_SIZE } from '../../graph/jsonl/constants.ts';
import type { ImportProgress } from '../../graph/jsonl/index.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { usingEngine, withEngineOptions } from '../open-cli-engine.ts';
import { createProgressBar, formatBytes, type ProgressBar } from '../progress-bar.ts';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word.endsWith('h') ? 'es' : 's'}`;

/** Registers `toolgraph graph …`; the JSON Lines code loads only when import or export runs. */
export function registerGraphCommand(program: Command, io: CliIo): void {
  const graph = program.command('graph').description(COMMAND_DESCRIPTIONS.graph);

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
      if (graphs.length === 0) {
        io.err('no graphs in this store: `toolgraph serve` seeds the reference graph as demo into a fresh store; `toolgraph graph create NAME` or `toolgraph graph import NAME FILE --create` makes one here');
      }
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
    .option('--create', 'Create the graph first (and drop it again if the import fails)')
    .option('--resume', 'Skip nodes the graph already holds unchanged: finishes an import that stopped part-way')
    .description(`Import a JSON Lines file: check every line first (a bad file changes nothing), then commit ${IMPORT_BATCH_SIZE} records per atomic batch, nodes before edges`);
  const openForImport = withEngineOptions(importCommand);
  importCommand.action((name: string, file: string, opts: Record<string, unknown>) =>
    usingEngine(openForImport(opts), async (engine) => {
      const { importJsonlFile } = await import('../../graph/jsonl/index.ts');
      // One bar per pass, drawn on stderr and only on a terminal.
      let bar: ProgressBar | undefined;
      let phase: ImportProgress['phase'] | undefined;
      const onProgress = (p: ImportProgress) => {
        if (p.phase !== phase) {
          bar?.finish();
          phase = p.phase;
          bar = createProgressBar({ label: `${p.phase === 'check' ? 'check' : 'import'} ${name}`, total: p.totalBytes, format: formatBytes });
        }
        bar?.update(p.bytes);
      };
      const outcome = await importJsonlFile(engine, name, file, { create: opts['create'] === true, resume: opts['resume'] === true, onProgress });
      bar?.finish();
      const skipped = outcome.skipped > 0 ? `, skipped ${plural(outcome.skipped, 'node')} already in the graph` : '';
      io.out(`imported ${plural(outcome.records, 'record')} (${plural(outcome.nodes, 'node')}, ${plural(outcome.edges, 'edge')}) into ${name} in ${plural(outcome.batches, 'batch')}${skipped}; now at version ${outcome.version}`);
    }));

  const exportCommand = graph.command('export').argument('<graph>').option('--out <file>', 'Write here instead of stdout').description('Export a graph as JSON Lines');
  const openForExport = withEngineOptions(exportCommand);
  exportCommand.action((name: string, opts: Record<string, unknown>) =>
    usingEngine(openForExport(opts), async (engine) => {
      const { exportJsonl } = await import('../../graph/jsonl/index.ts');
      const view = engine.view(name);
      const target = typeof opts['out'] === 'string' ? createWriteStream(opts['out']) : process.stdout;
      const bar = createProgressBar({ label: `export ${name}`, total: view.nodeCount + view.edgeCount });
      const count = await exportJsonl(engine, name, target, (items) => bar.update(items));
      bar.finish();
      if (target !== process.stdout) {
        target.end();
        await finished(target);
        io.err(`exported ${plural(count.records, 'record')} (${plural(count.nodes, 'node')}, ${plural(count.edges, 'edge')}) from ${name} at version ${view.version}`);
      }
    }));
}
