import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { sdlFromCatalogue } from '../../graph/schema/index.ts';
import { DEMO_GRAPH } from '../../serve/index.ts';
import type { CliIo } from '../cli-io.ts';
import { usingEngine, withEngineOptions } from '../open-cli-engine.ts';

/** `toolgraph introspect [GRAPH]`: the federation v2 subgraph SDL derived from a graph's live catalogue. */
export function registerIntrospectCommand(program: Command, io: CliIo): void {
  const command = program
    .command('introspect')
    .argument('[graph]', 'graph name', DEMO_GRAPH)
    .option('--out <file>', 'Write the SDL here instead of stdout')
    .description('Print the subgraph SDL introspected from a graph (labels → types, properties → fields, edges → object fields)');
  const open = withEngineOptions(command);
  command.action((graph: string, opts: Record<string, unknown>) =>
    usingEngine(open(opts), async (engine) => {
      const sdl = sdlFromCatalogue(engine.view(graph).catalogue);
      if (typeof opts['out'] === 'string') {
        await writeFile(opts['out'], sdl);
        io.err(`wrote ${opts['out']} (${Buffer.byteLength(sdl)} bytes)`);
      } else io.out(sdl.trimEnd());
    }));
}
