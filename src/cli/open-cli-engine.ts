import type { Command } from 'commander';
import type { GraphEngine } from '../graph/engine/index.ts';
import { createLogger } from '../log/index.ts';
import { openGraphEngine } from '../serve/index.ts';
import { addSettingOptions } from './setting-options.ts';

/**
 * Graph commands work on the store directly, like `serve` would (same settings, same data dir). The
 * file store is locked by one process at a time, so they refuse while a server holds it; then go
 * through the server's POST /dispatch instead.
 */
export function withEngineOptions(command: Command): (opts: Record<string, unknown>) => Promise<GraphEngine> {
  const resolveFrom = addSettingOptions(command);
  return async (opts) => {
    const config = resolveFrom(opts);
    // Warnings (a dropped torn tail, say) matter to an operator; go to stderr so stdout stays data.
    const logger = createLogger({ level: config.values.logLevel === 'info' ? 'warn' : config.values.logLevel, destination: process.stderr });
    return openGraphEngine(config.values, logger);
  };
}

export async function usingEngine<T>(open: Promise<GraphEngine>, work: (engine: GraphEngine) => Promise<T>): Promise<T> {
  const engine = await open;
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}
