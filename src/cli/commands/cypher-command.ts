import type { Command } from 'commander';
import { ToolgraphError } from '../../errors/index.ts';
import { dispatch, serializeNativeResponse } from '../../graph/dispatch/index.ts';
import { CommandExit, type CliIo } from '../cli-io.ts';
import { usingEngine, withEngineOptions } from '../open-cli-engine.ts';

function parseParams(raw: unknown): Record<string, unknown> | null {
  if (raw === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(String(raw));
  } catch (error) {
    throw new ToolgraphError('TG_BAD_REQUEST', `--params: expected a JSON object, got invalid JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolgraphError('TG_BAD_REQUEST', `--params: expected a JSON object, got ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * `toolgraph cypher GRAPH 'QUERY'` runs one statement through the same native dispatch as
 * POST /dispatch (as the local operator), so it prints exactly what the HTTP surface answers.
 */
export function registerCypherCommand(program: Command, io: CliIo): void {
  const command = program
    .command('cypher')
    .argument('<graph>')
    .argument('<query>', 'one Cypher statement of the documented subset (docs/cypher.md)')
    .option('--params <json>', 'parameters as a JSON object, referenced as $name')
    .description('Run a Cypher statement against a graph and print the native response as JSON');
  const open = withEngineOptions(command);
  command.action((graph: string, query: string, opts: Record<string, unknown>) => {
    const params = parseParams(opts['params']);
    return usingEngine(open(opts), async (engine) => {
      const response = await dispatch(
        { id: 1n, idForm: 'integer', graph, agentId: null, method: { Cypher: { query, params } } },
        { subject: 'local', scopes: ['*'] },
        { engine },
      );
      io.out(serializeNativeResponse(response));
      if ('error' in response) throw new CommandExit(1);
    });
  });
}
