#!/usr/bin/env node
import { enableCompileCache } from 'node:module';
import { TOOLGRAPH_VERSION } from './version.ts';

const argv = process.argv.slice(2);
// `--version` alone answers without loading commander or any command: as fast as node starts.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${TOOLGRAPH_VERSION}\n`);
} else if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help')) {
  // The top-level help alone is laid out from the command table, without commander or the program.
  const { topLevelHelp } = await import('./top-level-help.ts');
  process.stdout.write(`${topLevelHelp((process.stdout.isTTY && process.stdout.columns) || 80)}\n`);
} else {
  // V8 keeps the compiled code of the modules a command loads (in the OS temp dir), so the next run
  // of a command skips compiling them again; `serve` loads thousands. A failure to cache is ignored.
  enableCompileCache();
  const { runProgram } = await import('./program.ts');
  process.exitCode = await runProgram(argv);
}
