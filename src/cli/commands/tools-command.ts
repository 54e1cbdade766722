import type { Command } from 'commander';
import { addSettingOptions } from '../setting-options.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { secretsSeedFromEnv, serveUntilSignal } from './serve-command.ts';

/**
 * `toolgraph tools serve --transport streamable-http|stdio`: the MCP tool server alone.
 * streamable-http is `serve --only tools` (the same auth options); stdio speaks MCP on stdin and
 * stdout for a client that starts it as a subprocess, with logs on stderr and no HTTP auth. The
 * servers load only when it runs.
 */
export function registerToolsCommand(program: Command, io: CliIo): void {
  const tools = program.command('tools').description(COMMAND_DESCRIPTIONS.tools);
  const command = tools
    .command('serve')
    .description('Run the MCP tool server alone: over Streamable HTTP at /mcp (with the auth options), or over stdio (the caller is the local operator)');
  const resolveFrom = addSettingOptions(command);
  command.action(async (opts: Record<string, unknown>) => {
    const config = resolveFrom(opts);
    const [{ createLogger }, { startStdioToolServer, startToolgraph }] = await Promise.all([import('../../log/index.ts'), import('../../serve/index.ts')]);
    const secretsSeed = await secretsSeedFromEnv();
    if (config.values.transport === 'stdio') {
      const { pino } = await import('pino');
      // stdout carries JSON-RPC: every log line goes to stderr.
      const logger = createLogger({ level: config.values.logLevel, destination: pino.destination(2) });
      const running = await startStdioToolServer({ config, logger, ...(secretsSeed ? { secretsSeed } : {}) });
      const stop = () => void running.close();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await running.closed;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      return;
    }
    const logger = createLogger({ level: config.values.logLevel });
    const running = await startToolgraph({ config, logger, only: ['tools'], ...(secretsSeed ? { secretsSeed } : {}) });
    await serveUntilSignal(running, io, config.values.shutdownGraceSecs, logger);
  });
}
