import { CommanderError, type Command } from 'commander';
import { isToolgraphError, type ToolgraphError } from '../errors/index.ts';
import { CommandExit, type CliIo } from './cli-io.ts';

/** What a bad setting exits with (sysexits EX_CONFIG), so scripts can tell it from a failed operation. */
export const EXIT_CONFIG = 78;

/**
 * Runs a commander program and turns its outcome into an exit code. A ToolgraphError prints as
 * `<name>: CODE: message` (plus `hint`'s line when it has one); anything else prints its stack.
 */
export async function runCli(program: Command, argv: readonly string[], io: CliIo, hint?: (error: ToolgraphError) => string | undefined): Promise<number> {
  const name = program.name();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CommandExit) return error.exitCode;
    if (isToolgraphError(error)) {
      io.err(`${name}: ${error.code}: ${error.message}`);
      const extra = hint?.(error);
      if (extra) io.err(`${name}: ${extra}`);
      return error.code === 'TG_CONFIG_INVALID' ? EXIT_CONFIG : 1;
    }
    io.err(`${name}: ${(error as Error).stack ?? String(error)}`);
    return 1;
  }
}
