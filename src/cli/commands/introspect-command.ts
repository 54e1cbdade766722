import type { Command } from 'commander';
import { ToolgraphError } from '../../errors/index.ts';
import { DEMO_GRAPH } from '../../serve/constants.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { usingEngine, withEngineOptions } from '../open-cli-engine.ts';

/**
 * `toolgraph introspect [GRAPH]`: the federation v2 subgraph SDL derived from a graph's live catalogue.
 * `--out FILE` replaces FILE atomically (a temporary file in the same directory, then a rename) once
 * the SDL is known, so a locked store, a missing graph or a failed write leaves FILE as it was; a
 * shell redirect (`> FILE`) would empty it before the command even starts.
 */
export function registerIntrospectCommand(program: Command, io: CliIo): void {
  const command = program
    .command('introspect')
    .argument('[graph]', 'graph name', DEMO_GRAPH)
    .option('--out <file>', 'Write the SDL here (atomically: the file is replaced whole, or left as it was) instead of stdout')
    .description(COMMAND_DESCRIPTIONS.introspect);
  const open = withEngineOptions(command);
  command.action((graph: string, opts: Record<string, unknown>) =>
    usingEngine(open(opts), async (engine) => {
      const { sdlFromCatalogue } = await import('../../graph/schema/index.ts');
      const sdl = sdlFromCatalogue(engine.view(graph).catalogue);
      if (typeof opts['out'] === 'string') {
        const { writeFileAtomic } = await import('../../manifest/client/index.ts');
        try {
          await writeFileAtomic(opts['out'], Buffer.from(sdl, 'utf8'));
        } catch (error) {
          throw new ToolgraphError('TG_BAD_REQUEST', `--out ${opts['out']}: cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); nothing was written.`, { cause: error });
        }
        io.err(`wrote ${opts['out']} (${Buffer.byteLength(sdl)} bytes)`);
      } else io.out(sdl.trimEnd());
    }));
}
