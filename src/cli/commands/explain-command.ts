import type { Command } from 'commander';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { parseRequestJson } from '../../graph/dispatch/index.ts';
import { explainGraphql } from '../../graph/graphql/index.ts';
import type { CliIo } from '../cli-io.ts';
import { usingEngine, withEngineConfig } from '../open-cli-engine.ts';

function parseVariables(raw: unknown): Record<string, unknown> | null {
  if (raw === undefined) return null;
  let value: unknown;
  try {
    value = parseRequestJson(String(raw), '--variables').value;
  } catch (error) {
    throw new ToolgraphError('TG_BAD_REQUEST', (error as Error).message, { cause: error });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolgraphError('TG_BAD_REQUEST', `--variables: expected a JSON object, got ${describeValue(value)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * `toolgraph explain GRAPH 'GRAPHQL'`: the Cypher statements equivalent to a GraphQL query (one per
 * root field) and the plan the GraphQL executor follows (scans, expansions, filters), without
 * running anything: only the graph's catalogue is read.
 */
export function registerExplainCommand(program: Command, io: CliIo): void {
  const command = program
    .command('explain')
    .argument('<graph>')
    .argument('<graphql>', 'a GraphQL query against the graph\'s schema (see toolgraph introspect)')
    .option('--variables <json>', 'values of the query\'s variables as a JSON object')
    .option('--operation <name>', 'the operation to explain when the document has several')
    .option('--json', 'print the explanation as JSON (graph, operation, cypher, steps, text)')
    .description('Print the Cypher equivalent to a GraphQL query and the plan it runs with (scans, expansions, filters)');
  const { resolve, open } = withEngineConfig(command);
  command.action(async (graph: string, query: string, opts: Record<string, unknown>) => {
    const variables = parseVariables(opts['variables']);
    const config = resolve(opts);
    return usingEngine(open(config), async (engine) => {
      const explanation = explainGraphql(engine, graph, query, {
        variables,
        operationName: typeof opts['operation'] === 'string' ? opts['operation'] : null,
        introspection: config.values.graphqlIntrospection,
      });
      io.out(opts['json'] === true ? JSON.stringify(explanation, null, 2) : explanation.text);
    });
  });
}
