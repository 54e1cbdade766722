import type { Command } from 'commander';
import type { Logger } from '../../log/index.ts';
import type { SecretValue } from '../../secrets/index.ts';
import { SERVICE_NAMES } from '../../serve/constants.ts';
import type { RunningToolgraph } from '../../serve/index.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { TOOLGRAPH_VERSION } from '../version.ts';
import { addSettingOptions } from '../setting-options.ts';

/** The in-memory backend the secrets tool reads starts empty; local work seeds it as secret-manager does. */
export async function secretsSeedFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<Readonly<Record<string, SecretValue>> | undefined> {
  const file = env['TOOLGRAPH_SECRETS_FILE'] || undefined;
  if (file === undefined) return undefined;
  const { readSecretsSeedFile } = await import('../../secrets/index.ts');
  return readSecretsSeedFile(file);
}

/**
 * Prints where each service listens, then serves until SIGINT/SIGTERM and shuts down gracefully. The
 * handlers are in place before the first line is printed: whoever reads "listening" may stop the
 * server at once, and a signal without a handler would kill it with its store still locked.
 */
export async function serveUntilSignal(running: RunningToolgraph, io: CliIo, graceSecs: number, logger: Logger): Promise<void> {
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) {
        io.err(`toolgraph: already shutting down; in-flight requests get at most ${graceSecs} s`);
        return;
      }
      stopping = true;
      // New connections are refused at once; requests already running finish (their commits may be durable).
      io.err(`toolgraph: shutting down (in-flight requests get up to ${graceSecs} s to finish)`);
      running.close()
        .catch((error: unknown) => logger.error({ err: error }, 'shutdown failed'))
        .then(() => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    io.out(`toolgraph listening on ${running.origin}`);
    for (const service of running.services) io.out(`  ${service.name.padEnd(10)} ${service.url}`);
    io.out(`  ${'health'.padEnd(10)} ${running.origin}/healthz`);
  });
}

/** Registers `toolgraph serve`; the composition root (every service) loads only when it runs. */
export function registerServeCommand(program: Command, io: CliIo): void {
  const command = program
    .command('serve')
    .description(COMMAND_DESCRIPTIONS.serve)
    .option('--only <services>', `Run only these services, comma-separated: any of ${SERVICE_NAMES.join(', ')} (default: all of them)`);
  const resolveFrom = addSettingOptions(command);
  command.action(async (opts: Record<string, unknown>) => {
    const config = resolveFrom(opts);
    const [{ createLogger }, { parseServiceNames, startToolgraph }, { startTracing }] = await Promise.all([
      import('../../log/index.ts'), import('../../serve/index.ts'), import('../../observability/tracing/index.ts'),
    ]);
    const only = typeof opts['only'] === 'string' ? parseServiceNames(opts['only']) : undefined;
    const logger = createLogger({ level: config.values.logLevel });
    // Before any service starts; the OpenTelemetry SDK loads only when the OTEL_* variables ask for traces.
    const tracing = await startTracing({ env: process.env, logger, serviceVersion: TOOLGRAPH_VERSION });
    const secretsSeed = await secretsSeedFromEnv();
    const running = await startToolgraph({ config, logger, ...(only ? { only } : {}), ...(secretsSeed ? { secretsSeed } : {}) });
    await serveUntilSignal(running, io, config.values.shutdownGraceSecs, logger);
    await tracing?.shutdown();
  });
}
