import type { Command } from 'commander';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { usingEngine, withEngineOptions } from '../open-cli-engine.ts';

/**
 * `toolgraph namespace get|set|clear GRAPH`: read, set or remove a graph's federation namespace in
 * the configured store, as the operator (like `toolgraph access`: on the store directly, so not
 * while a server holds the file store; a running server takes GET/PUT /graphs/{graph}/namespace).
 * Each prints the same JSON as the HTTP route: `{graph, version, namespace}`.
 */
export function registerNamespaceCommand(program: Command, io: CliIo): void {
  const namespace = program.command('namespace').description(COMMAND_DESCRIPTIONS.namespace);

  const get = namespace.command('get').argument('<graph>').description('Print the graph\'s namespace (null: none) and its version');
  const openForGet = withEngineOptions(get);
  get.action((graph: string, opts: Record<string, unknown>) =>
    usingEngine(openForGet(opts), async (engine) => {
      const { readNamespace } = await import('../../graph/schema/index.ts');
      io.out(JSON.stringify(readNamespace(engine, graph), null, 2));
    }));

  const set = namespace
    .command('set')
    .argument('<graph>')
    .argument('<namespace>', 'lowercase letters and digits, starting with a letter, at most 32')
    .description('Give the graph a namespace: its GraphQL types and root fields take it as a prefix (crm: Crm_Person, crm_Person, crm_createNode)');
  const openForSet = withEngineOptions(set);
  set.action((graph: string, name: string, opts: Record<string, unknown>) =>
    usingEngine(openForSet(opts), async (engine) => {
      const { replaceNamespace } = await import('../../graph/schema/index.ts');
      io.out(JSON.stringify(await replaceNamespace(engine, graph, name), null, 2));
    }));

  const clear = namespace.command('clear').argument('<graph>').description('Remove the graph\'s namespace: its schema is the plain one again');
  const openForClear = withEngineOptions(clear);
  clear.action((graph: string, opts: Record<string, unknown>) =>
    usingEngine(openForClear(opts), async (engine) => {
      const { replaceNamespace } = await import('../../graph/schema/index.ts');
      io.out(JSON.stringify(await replaceNamespace(engine, graph, null), null, 2));
    }));
}
