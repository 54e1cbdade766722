import type { Command } from 'commander';
import type { CliIo } from './cli-io.ts';
import type { CommandName } from './command-descriptions.ts';

type Register = (program: Command, io: CliIo) => void;

/** A top-level command as the top-level help lists it, and where its full registration lives. */
export interface CommandEntry {
  readonly name: CommandName;
  /** Its name, `[options]` when it has some, and its arguments, as commander's help writes them. */
  readonly term: string;
  readonly register: () => Promise<Register>;
}

/**
 * Every `toolgraph` command, in help order. A run registers fully only the command it names (its
 * arguments, options, subcommands and actions, in commands/*-command.ts); the others are listed by
 * name, term and description alone, so `--help` loads none of them. A test checks each term against
 * what the full registration makes commander print.
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'serve', term: 'serve [options]', register: async () => (await import('./commands/serve-command.ts')).registerServeCommand },
  { name: 'config', term: 'config [options]', register: async () => (await import('./commands/config-command.ts')).registerConfigCommand },
  { name: 'introspect', term: 'introspect [options] [graph]', register: async () => (await import('./commands/introspect-command.ts')).registerIntrospectCommand },
  { name: 'graph', term: 'graph', register: async () => (await import('./commands/graph-command.ts')).registerGraphCommand },
  { name: 'access', term: 'access', register: async () => (await import('./commands/access-command.ts')).registerAccessCommand },
  { name: 'namespace', term: 'namespace', register: async () => (await import('./commands/namespace-command.ts')).registerNamespaceCommand },
  { name: 'cypher', term: 'cypher [options] <graph> <query>', register: async () => (await import('./commands/cypher-command.ts')).registerCypherCommand },
  { name: 'explain', term: 'explain [options] <graph> <graphql>', register: async () => (await import('./commands/explain-command.ts')).registerExplainCommand },
  { name: 'schema', term: 'schema', register: async () => (await import('./commands/schema-command.ts')).registerSchemaCommand },
  { name: 'tools', term: 'tools', register: async () => (await import('./commands/tools-command.ts')).registerToolsCommand },
  { name: 'auth', term: 'auth', register: async () => (await import('./commands/auth-command.ts')).registerAuthCommand },
  { name: 'envelope', term: 'envelope', register: async () => (await import('./commands/envelope-command.ts')).registerEnvelopeCommand },
];

/**
 * The command a command line runs: its first word that is not an option (the top-level program's
 * only options, --version and --help, take no value), or the one after `help`. Undefined for none.
 */
export function commandNamedBy(argv: readonly string[]): string | undefined {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}
