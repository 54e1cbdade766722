import { Command, Help } from 'commander';
import { processIo, type CliIo } from './cli-io.ts';
import { COMMAND_DESCRIPTIONS } from './command-descriptions.ts';
import { COMMANDS, commandNamedBy } from './command-table.ts';
import { pointToHelp } from './point-to-help.ts';
import { runCli } from './run-cli.ts';
import { PROGRAM_DESCRIPTION } from './top-level-help.ts';
import { TOOLGRAPH_VERSION } from './version.ts';

/**
 * Builds the `toolgraph` program for a command line. Only the command `argv` names is registered in
 * full (its module, its options and its settings); every other command is listed by name, term and
 * description alone, which is all the top-level help and commander's "unknown command" suggestions
 * read. A command imports what it runs on (the engine, the servers, the clients) only when it runs,
 * so `--help` and each command pay for nothing else. Without `argv`, every command is registered.
 */
export async function createProgram(io: CliIo = processIo, argv?: readonly string[]): Promise<Command> {
  const listedOnly = new Map<Command, string>();
  const program = new Command('toolgraph')
    .description(PROGRAM_DESCRIPTION)
    .version(TOOLGRAPH_VERSION)
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .configureHelp({
      subcommandTerm(this: Help, command: Command): string {
        return listedOnly.get(command) ?? Help.prototype.subcommandTerm.call(this, command);
      },
    })
    .exitOverride();
  const named = argv === undefined ? undefined : commandNamedBy(argv);
  for (const entry of COMMANDS) {
    if (argv === undefined || entry.name === named) (await entry.register())(program, io);
    else listedOnly.set(program.command(entry.name).description(COMMAND_DESCRIPTIONS[entry.name]), entry.term);
  }
  pointToHelp(program);
  return program;
}

/** Runs the program; returns the process exit code. Errors print as `toolgraph: CODE: message`. */
export async function runProgram(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  return runCli(await createProgram(io, argv), argv, io);
}
