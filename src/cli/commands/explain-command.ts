import type { Command } from 'commander';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { EXPLAIN_SETTINGS } from '../command-settings.ts';
import { usingEngine, withEngineConfig } from '../open-cli-engine.ts';

type Dispatch = typeof import('../../graph/dispatch/index.ts');

function parseVariables(raw: unknown, parseRequestJson: Dispatch['parseRequestJson']): Record<string, unknown> | null {
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
 * running anything: only the graph's catalogue is read. It loads the translator, not the GraphQL server.
 */
export function registerExplainCommand(program: Command, io: CliIo): void {
  const command = program
    .command('explain')
    .argument('<graph>')
    .argument('<graphql>', 'a GraphQL query against the graph\'s schema (see toolgraph introspect)')
    .option('--variables <json>', 'values of the query\'s variables as a JSON object')
    .option('--operation <name>', 'the operation to explain when the document has several')
    .option('--json', 'print the explanation as JSON (graph, operation, cypher, steps, text)')
    .description(COMMAND_DESCRIPTIONS.explain);
  const { resolve, open } = withEngineConfig(command, EXPLAIN_SETTINGS);
  command.action(async (graph: string, query: string, opts: Record<string, unknown>) => {
    const [{ parseRequestJson }, { explainGraphql }] = await Promise.all([import('../../graph/dispatch/index.ts'), import('../../graph/graphql/explain.ts')]);
    const variables = parseVariables(opts['variables'], parseRequestJson);
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
