import { Command } from 'commander';
import { processIo, type CliIo } from './cli-io.ts';
import { runCli } from './run-cli.ts';
import { registerAccessCommand } from './commands/access-command.ts';
import { registerAuthCommand } from './commands/auth-command.ts';
import { registerConfigCommand } from './commands/config-command.ts';
import { registerCypherCommand } from './commands/cypher-command.ts';
import { registerEnvelopeCommand } from './commands/envelope-command.ts';
import { registerExplainCommand } from './commands/explain-command.ts';
import { registerGraphCommand } from './commands/graph-command.ts';
import { registerIntrospectCommand } from './commands/introspect-command.ts';
import { registerSchemaCommand } from './commands/schema-command.ts';
import { registerServeCommand } from './commands/serve-command.ts';
import { registerToolsCommand } from './commands/tools-command.ts';

/** Builds the `toolgraph` program. Every command registered here works end to end. */
export function createProgram(io: CliIo = processIo): Command {
  const program = new Command('toolgraph')
    .description('Verified tool-schema catalogue, SSO-protected MCP tool servers, and a federated GraphQL interface over a live property graph')
    .version('0.1.0')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride();
  registerServeCommand(program, io);
  registerConfigCommand(program, io);
  registerIntrospectCommand(program, io);
  registerGraphCommand(program, io);
  registerAccessCommand(program, io);
  registerCypherCommand(program, io);
  registerExplainCommand(program, io);
  registerSchemaCommand(program, io);
  registerToolsCommand(program, io);
  registerAuthCommand(program, io);
  registerEnvelopeCommand(program, io);
  return program;
}

/** Runs the program; returns the process exit code. Errors print as `toolgraph: CODE: message`. */
export function runProgram(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  return runCli(createProgram(io), argv, io);
}
