import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { DEMO_GRAPH } from '../../serve/constants.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-table.ts';
import { usingEngine, withEngineOptions } from '../open-cli-engine.ts';

/** `toolgraph introspect [GRAPH]`: the federation v2 subgraph SDL derived from a graph's live catalogue. */
export function registerIntrospectCommand(program: Command, io: CliIo): void {
  const command = program
    .command('introspect')
    .argument('[graph]', 'graph name', DEMO_GRAPH)
    .option('--out <file>', 'Write the SDL here instead of stdout')
    .description(COMMAND_DESCRIPTIONS.introspect);
  const open = withEngineOptions(command);
  command.action((graph: string, opts: Record<string, unknown>) =>
    usingEngine(open(opts), async (engine) => {
      const { sdlFromCatalogue } = await import('../../graph/schema/index.ts');
      const sdl = sdlFromCatalogue(engine.view(graph).catalogue);
      if (typeof opts['out'] === 'string') {
        await writeFile(opts['out'], sdl);
        io.err(`wrote ${opts['out']} (${Buffer.byteLength(sdl)} bytes)`);
      } else io.out(sdl.trimEnd());
    }));
}
