import type { Command } from 'commander';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { CommandExit, type CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { CYPHER_SETTINGS } from '../command-settings.ts';
import { usingEngine, withEngineConfig } from '../open-cli-engine.ts';

type Dispatch = typeof import('../../graph/dispatch/index.ts');

/** Parsed like a request body: depth-checked, and integers beyond 2^53 kept exact (the run refuses them). */
function parseParams(raw: unknown, parseRequestJson: Dispatch['parseRequestJson']): Record<string, unknown> | null {
  if (raw === undefined) return null;
  let value: unknown;
  try {
    value = parseRequestJson(String(raw), '--params').value;
  } catch (error) {
    throw new ToolgraphError('TG_BAD_REQUEST', (error as Error).message, { cause: error });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolgraphError('TG_BAD_REQUEST', `--params: expected a JSON object, got ${describeValue(value)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * `toolgraph cypher GRAPH 'QUERY'` runs one statement through the same native dispatch as
 * POST /dispatch (as the local operator), so it prints exactly what the HTTP surface answers. The
 * dispatch and the Cypher executor load when it runs; nothing of GraphQL does.
 */
export function registerCypherCommand(program: Command, io: CliIo): void {
  const command = program
    .command('cypher')
    .argument('<graph>')
    .argument('<query>', 'one Cypher statement of the documented subset (docs/cypher.md)')
    .option('--params <json>', 'parameters as a JSON object, referenced as $name')
    .description(COMMAND_DESCRIPTIONS.cypher);
  const { resolve, open } = withEngineConfig(command, CYPHER_SETTINGS);
  command.action(async (graph: string, query: string, opts: Record<string, unknown>) => {
    const [{ answerNativeRequest, parseRequestJson }, { budgetLimitsOf, writeLimitsOf }] = await Promise.all([import('../../graph/dispatch/index.ts'), import('../../serve/graph-store.ts')]);
    const params = parseParams(opts['params'], parseRequestJson);
    const config = resolve(opts);
    return usingEngine(open(config), async (engine) => {
      const answer = await answerNativeRequest(
        { id: 1n, idForm: 'integer', graph, agentId: null, method: { Cypher: { query, params } } },
        { subject: 'local', scopes: ['*'] },
        { engine, cypher: { limits: budgetLimitsOf(config.values), writeLimits: writeLimitsOf(config.values) } },
      );
      io.out(answer.text);
      if (answer.outcome !== 'ok') throw new CommandExit(1);
    });
  });
}
