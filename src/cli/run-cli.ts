import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError, type Command } from 'commander';
import type { ToolgraphError } from '../errors/index.ts';
import { CommandExit, type CliIo } from './cli-io.ts';
import { hintFor } from './error-hints.ts';

/** What a bad setting exits with (sysexits EX_CONFIG), so scripts can tell it from a failed operation. */
const EXIT_CONFIG = 78;
/** What an unexpected fault exits with (sysexits EX_SOFTWARE). */
export const EXIT_FAULT = 70;

/** A failed system call (a missing file, a refused connection): the user's to fix, worth one line. */
function systemError(error: unknown): (Error & { code: string; syscall?: string; path?: string }) | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code) ? (error as Error & { code: string }) : undefined;
}

/**
 * Writes the details of an unexpected fault (scrubbed of bearer tokens and JWTs) where the user can
 * send them on, and returns that path; undefined when even that fails.
 */
function writeFaultReport(name: string, error: unknown, argv: readonly string[], scrubString: (text: string) => string): string | undefined {
  const file = join(tmpdir(), `${name}-fault-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}.log`);
  const detail = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  const cause = error instanceof Error && error.cause !== undefined ? `\ncaused by: ${error.cause instanceof Error ? (error.cause.stack ?? error.cause.message) : String(error.cause)}` : '';
  try {
    writeFileSync(file, scrubString(`${name} ${argv[0] ?? ''} (node ${process.version})\n${detail}${cause}\n`), { mode: 0o600, flag: 'wx' });
    return file;
  } catch {
    return undefined;
  }
}

/**
 * Runs a commander program and turns its outcome into an exit code. A ToolgraphError prints as
 * `<name>: CODE: message` (plus a line of advice when the command attached one, see error-hints.ts,
 * or `hint` has one), a failed system call as one line
 * naming it; anything else is a fault of ours: one line, and the stack trace goes to a file it names.
 */
export async function runCli(program: Command, argv: readonly string[], io: CliIo, hint?: (error: ToolgraphError) => string | undefined): Promise<number> {
  const name = program.name();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CommandExit) return error.exitCode;
    // Loaded on failure only: `--help` and every successful run go without them.
    const [{ isToolgraphError }, { scrubString }] = await Promise.all([import('../errors/index.ts'), import('../log/redaction.ts')]);
    if (isToolgraphError(error)) {
      io.err(`${name}: ${error.code}: ${error.message}`);
      const extra = hintFor(error) ?? hint?.(error);
      if (extra) io.err(`${name}: ${extra}`);
      return error.code === 'TG_CONFIG_INVALID' ? EXIT_CONFIG : 1;
    }
    const failed = systemError(error);
    if (failed) {
      io.err(`${name}: ${scrubString(failed.message)}`);
      return 1;
    }
    const report = writeFaultReport(name, error, argv, scrubString);
    const summary = scrubString(error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split('\n')[0]!.slice(0, 200);
    io.err(`${name}: internal error (${summary}); ${report ? `the details are in ${report}` : 'the details could not be written to a file'}. Please report it.`);
    return EXIT_FAULT;
  }
}
