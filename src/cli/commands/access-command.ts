import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ToolgraphError } from '../../errors/index.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { usingEngine, withEngineOptions } from '../open-cli-engine.ts';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function parsePolicy(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ToolgraphError('TG_BAD_REQUEST', `${where} is not JSON: expected an access policy document (specs/access-policy.schema.json, docs/access.md).`, { cause: error });
  }
}

/**
 * `toolgraph access get|set GRAPH`: read or replace a graph's access policy in the configured store,
 * as the operator (like the graph commands: on the store directly, so not while a server holds the
 * file store; a running server takes GET/PUT /graphs/{graph}/access instead). Both print the same
 * JSON as the HTTP route: `{graph, version, policy}`. The access code loads only when one runs.
 */
export function registerAccessCommand(program: Command, io: CliIo): void {
  const access = program.command('access').description(COMMAND_DESCRIPTIONS.access);

  const get = access.command('get').argument('<graph>').description('Print the graph\'s access policy and its version (policy null: nobody but kg:admin sees the graph)');
  const openForGet = withEngineOptions(get);
  get.action((graph: string, opts: Record<string, unknown>) =>
    usingEngine(openForGet(opts), async (engine) => {
      const { readAccessPolicy } = await import('../../graph/access/index.ts');
      io.out(JSON.stringify(readAccessPolicy(engine, graph) ?? { graph, version: 0, policy: null }, null, 2));
    }));

  const set = access
    .command('set')
    .argument('<graph>')
    .option('--file <policy.json>', 'Read the policy from this file instead of stdin')
    .description('Validate a policy (specs/access-policy.schema.json) and store it as the graph\'s policy, one batch');
  const openForSet = withEngineOptions(set);
  set.action(async (graph: string, opts: Record<string, unknown>) => {
    const file = typeof opts['file'] === 'string' ? opts['file'] : undefined;
    const value = parsePolicy(file === undefined ? await readStdin() : await readFile(file, 'utf8'), file ?? 'stdin');
    return usingEngine(openForSet(opts), async (engine) => {
      const { replaceAccessPolicy } = await import('../../graph/access/index.ts');
      io.out(JSON.stringify(await replaceAccessPolicy(engine, graph, value), null, 2));
    });
  });
}
