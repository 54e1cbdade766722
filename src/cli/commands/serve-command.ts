import type { Command } from 'commander';
import { createLogger } from '../../log/index.ts';
import { parseServiceNames, startToolgraph } from '../../serve/index.ts';
import { addSettingOptions } from '../setting-options.ts';
import type { CliIo } from '../cli-io.ts';

export function registerServeCommand(program: Command, io: CliIo): void {
  const command = program
    .command('serve')
    .description('Start the HTTP services of this process on one host:port, each under its own paths')
    .option('--only <services>', 'Run only these services (comma-separated)');
  const resolveFrom = addSettingOptions(command);
  command.action(async (opts: Record<string, unknown>) => {
    const config = resolveFrom(opts);
    const only = typeof opts['only'] === 'string' ? parseServiceNames(opts['only']) : undefined;
    const logger = createLogger({ level: config.values.logLevel });
    const running = await startToolgraph({ config, logger, ...(only ? { only } : {}) });
    io.out(`toolgraph listening on ${running.origin}`);
    for (const service of running.services) io.out(`  ${service.name.padEnd(10)} ${service.url}`);
    io.out(`  ${'health'.padEnd(10)} ${running.origin}/healthz`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        io.err('toolgraph: shutting down');
        running.close().then(resolve, (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          resolve();
        });
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  });
}
