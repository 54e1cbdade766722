import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ResolvedValues } from '../config/index.ts';
import { GraphEngine } from '../graph/engine/index.ts';
import { loadReferenceGraph } from '../graph/fixtures/index.ts';
import { openPersistence } from '../graph/persist/index.ts';
import type { Logger } from '../log/index.ts';

/** The graph `serve` creates from specs/fixtures/ on a fresh store, so a first start serves something real. */
export const DEMO_GRAPH = 'demo';

export type EngineSettings = Pick<ResolvedValues, 'persistence' | 'dataDir' | 'databaseUrl'>;

/**
 * Opens the engine on the configured persistence. A fresh store gets the reference graph as `demo`:
 * for `file`, an empty or missing data dir (so dropping `demo` is final); for `memory`, every start;
 * for `postgres`, a database with no graph.
 */
export async function openGraphEngine(values: EngineSettings, logger: Logger): Promise<GraphEngine> {
  const dataDir = join(values.dataDir, 'graphs');
  const fresh = values.persistence !== 'file' || !existsSync(dataDir) || readdirSync(dataDir).length === 0;
  const persistence = await openPersistence({
    kind: values.persistence,
    dataDir,
    ...(values.databaseUrl ? { databaseUrl: values.databaseUrl } : {}),
    logger,
  });
  const engine = await GraphEngine.open({ persistence, logger });
  try {
    if (fresh && engine.listGraphs().length === 0) {
      await loadReferenceGraph(engine, DEMO_GRAPH);
      logger.info({ graphs: 1 }, 'seeded the reference graph on a fresh store');
    }
  } catch (error) {
    // Another instance on the same PostgreSQL database may seed at the same moment.
    if ((error as { code?: string }).code !== 'TG_GRAPH_EXISTS') {
      await engine.close();
      throw error;
    }
  }
  return engine;
}
