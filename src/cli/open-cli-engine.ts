import type { Command } from 'commander';
import type { ResolvedConfig, SettingName } from '../config/index.ts';
import { isToolgraphError } from '../errors/index.ts';
import type { GraphEngine } from '../graph/engine/index.ts';
import { STORE_SETTINGS } from './command-settings.ts';
import { withHint } from './error-hints.ts';
import { addSettingOptions } from './setting-options.ts';

/** The lock error of the file store names its lock file; the hint says what to do instead. */
function lockedStoreHint(error: unknown): string | undefined {
  if (!isToolgraphError(error) || error.code !== 'TG_STORAGE_FAILED' || typeof error.details?.['lockFile'] !== 'string') return undefined;
  return 'a running server holds this store: ask it instead (Cypher through POST /dispatch, the SDL as `{ _service { sdl } }` at /graphql/GRAPH), or stop it (Ctrl-C) and run this again';
}

/**
 * Graph commands work on the store directly, like `serve` would (same settings, same data dir). The
 * file store is locked by one process at a time, so they refuse while a server holds it; then go
 * through the server's POST /dispatch instead. They never seed the reference graph: only `serve`
 * does, into a store that has never stored a record (so `graph list` on a new machine leaves it for
 * `serve` to seed, while `graph create g` first means the store is yours).
 */
export function withEngineOptions(command: Command): (opts: Record<string, unknown>) => Promise<GraphEngine> {
  const { resolve, open } = withEngineConfig(command);
  return async (opts) => open(resolve(opts));
}

/**
 * As `withEngineOptions`, for commands that also read other settings (`settings` lists every setting
 * the command reads, the store's included): resolve first, then open.
 */
export function withEngineConfig(command: Command, settings: readonly SettingName[] = STORE_SETTINGS): { resolve: (opts: Record<string, unknown>) => ResolvedConfig; open: (config: ResolvedConfig) => Promise<GraphEngine> } {
  const resolve = addSettingOptions(command, { names: settings });
  return {
    resolve,
    open: (config) => withHint(async () => {
      // Loaded when a command runs, not when it is registered: `--help` and other commands never pay for the engine.
      const [{ createLogger }, { openGraphEngine }] = await Promise.all([import('../log/index.ts'), import('../serve/graph-store.ts')]);
      // Warnings (a dropped torn tail, say) matter to an operator; go to stderr so stdout stays data.
      const logger = createLogger({ level: config.values.logLevel === 'info' ? 'warn' : config.values.logLevel, destination: process.stderr });
      return openGraphEngine(config.values, logger, { seed: false });
    }, lockedStoreHint),
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
